// Text from agents and from git ends up in reasons and logs: keep it one line and short.

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
