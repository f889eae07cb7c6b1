// Cost and tokens per model and condition, from the recorded model calls.
import type { TaskOutcome } from '../run-data.ts';
import { compareConditions, conditionOf, countWhere, groupBy, isDone } from './conditions.ts';

export interface CostRow {
  team: string;
  condition: string;
  tasks: number;
  passed: number;
  modelCalls: number;
  inputTokens: number;
  /** Of inputTokens: read from, and written to, the prompt cache. */
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  costUsd: number;
  steps: number;
}

/** Over finished tasks, whose usage is complete. */
export function costRows(tasks: TaskOutcome[]): CostRow[] {
  const done = tasks.filter(isDone);
  const rows = [...groupBy(done, (t) => `${t.team}\u0000${conditionOf(t)}`).values()].map((list): CostRow => {
    const sum = (f: (t: TaskOutcome) => number) => list.reduce((s, t) => s + f(t), 0);
    return {
      team: list[0].team,
      condition: conditionOf(list[0]),
      tasks: list.length,
      passed: countWhere(list, (t) => t.passed === true),
      modelCalls: sum((t) => t.modelCalls),
      inputTokens: sum((t) => t.inputTokens),
      cacheReadTokens: sum((t) => t.cacheReadTokens),
      cacheWriteTokens: sum((t) => t.cacheWriteTokens),
      outputTokens: sum((t) => t.outputTokens),
      costUsd: sum((t) => t.costUsd),
      steps: sum((t) => t.steps),
    };
  });
  return rows.sort((a, b) => a.team.localeCompare(b.team) || compareConditions(a.condition, b.condition));
}
