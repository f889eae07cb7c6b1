// What a user sees of the test cache in summaries: which results it gave (a result reused is not a
// test that ran, and a run timed or re-checked must say so).

/** A run's or a task's evaluations, as the store counts them. */
export interface CacheCount {
  /** Feature evaluations of finished tasks... */
  total: number;
  /** ...of which the test cache answered. */
  cached: number;
}

export function totalCount(counts: Iterable<CacheCount>): CacheCount {
  let total = 0;
  let cached = 0;
  for (const c of counts) {
    total += c.total;
    cached += c.cached;
  }
  return { total, cached };
}

/** The summary's line: `12 of 30 evaluations from the test cache ...`. */
export function cacheSummaryLine({ total, cached }: CacheCount): string {
  if (total === 0) return 'no evaluation stored yet';
  if (cached === 0) return `0 of ${total} evaluations from the test cache: every test ran`;
  return `${cached} of ${total} evaluations from the test cache (marked "cached": the same image, tests and code ran before; --no-cache runs them again)`;
}
