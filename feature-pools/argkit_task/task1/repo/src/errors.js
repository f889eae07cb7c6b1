/**
 * Error thrown when the command line given by the user cannot be parsed:
 * an unknown option, a missing value or a malformed value.
 *
 * Mistakes in the spec itself are programming errors and are reported with a
 * plain `TypeError` instead, so that callers can print an `ArgError` to the
 * user and let everything else crash loudly.
 */
export class ArgError extends Error {
  /**
   * @param {string} message human readable description, shown to the user
   * @param {string} code one of the `ErrorCodes` values
   * @param {string} [option] the option concerned, as written in the spec or
   *   on the command line, without leading dashes
   */
  constructor(message, code, option) {
    super(message);
    this.name = 'ArgError';
    this.code = code;
    this.option = option;
  }
}

export const ErrorCodes = Object.freeze({
  UNKNOWN_OPTION: 'UNKNOWN_OPTION',
  MISSING_VALUE: 'MISSING_VALUE',
  INVALID_VALUE: 'INVALID_VALUE',
});
