// `coop-bench import <logs>`: runs of the CooperBench Python harness (or coop-bench's own log tree)
// into a new run, then `judge`, `report` and `report --compare` work on it as on any run.
import { Command } from 'commander';
import { UserError } from '../errors.ts';
import { importLogs, type ImportReport } from './import-logs.ts';

/** One line per task that lacks something, then the totals. */
export function formatImportReport(report: ImportReport, name: string): string[] {
  const lines: string[] = [];
  for (const t of report.tasks) {
    const what = [t.reason, ...t.notes].filter(Boolean).join('; ');
    if (t.outcome !== 'done' || what) lines.push(`${t.outcome.padEnd(11)} ${t.folder}${what ? `: ${what}` : ''}`);
  }
  for (const i of report.ignored) lines.push(`${'ignored'.padEnd(11)} ${i}`);
  for (const z of report.timeZones) lines.push(`${'times'.padEnd(11)} ${z}`);
  const frameworks = Object.entries(report.frameworks);
  if (frameworks.length > 1)
    lines.push(
      `${'frameworks'.padEnd(11)} ${frameworks.map(([f, n]) => `${f} (${n} tasks)`).join(', ')}: the run mixes agent frameworks, and its rates pool them`,
    );
  for (const n of report.notImported) lines.push(`${'not kept'.padEnd(11)} ${n}`);
  const count = (outcome: string) => report.tasks.filter((t) => t.outcome === outcome).length;
  lines.push(
    `imported ${report.tasks.length} task folder${report.tasks.length === 1 ? '' : 's'} of ${report.runs.join(', ')} into ${report.dir}: ` +
      `${count('done')} evaluated, ${count('interrupted')} never evaluated and ${count('error')} whose evaluation failed (both outside the rates), ${count('skipped')} skipped, ${count('duplicate')} duplicates`,
    `the list above is kept in ${report.dir}/import-report.json; next: coop-bench report ${name}, coop-bench judge --name ${name}`,
  );
  return lines;
}

export function importCommand(): Command {
  return new Command('import')
    .description('bring runs of the CooperBench Python harness (its logs/ folder) or a coop-bench log tree into a new run')
    .argument('<logs>', 'CooperBench logs/ folder, one run in it (logs/<run>), or a coop-bench run folder')
    .requiredOption('--name <run>', 'name of the new run (created under --runs-dir)')
    .option('--runs-dir <dir>', 'where runs are stored', 'runs')
    .option('--variant <name>', 'ablation of the imported CooperBench runs, e.g. no-messaging (their logs do not record it)', '')
    .option('--timezone <zone>', 'zone of the CooperBench machine for its zone-less times: UTC, +02:00 or Europe/Berlin (default: inferred from the logs)')
    .action((logs: string, o: { name: string; runsDir: string; variant: string; timezone?: string }) => {
      if (o.variant && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(o.variant))
        throw new UserError(`--variant "${o.variant}" is not allowed: use letters, digits, '.', '_' or '-'`);
      const report = importLogs(logs, {
        runsDir: o.runsDir,
        name: o.name,
        variant: o.variant,
        timezone: o.timezone,
        log: (line) => process.stderr.write(`${line}\n`),
      });
      process.stdout.write(`${formatImportReport(report, o.name).join('\n')}\n`);
      if (report.tasks.every((t) => t.outcome === 'skipped' || t.outcome === 'duplicate')) process.exitCode = 1;
    });
}
