// Table 6 (merge success after naive, union and LLM merging, with and without messaging) and
// figure 5 (a) success and (b) naive-merge conflict rate, with and without messaging.
import type { TaskOutcome } from '../run-data.ts';
import { difference, proportion, type Difference, type Proportion } from '../stats.ts';
import { countWhere, groupBy, isDone } from './conditions.ts';

/** The communication-off ablation's variant name. */
export const NO_MESSAGING = 'no-messaging';

export interface MergeColumns {
  tasks: number;
  /** Cumulative: tested code produced by the naive merge (and passing), then also union, then also LLM. */
  naive: Proportion;
  union: Proportion;
  llm: Proportion;
  /** Naive merge conflicted, among tasks whose patches both applied; null when none did. */
  conflictRate: Proportion | null;
}

export interface MergeRow {
  /** A team, or `all models` (counts summed). */
  team: string;
  /** Per Coop variant ('' is with messaging). */
  byVariant: Record<string, MergeColumns>;
  /** With messaging minus without, on final success and on conflict rate (figure 5 a, b). */
  successEffect: Difference | null;
  conflictEffect: Difference | null;
}

export interface MergeAnalysis {
  /** Coop variants present, `no-messaging` first then '' (table 6's order), then others. */
  variants: string[];
  rows: MergeRow[];
}

export const ALL_MODELS = 'all models';

export function mergeAnalysis(tasks: TaskOutcome[]): MergeAnalysis {
  const coop = tasks.filter((t) => t.setting === 'coop' && isDone(t));
  const rank = (v: string) => (v === NO_MESSAGING ? 0 : v === '' ? 1 : 2);
  const variants = [...new Set(coop.map((t) => t.variant))].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const groups = [...groupBy(coop, (t) => t.team)];
  if (groups.length > 1) groups.push([ALL_MODELS, coop]);
  return { variants, rows: groups.map(([team, list]) => mergeRow(team, list)) };
}

function mergeRow(team: string, tasks: TaskOutcome[]): MergeRow {
  const byVariant: Record<string, MergeColumns> = {};
  for (const [variant, list] of groupBy(tasks, (t) => t.variant)) byVariant[variant] = mergeColumns(list);
  const on = byVariant[''];
  const off = byVariant[NO_MESSAGING];
  return {
    team,
    byVariant,
    successEffect: on && off ? difference(on.llm, off.llm) : null,
    conflictEffect: on?.conflictRate && off?.conflictRate ? difference(on.conflictRate, off.conflictRate) : null,
  };
}

function mergeColumns(tasks: TaskOutcome[]): MergeColumns {
  const n = tasks.length;
  const passedWith = (statuses: string[]) => proportion(countWhere(tasks, (t) => t.passed === true && statuses.includes(t.mergeStatus ?? '')), n);
  const merged = tasks.filter((t) => t.mergeStatus !== null && t.mergeStatus !== 'missing_input');
  return {
    tasks: n,
    naive: passedWith(['clean']),
    union: passedWith(['clean', 'union']),
    llm: passedWith(['clean', 'union', 'llm']),
    conflictRate: merged.length > 0 ? proportion(countWhere(merged, (t) => t.naiveClean === false), merged.length) : null,
  };
}
