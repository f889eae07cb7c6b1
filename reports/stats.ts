// The paper's statistics (section 4, appendix C), as pure functions: Wilson intervals, relative
// difficulty, difficulty buckets, trapezoid AUC and retention, pooled by summing counts.
// Buckets are computed from the integer counts behind each difficulty, never from floating-point
// values: 1 − 4/5 is 0.19999999999999996 in floating point, which a float bucket edge at 0.2 would
// put in the wrong bucket.

/** z for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

/** Algorithm 1 splits the rescaled difficulty range [0, 1] into this many equal buckets. */
export const BUCKETS = 10;

/** A success rate with its 95% Wilson interval. */
export interface Proportion {
  k: number;
  n: number;
  p: number;
  low: number;
  high: number;
}

/** A difference of two rates with its 95% interval. */
export interface Difference {
  diff: number;
  low: number;
  high: number;
}

/** Wilson score interval: well calibrated near 0 and 1, where the normal approximation is not. */
export function wilson(k: number, n: number, z = Z95): { low: number; high: number } {
  if (n <= 0 || k < 0 || k > n) throw new RangeError(`wilson needs 0 <= k <= n and n > 0 (got k=${k}, n=${n})`);
  const p = k / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}

export function proportion(k: number, n: number): Proportion {
  return { k, n, p: k / n, ...wilson(k, n) };
}

/**
 * a.p − b.p with Newcombe's hybrid score interval (method 10), built from the two Wilson intervals.
 * It treats the samples as independent, which is conservative for paired settings.
 */
export function difference(a: Proportion, b: Proportion): Difference {
  const diff = a.p - b.p;
  return {
    diff,
    low: diff - Math.sqrt((a.p - a.low) ** 2 + (b.high - b.p) ** 2),
    high: diff + Math.sqrt((a.high - a.p) ** 2 + (b.p - b.low) ** 2),
  };
}

/** A difficulty as the counts it is made of: `failures` of `runs` Solo results failed. */
export interface DifficultyCounts {
  failures: number;
  runs: number;
}

/** d(t) = 1 − mean over models of Solo success on t, as the counts behind it. */
export function difficultyCounts(soloSuccesses: boolean[]): DifficultyCounts {
  if (soloSuccesses.length === 0) throw new RangeError('difficulty needs at least one Solo result');
  return { failures: soloSuccesses.filter((s) => !s).length, runs: soloSuccesses.length };
}

/** d(t) as a number, for display. */
export function rawDifficulty(soloSuccesses: boolean[]): number {
  const { failures, runs } = difficultyCounts(soloSuccesses);
  return failures / runs;
}

/**
 * Linear rescale to [0, 1] by the minimum and maximum over the benchmark, for display. When every
 * task has the same difficulty the range is empty: the raw values (already in [0, 1]) are kept.
 */
export function rescale(values: number[]): number[] {
  const min = Math.min(...values);
  const max = Math.max(...values);
  if (!(max > min)) return [...values];
  return values.map((v) => (v - min) / (max - min));
}

/**
 * The bucket of each difficulty after the rescale to [0, 1] (Algorithm 1, lines 1-2: 10 equal
 * buckets; 1.0 falls in the last), in exact integer arithmetic: with d = a/b, min = p/q and
 * max = r/s, the rescaled value is (aq − pb)·s / (b·(rq − ps)) and its bucket the floor of 10 times
 * that. When every difficulty is the same, the raw value decides (as `rescale` keeps it).
 */
export function difficultyBuckets(difficulties: DifficultyCounts[]): number[] {
  if (difficulties.length === 0) return [];
  const less = (x: DifficultyCounts, y: DifficultyCounts) => BigInt(x.failures) * BigInt(y.runs) < BigInt(y.failures) * BigInt(x.runs);
  const min = difficulties.reduce((m, d) => (less(d, m) ? d : m));
  const max = difficulties.reduce((m, d) => (less(m, d) ? d : m));
  const cap = (bucket: bigint) => Math.min(BUCKETS - 1, Number(bucket));
  if (!less(min, max)) return difficulties.map((d) => cap((BigInt(BUCKETS) * BigInt(d.failures)) / BigInt(d.runs)));
  const [p, q, r, s] = [min.failures, min.runs, max.failures, max.runs].map(BigInt) as [bigint, bigint, bigint, bigint];
  return difficulties.map(({ failures, runs }) => {
    const [a, b] = [BigInt(failures), BigInt(runs)];
    return cap((BigInt(BUCKETS) * (a * q - p * b) * s) / (b * (r * q - p * s)));
  });
}

export function bucketMidpoint(bucket: number): number {
  return (bucket + 0.5) / BUCKETS;
}

/** Counts of one bucket: n tasks, each run in Solo and in Coop. */
export interface BucketCounts {
  n: number;
  kSolo: number;
  kCoop: number;
}

export function emptyBuckets(): BucketCounts[] {
  return Array.from({ length: BUCKETS }, () => ({ n: 0, kSolo: 0, kCoop: 0 }));
}

export interface CurvePoint {
  bucket: number;
  /** The bucket's midpoint. */
  x: number;
  solo: Proportion;
  coop: Proportion;
}

/** Success per non-empty bucket, at the bucket midpoints (Algorithm 1, lines 4–8). */
export function curvePoints(buckets: BucketCounts[]): CurvePoint[] {
  return buckets.flatMap((b, bucket) =>
    b.n === 0 ? [] : [{ bucket, x: bucketMidpoint(bucket), solo: proportion(b.kSolo, b.n), coop: proportion(b.kCoop, b.n) }],
  );
}

/**
 * Algorithm 1, line 9: "Compute AUC_Solo and AUC_Coop via trapezoidal integration", plainly: the
 * trapezoids between the points at consecutive non-empty bucket midpoints, not divided by anything
 * and not extended past the first and last point (so the curve's x range is at most [0.05, 0.95],
 * and a flat curve at r has AUC 0.9·r when every bucket is filled). A single point has no area.
 * Solo and Coop curves of one model share their points' x, so the retention compares like with like.
 */
export function trapezoidAuc(points: { x: number; y: number }[]): number {
  if (points.length === 0) throw new RangeError('AUC of an empty curve');
  let area = 0;
  for (let i = 1; i < points.length; i++) area += ((points[i].x - points[i - 1].x) * (points[i].y + points[i - 1].y)) / 2;
  return area;
}

/** retention = AUC_coop / AUC_solo: the share of Solo performance that survives coordination. */
export function retention(aucSolo: number, aucCoop: number): number | null {
  return aucSolo > 0 ? aucCoop / aucSolo : null;
}

/** One row of table 5. */
export interface RetentionSummary {
  n: number;
  kSolo: number;
  kCoop: number;
  aucSolo: number;
  aucCoop: number;
  /** AUC_solo − AUC_coop. */
  deltaAuc: number;
  retention: number | null;
}

/** Table 5's row for one model (or the pool) from its bucket counts; null without tasks. */
export function summarizeCurve(buckets: BucketCounts[]): RetentionSummary | null {
  const points = curvePoints(buckets);
  if (points.length === 0) return null;
  const aucSolo = trapezoidAuc(points.map((pt) => ({ x: pt.x, y: pt.solo.p })));
  const aucCoop = trapezoidAuc(points.map((pt) => ({ x: pt.x, y: pt.coop.p })));
  const sum = (f: (b: BucketCounts) => number) => buckets.reduce((s, b) => s + f(b), 0);
  return {
    n: sum((b) => b.n),
    kSolo: sum((b) => b.kSolo),
    kCoop: sum((b) => b.kCoop),
    aucSolo,
    aucCoop,
    deltaAuc: aucSolo - aucCoop,
    retention: retention(aucSolo, aucCoop),
  };
}

/** Pooled counts: summed across models bucket by bucket, not averaged rates (appendix C). */
export function poolBuckets(perModel: BucketCounts[][]): BucketCounts[] {
  const pooled = emptyBuckets();
  for (const buckets of perModel) {
    buckets.forEach((b, i) => {
      pooled[i].n += b.n;
      pooled[i].kSolo += b.kSolo;
      pooled[i].kCoop += b.kCoop;
    });
  }
  return pooled;
}
