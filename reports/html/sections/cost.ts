// Cost and tokens per model and condition.
import type { RunSummary } from '../../summary.ts';
import { fixed, integer, usd } from '../format.ts';
import { note, num, section, table } from '../markup.ts';

export function costSection(s: RunSummary): string {
  if (s.cost.length === 0) return section('cost', 'Cost and tokens', [note('No finished tasks.')]);
  const anyCalls = s.cost.some((c) => c.modelCalls > 0);
  return section('cost', 'Cost and tokens', [
    anyCalls
      ? note(
          'Over finished tasks, from the recorded model calls of the agents. Input tokens include those read from the prompt cache (billed at a tenth of the input price by Anthropic) and written to it (1.25x, or 2x for 1-hour entries).',
        )
      : note('No model calls were recorded (oracle and noop agents call no model): tokens and cost are zero.'),
    table(
      [
        'model',
        'condition',
        num('tasks'),
        num('model calls'),
        num('input tokens'),
        num('of which cache reads'),
        num('of which cache writes'),
        num('output tokens'),
        num('cost'),
        num('cost per task'),
        num('cost per success'),
        num('steps per task'),
      ],
      s.cost.map((c) => [
        c.team,
        c.condition,
        c.tasks,
        integer(c.modelCalls),
        integer(c.inputTokens),
        integer(c.cacheReadTokens),
        integer(c.cacheWriteTokens),
        integer(c.outputTokens),
        usd(c.costUsd),
        usd(c.costUsd / c.tasks),
        c.passed > 0 ? usd(c.costUsd / c.passed) : '–',
        fixed(c.steps / c.tasks, 1),
      ]),
    ),
  ]);
}
