/**
 * A problem with the pools or the task selection that the user fixes (a pool folder, a subset file,
 * a flag). The CLI prints its message as one line and exits non-zero, without a stack trace.
 */
export class TaskInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TaskInputError';
  }
}
