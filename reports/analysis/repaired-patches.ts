// How many of a run's failures pass with the agents' patches that the reference adapters' .strip()
// cut, repaired: the repaired-patch attempts `coop-bench eval` adds to an imported run.
import type { TaskOutcome } from '../run-data.ts';
import { REPAIRED_PATCH_ATTEMPT } from '../../resolver/index.ts';

export interface RepairedPatchCount {
  /** Finished tasks whose tests fail (both features do not pass). */
  failures: number;
  /** Failures with a repaired-patch attempt, and those whose tests pass in it. */
  tried: number;
  passed: number;
}

export function repairedPatchCount(tasks: Pick<TaskOutcome, 'status' | 'passed' | 'mergeAttempts'>[]): RepairedPatchCount {
  const failures = tasks.filter((t) => t.status === 'done' && t.passed !== true);
  const attempts = failures.flatMap((t) => t.mergeAttempts.filter((a) => a.stage === REPAIRED_PATCH_ATTEMPT));
  return { failures: failures.length, tried: attempts.length, passed: attempts.filter((a) => a.passed === true).length };
}

/** The sentence summaries and reports show; undefined when no failure has a repaired-patch attempt. */
export function repairedPatchSentence(c: RepairedPatchCount): string | undefined {
  if (c.tried === 0) return undefined;
  return (
    `${c.passed} of ${c.failures} failures of this run pass with the stripped patches repaired ` +
    `(${c.tried} of them had a patch cut by the reference adapters' .strip(); the pass rates count the patches as recorded)`
  );
}
