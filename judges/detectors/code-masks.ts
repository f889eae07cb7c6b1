// Code in agents' prose (inline code, file paths, line references, code-shaped names) swapped for
// placeholder nouns, so the NLP tagger (language.ts) reads "I'll add Zqa to Zqb" as a sentence and
// the detectors still get the code back from the masks.
import { BARE_RANGE, FILE_PATH, LINE_REFERENCE } from './mentions.ts';

export type MaskKind = 'code' | 'file' | 'lines';

export interface Mask {
  kind: MaskKind;
  /** The original text (backticks removed for inline code). */
  text: string;
  placeholder: string;
  /** A line range written as bare numbers ("keep clear of 10-19"): lines only where it repeats a range named as lines. */
  bare?: boolean;
}

const CODE_SPAN = /`([^`\n]+)`/g;
/** Code-shaped names: snake_case, dunder, camelCase, dotted or called `name()`. */
const CODE_NAME =
  /(?<![\w$])(?:[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(\))?|[A-Za-z_$][\w$]*\(\)|[A-Za-z0-9]*_[\w$]*[A-Za-z0-9][\w$]*|_+[A-Za-z]\w*|[a-z]+[A-Z]\w*|[A-Z]\w*[a-z][A-Z]\w*)(?![\w$])/g;

function placeholderName(i: number): string {
  let name = '';
  let n = i;
  do {
    name = String.fromCharCode(97 + (n % 26)) + name;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return `Zq${name}`;
}

/** Swaps code for placeholder nouns; `masks` keeps what each placeholder stands for. */
export function maskCode(original: string): { masked: string; masks: Mask[] } {
  const masks: Mask[] = [];
  const text = original.replace(/[’‘]/g, "'");
  const swap = (kind: MaskKind, original: string, bare = false) => {
    const placeholder = placeholderName(masks.length);
    masks.push({ kind, text: original, placeholder, ...(bare && { bare }) });
    return placeholder;
  };
  const masked = text
    .replace(CODE_SPAN, (_, code: string) => {
      const trimmed = code.trim();
      // "`src/client.ts:90-130`" is a file and its lines, as it is without backticks (below).
      if (new RegExp(`^${FILE_PATH.source}:\\d+(?:-\\d+)?$`, 'i').test(trimmed)) return trimmed;
      return swap(new RegExp(`^${FILE_PATH.source}$`, 'i').test(trimmed) ? 'file' : 'code', trimmed);
    })
    // "rota/shifts.py:11-16": the file and its lines, two nouns.
    .replace(LINE_REFERENCE, (m) => (m.startsWith(':') ? ' ' : '') + swap('lines', m))
    .replace(BARE_RANGE, (m) => swap('lines', m, true))
    .replace(FILE_PATH, (m) => swap('file', m))
    // "i.e." and "e.g." are abbreviations, not dotted names.
    .replace(CODE_NAME, (m) => (/^Zq[a-z]+$|^(?:i\.e|e\.g)$/i.test(m) ? m : swap('code', m)))
    // "`retries`/`backoff`": both, as two nouns the tagger can tell apart.
    .replace(/\b(Zq[a-z]+)\s*\/\s*(?=Zq[a-z]+\b)/g, '$1 and ');
  return { masked, masks };
}
