// Text helpers shared by the detectors and the evidence check. Agents write everything these
// functions read, so nothing here interprets the text beyond splitting and matching it.

/** Runs of whitespace become one space; ends trimmed. Quotes are compared in this form. */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Prose only: fenced code blocks, inline code and quoted lines (`> ...`) are blanked out, so a
 * question mark or a promise inside pasted code or a quoted partner message is not the sender's.
 * Lengths are kept (blanked with spaces) so offsets still point into the original text.
 */
export function proseOf(text: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  return text.replace(/```[\s\S]*?(?:```|$)/g, blank).replace(/^[ \t]*>.*$/gm, blank);
}

/** Like proseOf, and inline code spans are blanked too. */
export function proseWithoutInlineCode(text: string): string {
  return proseOf(text).replace(/`[^`\n]*`/g, (s) => ' '.repeat(s.length));
}

export interface Sentence {
  text: string;
  /** Offset of the sentence in the text it was split from. */
  start: number;
}

/** Sentences and list items: split after . ! ? followed by a space, and at line breaks (a "2. " numbering is no end). */
export function sentences(text: string): Sentence[] {
  const result: Sentence[] = [];
  // "i.e.", "e.g.", "etc.", "vs." end no sentence.
  const pattern = /(?:^[ \t]*\d+[.)][ \t]+)?[^\n]*?(?:(?<!\b(?:i\.e|e\.g|etc|vs|cf))[.!?](?=\s)|\n|$)/gim;
  for (const match of text.matchAll(pattern)) {
    if (match[0] === '' && match.index >= text.length) break;
    const raw = match[0];
    const lead = raw.length - raw.trimStart().length;
    const trimmed = raw.trim();
    if (trimmed) result.push({ text: trimmed, start: match.index + lead });
  }
  return result;
}

/** The start of a text, cut at a word boundary: still a verbatim quote of it. */
export function quotePrefix(text: string, max = 300): string {
  const trimmed = text.trim();
  if (trimmed.length <= max) return trimmed;
  const cut = trimmed.slice(0, max);
  const lastSpace = cut.lastIndexOf(' ');
  return (lastSpace > max / 2 ? cut.slice(0, lastSpace) : cut).trimEnd();
}

/** For the terminal: one line, no control characters (so no escape sequences), bounded. */
export function displayLine(text: string, max = 200): string {
  const flat = text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
