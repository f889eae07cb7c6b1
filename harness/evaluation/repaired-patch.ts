// The repaired-patch attempt: the task's merge and tests again with the agents' patches that an
// imported run recorded cut by the reference adapters' .strip(), repaired
// (harness/import/stripped-patch.ts). Stored beside the cascade's attempts, never as the result:
// it measures how many of a run's failures the stripping caused.
import { performance } from 'node:perf_hooks';
import { REPAIRED_PATCH_ATTEMPT, type MergeAttempt } from '../../resolver/index.ts';
import type { FeatureEvaluation } from '../run/types.ts';
import { evaluatePatches, type EvaluationInput } from './evaluate.ts';

/** The final newline .strip() took from every patch: `git apply` calls a patch without it corrupt too. */
const withFinalNewline = (patch: string) => (patch === '' || patch.endsWith('\n') ? patch : `${patch}\n`);

/** `repaired`: per agent index, its repaired patch; the other agents' patches get their final newline back. */
export async function evaluateRepaired(input: EvaluationInput, repaired: Map<number, string>): Promise<MergeAttempt<FeatureEvaluation[]>> {
  const started = performance.now();
  const result = await evaluatePatches({
    ...input,
    patches: input.patches.map((patch, i) => repaired.get(i) ?? withFinalNewline(patch)),
    // One merge's outcome is the measurement: the order probe would only add a test run.
    merge: { ...input.merge, orderProbe: false },
    previousMergedPatch: undefined,
  });
  const final = result.attempts.find((a) => a.final);
  const details = { agents: [...repaired.keys()].map((i) => i + 1), merge: result.merge.status, stage: final?.stage ?? null };
  const durationMs = performance.now() - started;
  if (!final)
    return {
      stage: REPAIRED_PATCH_ATTEMPT,
      outcome: result.merge.status === 'conflict' ? 'conflict' : 'error',
      reason: `merge ${result.merge.status}: ${result.merge.reason ?? 'no merged code to test'}`,
      final: false,
      details,
      durationMs,
    };
  return {
    stage: REPAIRED_PATCH_ATTEMPT,
    outcome: 'merged',
    patchHash: final.patchHash,
    tested: { passed: result.bothPassed, verdict: result.evaluations },
    final: false,
    details,
    durationMs,
  };
}
