// How tasks are grouped: by team (model) and condition (setting, ablation variant, number of features).
import type { TaskOutcome } from '../run-data.ts';

/** `Solo`, `Coop`, `Coop no-messaging`, `Coop git`, `Coop, 3 agents`, ... */
export function conditionOf(task: Pick<TaskOutcome, 'setting' | 'variant' | 'features'>): string {
  const base = task.setting === 'solo' ? 'Solo' : 'Coop';
  const variant = task.variant ? ` ${task.variant}` : '';
  const size = task.features.length === 2 ? '' : task.setting === 'solo' ? `, ${task.features.length} features` : `, ${task.features.length} agents`;
  return base + variant + size;
}

/** Solo first, then Coop, then the ablations. */
export function compareConditions(a: string, b: string): number {
  const rank = (c: string) => (c === 'Solo' ? 0 : c === 'Coop' ? 1 : 2);
  return rank(a) - rank(b) || a.localeCompare(b);
}

/** The paper's two main settings: Solo, and Coop with messaging (no ablation). */
export const isMainSolo = (t: TaskOutcome) => t.setting === 'solo' && t.variant === '';
export const isMainCoop = (t: TaskOutcome) => t.setting === 'coop' && t.variant === '';
export const isDone = (t: TaskOutcome) => t.status === 'done';

export { groupBy } from './group-by.ts';

export const countWhere = <T>(items: T[], predicate: (item: T) => boolean) => items.reduce((n, item) => n + (predicate(item) ? 1 : 0), 0);

/** Per team and pair: the main Solo and Coop outcomes, when both finished. */
export function pairedOutcomes(tasks: TaskOutcome[]): Map<string, Map<string, { solo: boolean; coop: boolean }>> {
  const byTeam = new Map<string, Map<string, { solo?: boolean; coop?: boolean }>>();
  for (const t of tasks) {
    if (!isDone(t) || !(isMainSolo(t) || isMainCoop(t))) continue;
    const pairs = byTeam.get(t.team) ?? new Map<string, { solo?: boolean; coop?: boolean }>();
    const entry = pairs.get(t.pair) ?? {};
    entry[t.setting] = t.passed === true;
    pairs.set(t.pair, entry);
    byTeam.set(t.team, pairs);
  }
  const paired = new Map<string, Map<string, { solo: boolean; coop: boolean }>>();
  for (const [team, pairs] of byTeam) {
    const complete = [...pairs].filter((e): e is [string, { solo: boolean; coop: boolean }] => e[1].solo !== undefined && e[1].coop !== undefined);
    if (complete.length > 0) paired.set(team, new Map(complete));
  }
  return paired;
}
