// Why a task did not finish. Only failures that say nothing about the agents end a task without a
// score: the infrastructure (a Docker engine error, a container stopped from outside, a pool that
// cannot build, a model API that could not be reached or kept failing after its retries). The
// agents' own failures (the model's 4xx, a conversation over the window, a limit) end the agent,
// and the task is scored with the patch it has. Anything else is the harness's bug: also excluded
// from the rates, and counted and shown as such. A defect of the task's pool (a gold patch that does
// not apply) is the pool's: left out of the rates too, and shown with a line asking to fix the pool.
import { CONFIGURATION_KINDS, FirstRequestRefused, INFRASTRUCTURE_KINDS, ModelError, type ModelErrorKind } from '../models/index.ts';
import { RunStopError, isUserError } from '../errors.ts';
import type { TaskErrorKind } from '../store/run-store.ts';
import { PoolDefectError } from '../agents/types.ts';

/** `isSandboxError`: the sandbox backend's own test (SandboxBackend.isInfrastructureError). */
export function taskErrorKind(error: unknown, isSandboxError: (error: unknown) => boolean): Exclude<TaskErrorKind, 'interrupted'> {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof PoolDefectError) return 'pool';
    if (cause instanceof ModelError && INFRASTRUCTURE_KINDS.includes(cause.kind)) return 'infrastructure';
    if (isSandboxError(cause) || isUserError(cause)) return 'infrastructure';
  }
  return 'harness';
}

/** What to do about each configuration failure. */
const REMEDIES: Partial<Record<ModelErrorKind, string>> = {
  first_request_refused:
    'the model refuses what the harness (or the CLI agent) sends before any answer: check the model and the agent configuration (harness/models/README.md); if they are right, it is a harness bug to report',
};

/**
 * A model call refused for the key or the model itself (401/403, 404), or an agent's first request
 * refused by a model that has answered nothing in the run (`answered`: the models that have, under
 * this agent configuration): every task using that model would fail the same way, so the run stops
 * on the first, its finished tasks kept. A first request refused by a model that has taken others is
 * this task's prompt (a provider's content filter): the task ends as an infrastructure error, not
 * scored, and the run goes on, so that a resume does not stop on it again.
 */
export function modelConfigurationFailure(error: unknown, answered: ReadonlySet<string>): RunStopError | undefined {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof FirstRequestRefused && answered.has(cause.model)) return undefined;
    if (cause instanceof ModelError && CONFIGURATION_KINDS.includes(cause.kind)) {
      return new RunStopError(cause.message, REMEDIES[cause.kind] ?? 'fix the key or the model name');
    }
  }
  return undefined;
}
