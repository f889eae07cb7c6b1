// What a rate leaves out, and why. A rate counts finished tasks; a task that did not finish is
// excluded because of the infrastructure, the harness (a bug), its pool (a defect such as a gold
// patch that does not apply), an interruption, or because it has not run (yet). The agents' own
// failures are not exclusions: those tasks are scored, and counted here by how their agents ended.
import type { TaskOutcome } from '../run-data.ts';
import { isDone, isMainCoop, isMainSolo } from './conditions.ts';

export interface Exclusions {
  infrastructure: number;
  harness: number;
  pool: number;
  interrupted: number;
  notRun: number;
  total: number;
}

export function exclusionsOf(tasks: TaskOutcome[]): Exclusions {
  const e: Exclusions = { infrastructure: 0, harness: 0, pool: 0, interrupted: 0, notRun: 0, total: 0 };
  for (const t of tasks) {
    if (t.status === 'done') continue;
    e.total++;
    if (t.status === 'pending' || t.status === 'running') e.notRun++;
    else e[t.errorKind ?? (t.status === 'interrupted' ? 'interrupted' : 'harness')]++;
  }
  return e;
}

/** `3 excluded: 2 infrastructure, 1 not run`, or '' when nothing is. */
export function exclusionText(e: Exclusions): string {
  if (e.total === 0) return '';
  const parts = (
    [
      ['infrastructure', e.infrastructure],
      ['harness', e.harness],
      ['pool', e.pool],
      ['interrupted', e.interrupted],
      ['not run', e.notRun],
    ] as const
  ).filter(([, n]) => n > 0);
  return `${e.total} excluded: ${parts.map(([why, n]) => `${n} ${why}`).join(', ')}`;
}

/** Finished tasks in which an agent ended otherwise than by calling finish, by how (a task once per way). */
export function agentEndingsOf(tasks: TaskOutcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const t of tasks) {
    if (t.status !== 'done') continue;
    for (const ending of new Set(t.agentEndings.filter((e) => e !== 'finished'))) counts[ending] = (counts[ending] ?? 0) + 1;
  }
  return counts;
}

/** `2 step_limit, 1 model_rejected`, or ''. */
export function endingsText(counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([ending, n]) => `${n} ${ending}`)
    .join(', ');
}

/**
 * Pairs run in both main settings (Solo, and Coop with messaging) of which one task did not finish:
 * they are left out of the paired statistics (gap, difficulty curves, retention).
 */
export function unpairedCount(teamTasks: TaskOutcome[]): number {
  const solo = teamTasks.filter(isMainSolo);
  const coop = teamTasks.filter(isMainCoop);
  const both = new Set(solo.map((t) => t.pair).filter((pair) => coop.some((t) => t.pair === pair)));
  return new Set([...solo, ...coop].filter((t) => both.has(t.pair) && !isDone(t)).map((t) => t.pair)).size;
}
