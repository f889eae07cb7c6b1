// What agents believed about their partners' work (belief probes, analysis/probes.ts;
// docs/metrics.md): accuracy per probed model, condition and step, and a plot of it over steps.
import type { RunSummary } from '../../summary.ts';
import type { ProbeRow } from '../../analysis/probe-rows.ts';
import { pct } from '../format.ts';
import { figure, note, num, section, table } from '../markup.ts';
import { PALETTE, legend, lineChart, type LineSeries } from '../svg.ts';

const score = (x: number | null) => (x === null ? '–' : x.toFixed(2));

export function probesSection(s: RunSummary): string {
  const rows = s.probes;
  const title = 'What agents believed about their partners';
  if (rows.length === 0) return section('probes', title, [note('No belief probes in this run (coop-bench run --probe every=K asks them).')]);
  const lineOf = (r: ProbeRow) => `${r.model}, ${r.condition}`;
  const names = [...new Set(rows.map(lineOf))];
  const lines: LineSeries[] = names.map((name, i) => ({
    series: { name, color: PALETTE[i % PALETTE.length]! },
    points: rows
      .filter((r) => lineOf(r) === name && r.filesNow !== null)
      .map((r) => ({
        x: r.step,
        y: r.filesNow!,
        tip: `${name}, step ${r.step}: files named vs touched then, mean Jaccard ${score(r.filesNow)} over ${r.probes} probe(s)`,
      })),
  }));
  return section('probes', title, [
    note(
      'Every K steps each model agent of a Coop task was asked, outside its conversation, which files and functions its partners were changing, whether their changes would conflict, and how sure it was. Scores are mean Jaccard indices of what it named against what the partners’ patches touched at that moment (“then”) and at the end (“final”); the conflict prediction is checked against git’s plain merge of the final patches. Agent CLIs and the oracle are not probed. Definitions: docs/metrics.md.',
    ),
    legend(lines.map((l) => l.series)),
    figure(
      lineChart('probes', 'Files named vs touched then (mean Jaccard)', 'steps taken', lines),
      'Belief accuracy over the agents’ steps, per model and condition.',
    ),
    table(
      [
        'model',
        'condition',
        num('step'),
        num('probes'),
        num('unparsable'),
        num('failed'),
        num('files then'),
        num('functions then'),
        num('files final'),
        num('functions final'),
        num('conflict right'),
        num('confidence'),
        num('cost'),
      ],
      rows.map((r) => [
        r.model,
        r.condition,
        r.step,
        r.probes,
        r.unparsable,
        r.failed,
        score(r.filesNow),
        score(r.functionsNow),
        score(r.filesFinal),
        score(r.functionsFinal),
        r.conflictRight ? `${pct(r.conflictRight.p)} (${r.conflictRight.k}/${r.conflictRight.n})` : '–',
        score(r.meanConfidence),
        `$${r.costUsd.toFixed(4)}`,
      ]),
      { className: 'probes' },
    ),
  ]);
}
