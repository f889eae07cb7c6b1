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

/** Keeps the first and last `max / 2` characters: logs and stored outputs stay bounded. */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  const dropped = text.length - 2 * half;
  return `${text.slice(0, half)}\n[... ${dropped} characters omitted ...]\n${text.slice(-half)}`;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
