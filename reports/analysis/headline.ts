// Figure 4 (left): success per model and condition with Wilson intervals, and the coordination gap.
import type { TaskOutcome } from '../run-data.ts';
import { difference, proportion, type Difference, type Proportion } from '../stats.ts';
import { compareConditions, conditionOf, countWhere, groupBy, isDone, pairedOutcomes } from './conditions.ts';
import { agentEndingsOf, exclusionsOf, unpairedCount, type Exclusions } from './exclusions.ts';

export interface ConditionResult {
  condition: string;
  tasks: number;
  done: number;
  passed: number;
  /** Over finished tasks; null when none finished. */
  rate: Proportion | null;
  /** Tasks left out of the rate, and why. */
  excluded: Exclusions;
  /** Scored tasks in which an agent did not end by calling finish, by how. */
  agentEndings: Record<string, number>;
}

/** Solo minus Coop on the pairs both settings finished for this model. */
export interface CoordinationGap {
  pairs: number;
  solo: Proportion;
  coop: Proportion;
  gap: Difference;
  /** 1 − Coop/Solo: the share of Solo success lost; null when Solo never succeeds. */
  relativeLoss: number | null;
  /** Pairs of the model with a Solo or Coop task that did not finish: left out of the gap. */
  excludedPairs: number;
}

export interface TeamHeadline {
  team: string;
  results: ConditionResult[];
  gap: CoordinationGap | null;
}

export interface Headline {
  conditions: string[];
  teams: TeamHeadline[];
}

export function headline(tasks: TaskOutcome[]): Headline {
  const conditions = [...new Set(tasks.map(conditionOf))].sort(compareConditions);
  const paired = pairedOutcomes(tasks);
  const teams = [...groupBy(tasks, (t) => t.team)].map(([team, teamTasks]): TeamHeadline => {
    const byCondition = groupBy(teamTasks, conditionOf);
    const results = conditions.flatMap((condition) => {
      const list = byCondition.get(condition);
      if (!list) return [];
      const done = countWhere(list, isDone);
      const passed = countWhere(list, (t) => t.passed === true);
      return [
        {
          condition,
          tasks: list.length,
          done,
          passed,
          rate: done > 0 ? proportion(passed, done) : null,
          excluded: exclusionsOf(list),
          agentEndings: agentEndingsOf(list),
        },
      ];
    });
    return { team, results, gap: coordinationGap([...(paired.get(team)?.values() ?? [])], unpairedCount(teamTasks)) };
  });
  return { conditions, teams };
}

function coordinationGap(pairs: { solo: boolean; coop: boolean }[], excludedPairs: number): CoordinationGap | null {
  if (pairs.length === 0) return null;
  const solo = proportion(
    countWhere(pairs, (p) => p.solo),
    pairs.length,
  );
  const coop = proportion(
    countWhere(pairs, (p) => p.coop),
    pairs.length,
  );
  return { pairs: pairs.length, solo, coop, gap: difference(solo, coop), relativeLoss: solo.p > 0 ? 1 - coop.p / solo.p : null, excludedPairs };
}
