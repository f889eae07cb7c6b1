// Text from agents, from git and from files ends up in reasons, messages and logs: keep it one
// line and short, and show what is untrusted quoted.

/** One line, no control characters, at most `max` characters (an ellipsis marks the cut). */
export function oneLine(text: string, max = 300): string {
  const flat = text
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** Keeps line breaks (for showing a model's answer), bounded to `max` characters. */
export function bounded(text: string, max = 2000): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
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
