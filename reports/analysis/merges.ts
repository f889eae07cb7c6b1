// Table 6 (merge success after each stage of the merge cascade, with and without messaging),
// figure 5 (a) success and (b) naive-merge conflict rate, with and without messaging, and how many
// union outcomes the union's (arbitrary) order decided.
import type { TaskOutcome } from '../run-data.ts';
import { MERGE_STAGES, orderEffect, passesAfterStructural } from '../../resolver/index.ts';
import { difference, proportion, type Difference, type Proportion } from '../stats.ts';
import { countWhere, groupBy, isDone } from './conditions.ts';

/** The communication-off ablation's variant name. */
export const NO_MESSAGING = 'no-messaging';

/** The cascade's merge stages (not its probes), in order: the columns of table 6. */
export const MERGE_COLUMNS = MERGE_STAGES.filter((s) => s.kind === 'merge').map(({ name, label, status }) => ({ name, label, status }));

export interface MergeColumns {
  tasks: number;
  /** Per merge stage, cumulative: tasks whose tests pass on code from this stage or an earlier one. */
  passedBy: { stage: string; label: string; rate: Proportion }[];
  /** Naive merge conflicted, among tasks whose patches all applied; null when none did. */
  conflictRate: Proportion | null;
  /** Union-merged tasks: with both orders tested (`measured`), those whose outcome the order changed (`decided`), and those whose other order was not built. */
  order: { measured: number; decided: number; unmeasured: number };
  /**
   * The structural probe: tasks whose tests pass on the naive merge's code or, where it conflicted,
   * the structural merge's, among tasks where that was measured (null: none); `unmeasured` were not.
   */
  structural: { rate: Proportion | null; unmeasured: number };
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

/** Final success: tests pass on the code of the last merge stage's column (every stage counted). */
export const finalSuccess = (c: MergeColumns): Proportion => c.passedBy[c.passedBy.length - 1]!.rate;

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
    successEffect: on && off ? difference(finalSuccess(on), finalSuccess(off)) : null,
    conflictEffect: on?.conflictRate && off?.conflictRate ? difference(on.conflictRate, off.conflictRate) : null,
  };
}

function mergeColumns(tasks: TaskOutcome[]): MergeColumns {
  const n = tasks.length;
  const statuses: string[] = [];
  const passedBy = MERGE_COLUMNS.map(({ name, label, status }) => {
    statuses.push(status);
    return {
      stage: name,
      label,
      rate: proportion(
        countWhere(tasks, (t) => t.passed === true && statuses.includes(t.mergeStatus ?? '')),
        n,
      ),
    };
  });
  const merged = tasks.filter((t) => t.mergeStatus !== null && t.mergeStatus !== 'missing_input');
  const effects = tasks.map((t) => orderEffect(t.mergeAttempts));
  const structural = tasks.map((t) => passesAfterStructural(t.mergeAttempts));
  const measured = structural.filter((s) => typeof s === 'boolean');
  return {
    tasks: n,
    passedBy,
    conflictRate:
      merged.length > 0
        ? proportion(
            countWhere(merged, (t) => t.naiveClean === false),
            merged.length,
          )
        : null,
    order: {
      measured: countWhere(effects, (e) => e === 'decided' || e === 'same'),
      decided: countWhere(effects, (e) => e === 'decided'),
      unmeasured: countWhere(effects, (e) => e === 'unmeasured'),
    },
    structural: {
      rate:
        measured.length > 0
          ? proportion(
              countWhere(measured, (s) => s === true),
              measured.length,
            )
          : null,
      unmeasured: countWhere(structural, (s) => s === 'unmeasured'),
    },
  };
}
