// The paper's statistics (section 4, appendix C), as pure functions: Wilson intervals, relative
// difficulty, difficulty buckets, trapezoid AUC and retention, pooled by summing counts.

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

/** d(t) = 1 − mean over models of Solo success on t. */
export function rawDifficulty(soloSuccesses: boolean[]): number {
  if (soloSuccesses.length === 0) throw new RangeError('difficulty needs at least one Solo result');
  return 1 - soloSuccesses.filter(Boolean).length / soloSuccesses.length;
}

/**
 * Linear rescale to [0, 1] by the minimum and maximum over the benchmark. When every task has the
 * same difficulty the range is empty: the raw values (already in [0, 1]) are kept.
 */
export function rescale(values: number[]): number[] {
  const min = Math.min(...values);
  const max = Math.max(...values);
  if (!(max > min)) return [...values];
  return values.map((v) => (v - min) / (max - min));
}

/** Equal-width bucket of a rescaled difficulty; 1.0 falls in the last bucket. */
export function bucketOf(difficulty: number): number {
  return Math.min(BUCKETS - 1, Math.max(0, Math.floor(difficulty * BUCKETS)));
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
 * Trapezoid area under the points, divided by the span they cover, so that the AUC is on the scale
 * of a success rate (a flat curve at r has AUC r) and a single point's AUC is its rate. Solo and
 * Coop curves of one model share their buckets, so the normalisation cancels in the retention.
 */
export function trapezoidAuc(points: { x: number; y: number }[]): number {
  if (points.length === 0) throw new RangeError('AUC of an empty curve');
  if (points.length === 1) return points[0].y;
  let area = 0;
  for (let i = 1; i < points.length; i++) area += ((points[i].x - points[i - 1].x) * (points[i].y + points[i - 1].y)) / 2;
  return area / (points[points.length - 1].x - points[0].x);
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
  return { n: sum((b) => b.n), kSolo: sum((b) => b.kSolo), kCoop: sum((b) => b.kCoop), aucSolo, aucCoop, deltaAuc: aucSolo - aucCoop, retention: retention(aucSolo, aucCoop) };
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
