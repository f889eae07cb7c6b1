// How agents worked in Coop, per team and condition (analysis/process.ts; docs/metrics.md).
import type { RunSummary } from '../../summary.ts';
import type { Proportion } from '../../stats.ts';
import { pct } from '../format.ts';
import { figure, note, num, section, table } from '../markup.ts';
import { PALETTE, intervalBars, legend, type Series } from '../svg.ts';

const rateCell = (p: Proportion | null) => (p ? `${pct(p.p)} (${p.k}/${p.n})` : '–');
const numberCell = (x: number | null, unit = '') => (x === null ? '–' : `${Math.round(x * 10) / 10}${unit}`);

const SERIES: Series[] = [
  { name: 'edits kept', color: PALETTE[0]! },
  { name: 'messages answered', color: PALETTE[2]! },
  { name: 'tasks that collided', color: PALETTE[4]! },
];

export function processSection(s: RunSummary): string {
  const rows = s.process;
  if (rows.length === 0) return section('process', 'How agents worked', [note('No finished Coop tasks to measure.')]);
  const label = (r: (typeof rows)[number]) => `${r.team}, ${r.condition}`;
  return section('process', 'How agents worked', [
    note(
      'Per model and condition, over finished Coop tasks: the share of edits that survive into their agent\u2019s final patch, the tool calls made before the first message and the first edit, who wrote first, the share of messages answered and how fast, and how many tasks saw both agents edit one same file (and how soon). Definitions: docs/metrics.md.',
    ),
    legend(SERIES),
    figure(
      intervalBars(
        'process',
        'Edits kept, messages answered and tasks that collided, by model and condition',
        rows.map((r) => ({ label: label(r), values: [r.survivingEdits, r.answered, r.collided] })),
        SERIES,
      ),
      'Process measures with 95% Wilson intervals.',
    ),
    table(
      [
        'model',
        'condition',
        num('tasks'),
        num('edits kept'),
        num('calls before 1st message'),
        num('calls before 1st edit'),
        'first message by',
        num('messages answered'),
        num('median reply delay'),
        num('tasks that collided'),
        num('median time to collision'),
      ],
      rows.map((r) => [
        r.team,
        r.condition,
        r.tasks,
        rateCell(r.survivingEdits),
        numberCell(r.medianStepsBeforeFirstMessage),
        numberCell(r.medianStepsBeforeFirstEdit),
        Object.entries(r.firstMessageBy)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([agent, n]) => `${agent}: ${n}`)
          .join(', ') || '–',
        rateCell(r.answered),
        numberCell(r.medianReplySeconds, ' s'),
        rateCell(r.collided),
        numberCell(r.medianFirstCollisionSeconds, ' s'),
      ]),
      { className: 'process' },
    ),
  ]);
}
