/**
 * A report that cannot be written as asked (an unwritable --out, a malformed --compare). The CLI
 * prints its message as one line and exits non-zero, without a stack trace.
 */
export class ReportInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReportInputError';
  }
}
