// The process measures (process.ts) per team and condition, over a run's finished Coop tasks.
import type { TaskOutcome } from '../run-data.ts';
import { compareConditions, conditionOf, groupBy, isDone } from './conditions.ts';
import { summarizeProcess, type ProcessSummary } from './process.ts';

export interface ProcessRow extends ProcessSummary {
  team: string;
  condition: string;
}

/** Per team and condition: the measures of its finished Coop tasks that have them. */
export function processRows(tasks: TaskOutcome[]): ProcessRow[] {
  const measured = tasks.filter((t) => isDone(t) && t.setting === 'coop' && t.process);
  const groups = groupBy(measured, (t) => `${t.team}\u0000${conditionOf(t)}`);
  return [...groups]
    .map(([key, group]) => {
      const [team, condition] = key.split('\u0000') as [string, string];
      return { team, condition, ...summarizeProcess(group.map((t) => t.process!)) };
    })
    .sort((a, b) => a.team.localeCompare(b.team) || compareConditions(a.condition, b.condition));
}
