// Appendix C, Algorithm 1: tasks stratified by relative difficulty, Solo and Coop success curves
// per model and pooled, their AUCs and the retention (table 5, figure 7, figure 4 right).
import type { TaskOutcome } from '../run-data.ts';
import {
  bucketOf,
  curvePoints,
  emptyBuckets,
  poolBuckets,
  rawDifficulty,
  rescale,
  summarizeCurve,
  type BucketCounts,
  type CurvePoint,
  type RetentionSummary,
} from '../stats.ts';
import { isDone, isMainCoop, isMainSolo, pairedOutcomes } from './conditions.ts';

export interface TeamCurve {
  team: string;
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
  const raw = pairs.map((p) => rawDifficulty(soloByPair.get(p)!));
  const scaled = rescale(raw);
  const difficulty = Object.fromEntries(pairs.map((p, i) => [p, scaled[i]]));
  const coopPairs = new Set(tasks.filter((t) => isDone(t) && isMainCoop(t)).map((t) => t.pair));

  const teams: TeamCurve[] = [];
  for (const [team, outcomes] of pairedOutcomes(tasks)) {
    const buckets = emptyBuckets();
    for (const [pair, o] of outcomes) {
      const b = buckets[bucketOf(difficulty[pair])];
      b.n++;
      if (o.solo) b.kSolo++;
      if (o.coop) b.kCoop++;
    }
    teams.push(curveOf(team, buckets));
  }
  return {
    difficulty,
    rawRange: raw.length > 0 ? { min: Math.min(...raw), max: Math.max(...raw) } : null,
    unratedCoopPairs: [...coopPairs].filter((p) => !soloByPair.has(p)).length,
    teams,
    pooled: teams.length > 0 ? curveOf('pooled', poolBuckets(teams.map((t) => t.buckets))) : null,
  };
}

function curveOf(team: string, buckets: BucketCounts[]): TeamCurve {
  return { team, buckets, points: curvePoints(buckets), summary: summarizeCurve(buckets)! };
}
