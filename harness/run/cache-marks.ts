// What a user sees of the test cache in progress lines: which results it gave (a result reused is
// not a test that ran). Summaries count them with reports/cache-count.ts.
import type { FeatureEvaluation } from './types.ts';

/** `f1 pass (cached), f2 fail`. */
export function testVerdicts(evaluations: Pick<FeatureEvaluation, 'feature' | 'passed' | 'cached'>[]): string {
  return evaluations.map((e) => `f${e.feature} ${e.passed ? 'pass' : 'fail'}${e.cached ? ' (cached)' : ''}`).join(', ');
}
