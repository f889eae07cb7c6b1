// What a user sees of the test cache: which results it gave (a result reused is not a test that
// ran, and a run timed or re-checked must say so), in progress lines and in summaries.
import type { FeatureEvaluation } from './types.ts';
import type { CacheCount } from '../store/test-cache.ts';

/** `f1 pass (cached), f2 fail`. */
export function testVerdicts(evaluations: Pick<FeatureEvaluation, 'feature' | 'passed' | 'cached'>[]): string {
  return evaluations.map((e) => `f${e.feature} ${e.passed ? 'pass' : 'fail'}${e.cached ? ' (cached)' : ''}`).join(', ');
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
