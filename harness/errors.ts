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

/** Keeps the first and last `max / 2` characters: logs and stored outputs stay bounded. */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  const dropped = text.length - 2 * half;
  return `${text.slice(0, half)}\n[... ${dropped} characters omitted ...]\n${text.slice(-half)}`;
}

/**
 * Text from outside (a run name, a file name, a link's target) quoted for a one-line message: line
 * breaks, terminal escapes and bidirectional controls are shown escaped instead of acting.
 */
export function quoted(text: string): string {
  return JSON.stringify(text).replace(
    /[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
