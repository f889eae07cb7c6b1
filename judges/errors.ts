/**
 * A problem with the judges' input or output the user fixes (an unwritable --runs-dir). The CLI
 * prints its message as one line and exits non-zero, without a stack trace.
 */
export class JudgeInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JudgeInputError';
  }
}
