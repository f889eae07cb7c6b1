// A stage of the merge cascade: a function that tries to produce the code to test, and the gate
// that decides whether its tested code is the task's result. The cascade (../cascade.ts) runs the
// registered stages (./index.ts) in order.
import type { MergeSession } from '../session.ts';
import type { MergeResult, ResolverModel } from '../types.ts';

/** merged: the stage produced code. conflict: it could not. skipped: it had nothing to work with. rejected/error: the LLM stage's answers failed the checks, or its backend failed. */
export type AttemptOutcome = 'merged' | 'conflict' | 'skipped' | 'rejected' | 'error';

export const ATTEMPT_OUTCOMES: readonly AttemptOutcome[] = ['merged', 'conflict', 'skipped', 'rejected', 'error'];

/**
 * An attempt outside the cascade: the task's merge and tests again with the agents' patches that an
 * imported run recorded cut by the reference adapters' .strip(), repaired. Never the task's result.
 */
export const REPAIRED_PATCH_ATTEMPT = 'repaired-patch';

/** What a stage returns. */
export interface StageOutput {
  outcome: AttemptOutcome;
  /** The merge (outcome merged: the code to test; conflict: what conflicted). */
  result?: MergeResult;
  /** Why the stage did not produce code, for people. */
  reason?: string;
  /** Stage-specific facts, stored as JSON (e.g. the LLM stage's regions and model). */
  details?: Record<string, unknown>;
}

/** One stage's attempt, as stored: the output, the tests' verdict on its code, and whether it is the result. */
export interface MergeAttempt<V = unknown> extends StageOutput {
  stage: string;
  /** sha256 of the merged patch (outcome merged). */
  patchHash?: string;
  /** The tests on the merged code, when the cascade was given tests. */
  tested?: { passed: boolean; verdict: V };
  /** This attempt's code is the task's result. */
  final: boolean;
  durationMs: number;
}

export interface CascadeSettings {
  /** The stages whose code can be the result, in order (default: the merge stages, DEFAULT_CASCADE). */
  cascade?: readonly string[];
  /** The LLM stage's model; undefined: the stage is skipped and says so. */
  model?: ResolverModel;
  /** More conflict regions than this are not sent to the model (default 50). */
  maxRegions?: number;
}

export interface StageInput {
  session: MergeSession;
  /** Earlier attempts of this cascade, tested. */
  attempts: readonly MergeAttempt[];
  settings: CascadeSettings;
}

export interface MergeStage {
  /** Stored with every attempt: never rename a shipped stage. */
  name: string;
  /** Column heading in reports. */
  label: string;
  /** merge: its code can be the task's result. probe: a measurement that never changes the result. */
  kind: 'merge' | 'probe';
  /** A probe a user may put into the cascade (`--merge-cascade`), where it acts as a merge stage. */
  cascadable?: boolean;
  /** The merge status when this stage's code is the result (`clean` for the naive merge). */
  status: string;
  /** Whether the stage runs after these attempts (merge stages never run after an accepted one). */
  runsAfter(attempts: readonly MergeAttempt[]): boolean;
  run(input: StageInput): Promise<StageOutput>;
  /** The acceptance gate: this tested attempt's code is the result, and no later merge stage runs. */
  accepts?(attempt: MergeAttempt): boolean;
}

/** The attempt of a stage, if it ran. */
export const attemptOf = <A extends { stage: string }>(attempts: readonly A[], stage: string): A | undefined => attempts.find((a) => a.stage === stage);

/** A fold's merge as a stage output. */
export function foldOutput(result: MergeResult): StageOutput {
  return result.status === 'conflict' ? { outcome: 'conflict', result, reason: result.reason } : { outcome: 'merged', result };
}
