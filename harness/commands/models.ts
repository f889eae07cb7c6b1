// `coop-bench models`: the model catalogue with each model's status on a day (today by default),
// and where each lifecycle date comes from.
import { Command } from 'commander';
import { CATALOGUE, lifecycleOf, lifecycleText, runDate, TODAY_VARIABLE, type CatalogueEntry } from '../models/index.ts';

const number = (n: number | undefined) => (n === undefined ? '-' : n.toLocaleString('en'));
const usd = (n: number | undefined) => (n === undefined ? '-' : String(n));

function row(entry: CatalogueEntry, today: Date): string[] {
  const p = entry.prices;
  const window = entry.inputLimit ? `${number(entry.contextWindow)} (prompt ${number(entry.inputLimit)})` : number(entry.contextWindow);
  return [
    entry.id,
    entry.provider,
    entry.aliases.join(',') || '-',
    window,
    number(entry.maxOutputTokens),
    p ? `${usd(p.input)} / ${usd(p.output)}` : '-',
    p ? `${usd(p.cacheRead)} / ${usd(p.cacheWrite5m)} / ${usd(p.cacheWrite1h)}` : '-',
    entry.reasoningEfforts?.join(',') ?? '-',
    lifecycleText(lifecycleOf(entry, today)),
  ];
}

export function formatCatalogue(today: Date): string {
  const header = ['model', 'provider', 'alias', 'context window', 'output', '$ in / out', '$ cache read / write 5m / 1h', 'reasoning efforts', 'status'];
  const rows = CATALOGUE.models.map((entry) => row(entry, today));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const dated = CATALOGUE.models.filter((entry) => entry.retires || entry.deprecated);
  return [
    `Models on ${today.toISOString().slice(0, 10)} (prices in USD per million tokens; a retired model is refused before a run starts)`,
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    'Lifecycle dates and their sources ("unverified": only third-party pages report the date):',
    ...dated.map((entry) => {
      const source = entry.sources.lifecycle!;
      const replacement = entry.replacement ? `, replacement ${entry.replacement}` : '';
      return `  ${entry.id}: ${entry.deprecated ? `deprecated ${entry.deprecated}, ` : ''}retires ${entry.retires ?? '(no date)'}${replacement}: ${source.ref}${source.verified ? '' : ' (unverified)'}`;
    }),
    '',
    'Every figure\'s source: harness/models/catalogue.json ("sources"); `coop-bench models --json` prints it.',
  ].join('\n');
}

export function modelsCommand(): Command {
  return new Command('models')
    .description("list the model catalogue: limits, prices, reasoning efforts and each model's status on a day")
    .option('--date <YYYY-MM-DD>', `the day to show statuses on (default: $${TODAY_VARIABLE}, else today)`)
    .option('--json', "print the catalogue with each model's status as JSON, every figure with its source", false)
    .action((options: { date?: string; json: boolean }) => {
      const today = runDate({ today: options.date });
      if (options.json) {
        const models = CATALOGUE.models.map((entry) => ({ ...entry, status: lifecycleOf(entry, today) }));
        process.stdout.write(`${JSON.stringify({ date: today.toISOString().slice(0, 10), models }, null, 2)}\n`);
      } else {
        process.stdout.write(`${formatCatalogue(today)}\n`);
      }
    });
}
