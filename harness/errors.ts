import { JudgeInputError } from '../judges/errors.ts';
import { ReportInputError } from '../reports/errors.ts';
import { TaskInputError } from '../tasks/errors.ts';

/**
 * A problem the user can fix (bad input, missing engine, unknown model). The CLI prints its
 * message as one line and exits non-zero, without a stack trace.
 */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}

/** A failure every later task would meet too: the run stops where it can be resumed, saying what to fix. */
export class RunStopError extends UserError {
  constructor(
    message: string,
    /** What the user can do about it, e.g. `free space (or fix the device)`. */
    readonly remedy: string,
  ) {
    super(message);
  }
}

/** Errors the user fixes: the harness's own and each stage's (a stage defines its own, needing no harness). */
const USER_ERRORS = [UserError, TaskInputError, JudgeInputError, ReportInputError];

export const isUserError = (error: unknown): boolean => USER_ERRORS.some((kind) => error instanceof kind);

// Text helpers the stages use too, so they live in the resolver's bounded-text module.
export { boundText, errorMessage, quoted } from '../resolver/bounded-text.ts';
