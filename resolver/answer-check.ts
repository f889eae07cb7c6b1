// Decides whether a model's answer for one conflict region is accepted, and what replaces the region.
//
// The model sees `before + marked block + after` and must return that excerpt resolved. Precisely:
//  1. If the answer contains a fenced code block (``` or ~~~), only the first block's content counts
//     (instruction models like to wrap code and add a sentence).
//  2. Rejected as empty if that text is blank.
//  3. Rejected as garbage if it holds control characters (other than tab/CR/LF) or U+FFFD that the
//     region does not hold.
//  4. Rejected if it keeps conflict markers: a line `<<<<<<<…`, `>>>>>>>…` or exactly `=======` that is
//     not also a content line of the region (so an rst underline of seven `=` stays allowed).
//  5. The answer is the whole excerpt (it starts with the `before` context lines and ends with the
//     `after` ones: the resolution is what lies between), or the resolved block alone, without any
//     context line (small models often answer so). Lines compare without trailing whitespace; blank
//     lines at the very start of `before` and the very end of `after` may be missing (servers trim
//     answers). Rejected as changing text outside the region: an answer with one context but not the
//     other, or one that starts or ends like the context and then departs from it. A block given
//     alone must be made of the region's own words (its two sides and their context): what else it
//     says cannot be told apart from prose, so it is rejected too.
//  6. Rejected as garbage if the resolution outnumbers both sides of the conflict together plus
//     MAX_EXTRA_LINES: a merge of two versions should not be longer than keeping both.
// Only the resolution is used: the context lines in the file are never replaced by the model's copy.
import { splitLines } from './conflict-regions.ts';

export const MAX_EXTRA_LINES = 3;

/** One region cut into its parts; every line keeps its terminator. */
export interface RegionParts {
  before: string[];
  ours: string[];
  theirs: string[];
  after: string[];
}

/** `resolution`: the lines that replace the marked block, without line terminators. */
export type AnswerCheck = { ok: true; resolution: string[] } | { ok: false; reason: string };

const trimEnd = (line: string): string => line.replace(/\s+$/, '');
const isBlank = (line: string): boolean => line.trim() === '';
const BAD_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffd]/;
const MARKER = /^(?:<{7}|>{7})(?:\s|$)|^={7}$/;

/** Step 1: the content of the first fenced block, else the whole answer. */
export function extractCode(answer: string): string {
  const lines = answer.replace(/\r\n/g, '\n').split('\n');
  const open = lines.findIndex((line) => /^\s*(`{3,}|~{3,})/.test(line));
  if (open === -1) return answer.replace(/\r\n/g, '\n');
  const fence = /^\s*(`{3,}|~{3,})/.exec(lines[open]!)![1]!;
  const closeRe = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
  const close = lines.findIndex((line, i) => i > open && closeRe.test(line));
  return lines.slice(open + 1, close === -1 ? undefined : close).join('\n') + '\n';
}

export function checkAnswer(parts: RegionParts, answer: string): AnswerCheck {
  const code = extractCode(answer);
  if (code.trim() === '') return { ok: false, reason: 'empty answer' };

  const regionText = [...parts.before, ...parts.ours, ...parts.theirs, ...parts.after].join('');
  const bad = BAD_CHARACTERS.exec(code);
  if (bad && !regionText.includes(bad[0])) {
    return { ok: false, reason: `garbage: control character U+${bad[0].charCodeAt(0).toString(16).padStart(4, '0')} in answer` };
  }

  const lines = splitLines(code).map((line) => line.replace(/\r?\n$/, ''));
  const content = new Set(regionText.split('\n').map(trimEnd));
  const marker = lines.findIndex((line) => MARKER.test(trimEnd(line)) && !content.has(trimEnd(line)));
  if (marker !== -1) return { ok: false, reason: `conflict markers left in answer (answer line ${marker + 1})` };

  // Step 5, with the blank-line tolerance at the outer edges.
  const before = dropWhile(parts.before.map(trimEnd), isBlank);
  const after = dropWhile(parts.after.map(trimEnd).reverse(), isBlank).reverse();
  const body = dropWhile(dropWhile(lines, isBlank).reverse(), isBlank).reverse();
  const resolved = withoutContext(body, before, after, regionText);
  if ('reason' in resolved) return { ok: false, reason: resolved.reason };

  // Step 6.
  const { resolution } = resolved;
  const limit = parts.ours.length + parts.theirs.length + MAX_EXTRA_LINES;
  if (resolution.length > limit) {
    return { ok: false, reason: `garbage: resolution has ${resolution.length} lines, more than both sides together plus ${MAX_EXTRA_LINES} (${limit})` };
  }
  return { ok: true, resolution };
}

/** Identifiers, keywords and numbers: what a merge of two versions of code is written with. */
const words = (text: string): string[] => text.match(/[\p{L}_][\p{L}\p{N}_]*|\p{N}+/gu) ?? [];

const outside = (reason: string) => ({ reason: `changed text outside the region: ${reason}` });

/** How many leading lines of `lines` equal those of `context` (without trailing whitespace). */
function sharedPrefix(lines: string[], context: string[]): number {
  let n = 0;
  while (n < context.length && n < lines.length && trimEnd(lines[n]!) === context[n]) n++;
  return n;
}

/** Step 5: the resolution, whether the answer repeats the context lines or gives the block alone. */
function withoutContext(body: string[], before: string[], after: string[], regionText: string): { resolution: string[] } | { reason: string } {
  const fitsBoth = body.length >= before.length + after.length;
  const hasBefore = fitsBoth && sharedPrefix(body, before) === before.length;
  const tail = [...body].reverse();
  const hasAfter = fitsBoth && sharedPrefix(tail, [...after].reverse()) === after.length;
  if (hasBefore && hasAfter) return { resolution: body.slice(before.length, body.length - after.length) };

  const echoedBefore = before.length > 0 && (hasBefore || sharedPrefix(body, before) > 0);
  const echoedAfter = after.length > 0 && (hasAfter || sharedPrefix(tail, [...after].reverse()) > 0);
  if (echoedBefore || echoedAfter) {
    if (!fitsBoth) return outside('answer is shorter than the context around it');
    if (!hasBefore) return outside(`context line ${sharedPrefix(body, before) + 1} before the conflict differs`);
    return outside(`context line ${after.length - sharedPrefix(tail, [...after].reverse())} after the conflict differs`);
  }
  // The block alone: only the region's words.
  const known = new Set(words(regionText));
  const unknown = words(body.join('\n')).find((word) => !known.has(word));
  if (unknown !== undefined)
    return outside(`the answer is neither the excerpt nor a block made of the conflict's own words ("${unknown.slice(0, 40)}" is not one)`);
  return { resolution: body };
}

function dropWhile(lines: string[], predicate: (line: string) => boolean): string[] {
  let i = 0;
  while (i < lines.length && predicate(lines[i]!)) i++;
  return lines.slice(i);
}
