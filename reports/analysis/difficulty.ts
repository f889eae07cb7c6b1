// Appendix C, Algorithm 1: tasks stratified by relative difficulty, Solo and Coop success curves
// per model and pooled, their AUCs and the retention (table 5, figure 7, figure 4 right).
import type { TaskOutcome } from '../run-data.ts';
import {
  curvePoints,
  difficultyBuckets,
  difficultyCounts,
  emptyBuckets,
  poolBuckets,
  rescale,
  summarizeCurve,
  type BucketCounts,
  type CurvePoint,
  type RetentionSummary,
} from '../stats.ts';
import { groupBy, isDone, isMainCoop, isMainSolo, pairedOutcomes } from './conditions.ts';
import { unpairedCount } from './exclusions.ts';

export interface TeamCurve {
  team: string;
  /** Pairs left out because their Solo or Coop task did not finish. */
  excludedPairs: number;
  buckets: BucketCounts[];
  points: CurvePoint[];
  summary: RetentionSummary;
}

export interface DifficultyAnalysis {
  /** Rescaled d(t) per pair, for pairs with at least one finished Solo result. */
  difficulty: Record<string, number>;
  /** Raw d(t) range over the benchmark (the rescaling's bounds). */
  rawRange: { min: number; max: number } | null;
  /** Pairs finished in Coop but never in Solo: their difficulty is unknown. */
  unratedCoopPairs: number;
  teams: TeamCurve[];
  /** All models, counts summed per bucket. */
  pooled: TeamCurve | null;
}

export function difficultyAnalysis(tasks: TaskOutcome[]): DifficultyAnalysis {
  const soloByPair = new Map<string, boolean[]>();
  for (const t of tasks) {
    if (!isDone(t) || !isMainSolo(t)) continue;
    soloByPair.set(t.pair, [...(soloByPair.get(t.pair) ?? []), t.passed === true]);
  }
  const pairs = [...soloByPair.keys()];
  const counts = pairs.map((p) => difficultyCounts(soloByPair.get(p)!));
  const raw = counts.map((c) => c.failures / c.runs);
  const scaled = rescale(raw);
  const difficulty = Object.fromEntries(pairs.map((p, i) => [p, scaled[i]]));
  const bucketOfPair = new Map(difficultyBuckets(counts).map((bucket, i) => [pairs[i], bucket]));
  const coopPairs = new Set(tasks.filter((t) => isDone(t) && isMainCoop(t)).map((t) => t.pair));

  const teams: TeamCurve[] = [];
  const byTeam = groupBy(tasks, (t) => t.team);
  for (const [team, outcomes] of pairedOutcomes(tasks)) {
    const buckets = emptyBuckets();
    for (const [pair, o] of outcomes) {
      const b = buckets[bucketOfPair.get(pair)!];
      b.n++;
      if (o.solo) b.kSolo++;
      if (o.coop) b.kCoop++;
    }
    teams.push(curveOf(team, buckets, unpairedCount(byTeam.get(team) ?? [])));
  }
  return {
    difficulty,
    rawRange: raw.length > 0 ? { min: Math.min(...raw), max: Math.max(...raw) } : null,
    unratedCoopPairs: [...coopPairs].filter((p) => !soloByPair.has(p)).length,
    teams,
    pooled:
      teams.length > 0
        ? curveOf(
            'pooled',
            poolBuckets(teams.map((t) => t.buckets)),
            teams.reduce((n, t) => n + t.excludedPairs, 0),
          )
        : null,
  };
}

function curveOf(team: string, buckets: BucketCounts[], excludedPairs: number): TeamCurve {
  return { team, excludedPairs, buckets, points: curvePoints(buckets), summary: summarizeCurve(buckets)! };
}
