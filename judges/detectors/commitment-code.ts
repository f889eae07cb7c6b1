// The code a commitment's sentence names (commitment-extract.ts): what a commitment targets
// (`Target`), the symbols in a code mask or a guard snippet, the function a place phrase names, and
// where in it code is said to sit (first, before or after an anchor).
import type { CommitmentKind } from '../definitions.ts';
import type { Reference } from './commitment-references.ts';
import type { Mask, Sentence, Term, VerbPhrase } from './language.ts';

export type TargetKind = Exclude<CommitmentKind, 'accepted_request'>;

export interface Target {
  kind: TargetKind;
  /** Symbols: what must exist, be exported or stay untouched; for a placement, the call or guard. */
  names: string[];
  /** Files the sentence names. */
  files: string[];
  /** untouched_lines: the range in the original file. */
  lines?: [number, number];
  /** exists: the function the symbol belongs to (a parameter); placement: the function it sits in. */
  scope?: string;
  /** placement: first or last in the function, before or after the call `anchor`, or around it (a `try`, a wrapping call). */
  position?: 'first' | 'last' | 'before' | 'after' | 'around';
  anchor?: string;
  /** placement: inside a loop of the function ("inside the loop", "on every iteration"); `position` is then within the loop. */
  loop?: boolean;
  /** placement of a guard: words its condition contains ("bypass" for "the bypass check"). */
  guard?: string[];
  /** placement: words naming the anchor where no code does ("after taking the lock": lock). */
  anchorWords?: string[];
  /** placement: `anchorWords` is a verb's stem ("before it writes"): the anchor is a call whose name starts with it. */
  anchorCall?: boolean;
  /** exported: the module (file or package) it is exported from; PACKAGE: the package of the code's file. */
  module?: string;
  /** placement of a new definition next to another ("`tick()` below `flush()`"): `anchor` is a definition, not a call. */
  definition?: boolean;
  /** untouched_symbol: only the existing parameters of `scope` (its signature) must stay. */
  parameters?: boolean;
  /** untouched_symbol: every existing function of the files but these ("I'm only touching `route()`"). */
  except?: string[];
  /** untouched_symbol with `parameters`: the whole signature stays, so no parameter is added either. */
  signature?: boolean;
  /** A target named by reference, resolved through the conversation (commitment-references.ts). */
  refers?: Reference;
  /** untouched_lines written as bare numbers: a line range only if it repeats one named before. */
  repeats?: boolean;
}

/** A promise or a claim an agent made in a sentence of the conversation, and what it commits to. */
export interface Commitment {
  messageId: number;
  agent: string;
  /** The sentence, verbatim from the message. */
  quote: string;
  kind: 'promise' | 'claim';
  target: Target;
  /** Set when the commitment is an accepted request: the partner's request. */
  request?: { messageId: number; agent: string; quote: string };
}

/** "exported from the package": the module is the package of the file the code is in. */
export const PACKAGE = '<package>';

/** Verbs of a function that tests a condition: "`acquire()` will test `self._closed`". */
export const CHECK_VERB = /^(?:checks?|tests?|guards?|validates?|verif(?:y|ies))$/;

export const GUARD_NOUN = /^(?:check|checks|guard|guards|validation|condition|short-circuit|early-return|bail-out)$/;

export const CONSTRUCTOR = /^(?:constructor|__init__|init|initializer|initialiser)$/;

export const LOCATION = /^(?:in|inside|into|within|to|at|from|of|on|after|before|below|above|beneath|under|beside|via)$/;

/** Places relative to other code: "below `flush()`" places code next to flush, not in it. */
const RELATIVE = /^(?:before|after|below|above|beneath|under|beside)$/;

/** "as it was", "as they are", "as before", "as-is": code said to stay in the state it is in. */
export const AS_BEFORE = /\bas (?:before|it (?:is|was)|they (?:are|were))\b|\bas[ -]is\b/i;

/** Keywords a place phrase may put in backticks ("the `for` loop"): never a function's name. */
const KEYWORD = /^(?:for|while|loop|if|else|match|switch|try|with|return)$/;

/** A code name, possibly called: `max_batch_size`, `Session.close`, `cache::Store::get()`. */
export const IDENTIFIER = /^[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*(?:\(\))?$/;

/** Words that are not code even in backticks. */
const NOT_CODE = /^(?:true|false|none|null|undefined|yes|no|ok|done|todo|fixme|note|self|this|cls)$/i;

/** `Cache.get`, `BitSet::count_ones` → `get`, `count_ones`. */
export const lastName = (name: string) => name.replace(/^.*[.:]/, '');

/** The symbols a code mask names: an identifier, or the names a snippet defines (`reverse: bool = False`, `signal?: AbortSignal`). */
export function symbolsIn(code: string): string[] {
  const trimmed = code.trim();
  if (IDENTIFIER.test(trimmed)) return NOT_CODE.test(trimmed) ? [] : [trimmed.replace(/\(\)$/, '')];
  // A Go-style parameter or field, name then type: `opts ...Option`, `n int64`, `items []string`, `d time.Duration`.
  const typed = /^([A-Za-z_]\w*)\s+(?:\.\.\.|\[\]|\*)*(?:[a-z]\w*\.)?(?:[A-Z]\w*|u?int\d*|float\d+|string|bool|byte|rune|error|any)(?:\.\w+)?$/.exec(trimmed);
  if (typed) return [typed[1]!];
  // `to_roman(n: u32) -> String`, `def load(path: str)`: the typed parameters of a signature are not what it defines.
  // `pub fn remaining(&self, now: Instant)`: modifiers before the keyword too.
  const signature = trimmed.replace(
    /^((?:(?:pub(?:\([\w:]+\))?|export|async|static|public|private|protected)\s+)*(?:(?:def|fn|function|func)\s+)?[A-Za-z_$][\w$]*\s*)\(([^()]*:[^()]*)\)/,
    '$1()',
  );
  const defined = [
    ...signature.matchAll(/(?:\b(?:def|class|function|func|fn|const|let|var|struct|type)\s+)([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*)\s*(?=\??\s*[:=(])/g),
  ]
    .map((m) => m[1] ?? m[2]!)
    .filter((n) => !NOT_CODE.test(n) && !/^(?:def|class|function|return|if|for|while|str|int|bool|float|dict|list|self)$/.test(n));
  return [...new Set(defined)];
}

/** A guard written out as code: `if self._closed: raise …`, `if (!req.user) return deny(res);`, `assert n > 0`. */
export const GUARD_CODE = /^\s*(?:if|assert|unless|guard)\b/;

/**
 * The names a guard snippet's condition tests: inside its parentheses, else up to the `:` or `{` that opens its
 * body. The object whose member it reads (`l` in `l.disabled`) is not what it tests.
 */
export function conditionNames(code: string): string[] {
  const rest = code.replace(GUARD_CODE, '').trim();
  const tested = (condition: string) => namesIn(condition.replace(/[A-Za-z_$][\w$]*\s*\.(?=\s*[A-Za-z_$])/g, ''));
  if (!rest.startsWith('(')) return tested(rest.split(/[:{]/)[0]!);
  let depth = 0;
  const end = [...rest].findIndex((c) => (depth += c === '(' ? 1 : c === ')' ? -1 : 0) === 0);
  return tested(rest.slice(0, end + 1));
}

/** Every name in a code snippet (`if self._closed` gives `_closed`): what a guard's condition tests. */
export function namesIn(code: string): string[] {
  return [...code.matchAll(/[A-Za-z_$][\w$]*/g)]
    .map((m) => m[0])
    .filter((n) => !NOT_CODE.test(n) && !/^(?:if|not|and|or|is|in|return|raise|assert|else|elif)$/.test(n));
}

export function fileMasks(sentence: Sentence): string[] {
  return sentence.masks.filter((m) => m.kind === 'file').map((m) => m.text);
}

/**
 * The files the sentence names for the code at `at`: not those of a later clause joined by "and" or "but"
 * with a verb of its own ("a `remaining()` on `Timer`, and I'll re-export `TimerError` from src/lib.rs").
 */
export function filesFor(sentence: Sentence, at: Term): string[] {
  const terms = sentence.terms;
  const from = terms.indexOf(at);
  const joined = terms.findIndex(
    (t, j) =>
      j > from &&
      t.clause > at.clause &&
      terms[j - 1]?.clause !== t.clause &&
      /^(?:and|but|then|plus)$/.test(t.normal) &&
      sentence.verbs.some((v) => terms[v.index]?.clause === t.clause),
  );
  if (joined < 0) return fileMasks(sentence);
  return terms.slice(0, joined).flatMap((t) => (t.mask?.kind === 'file' ? [t.mask.text] : []));
}

function lineRange(text: string): [number, number] | undefined {
  const numbers = [...text.matchAll(/\d+/g)].map((m) => Number(m[0]));
  if (numbers.length === 0) return undefined;
  return [Math.min(...numbers), Math.max(...numbers)];
}

/** A line range left untouched, from a line mask. */
export function untouchedRange(mask: Mask, files: string[]): Target | undefined {
  const lines = lineRange(mask.text);
  return lines ? { kind: 'untouched_lines', names: [], files, lines, ...(mask.bare && { repeats: true }) } : undefined;
}

export const codeOf = (terms: readonly Term[]) => terms.filter((t) => t.mask?.kind === 'code').flatMap((t) => symbolsIn(t.mask!.text));

/** "d.bikes", "self.items": a field read through a receiver is data, not a function. */
export const isField = (code: string) => /^(?:[a-z]|self|this)\.[a-z_][\w]*$/.test(code.trim());

/** The function a place phrase names: `get()` in "FIRST in get()", `__init__` in "to the constructor". */
export function placeFunction(place: readonly Term[]): string | undefined {
  for (let i = 0; i < place.length; i++) {
    const t = place[i]!;
    const previous = place[i - 1]?.normal ?? '';
    // A guard written out (`if self._closed: …`) is what sits there, not where.
    if (
      t.mask?.kind === 'code' &&
      !GUARD_CODE.test(t.mask.text) &&
      !RELATIVE.test(previous) &&
      (i === 0 || LOCATION.test(previous) || /^(?:the|top|start|beginning|of)$/.test(previous))
    ) {
      const name = symbolsIn(t.mask.text)[0];
      // "index into d.bikes".
      if (isField(t.mask.text)) continue;
      // "in the `Client` constructor" is the class's constructor; "the `for` loop" is no function.
      if (CONSTRUCTOR.test(place[i + 1]?.normal ?? '')) return '__init__';
      if (name && !KEYWORD.test(name)) return lastName(name);
    }
    if (CONSTRUCTOR.test(t.normal)) return '__init__';
  }
  return undefined;
}

/** The text of terms, masks restored. */
export const span = (terms: readonly Term[]) => terms.map((t) => t.mask?.text ?? t.text).join(' ');

/** The function named last in the clauses before the one at `index`: what "it" refers to ("… `next_job()` …: the check is the first thing it does"). */
export function functionBefore(sentence: Sentence, index: number): string | undefined {
  return sentence.terms
    .slice(0, index)
    .filter((t) => t.clause < sentence.terms[index]!.clause && t.mask?.kind === 'code' && /\(\)$/.test(t.mask.text.trim()))
    .map((t) => functionName(t))
    .at(-1);
}

const isConstructor = (name: string) => /^(?:__init__|constructor|new|New\w*|init)$/.test(name);

/** Two names of one function: equal, or both a constructor (`__init__`, `constructor`, `new`). */
export const sameFunction = (a: string, b: string) => a === b || (isConstructor(a) && isConstructor(b));

/** The function a code term names, when the sentence means a function there (`get()`, `Cache.get`, `parseDuration`). */
export function functionName(term: Term | undefined): string | undefined {
  if (term?.mask?.kind !== 'code') return undefined;
  const name = symbolsIn(term.mask.text)[0];
  return name && IDENTIFIER.test(term.mask.text.trim()) && !KEYWORD.test(name) ? lastName(name) : undefined;
}

/** A Python import's list of names: `from config import load_config, Config`. */
const PYTHON_IMPORT = /^from\s+[\w.]+\s+import\s+([\w\s,]+)$/;

/** The names an import in the sentence imports: `from config import load_config`, `import { a, b } from 'pkg'`. */
export function importedNames(sentence: Sentence): string[] {
  for (const m of sentence.masks) {
    const list = PYTHON_IMPORT.exec(m.text)?.[1] ?? /^import\s*\{([^}]+)\}\s*from\b/.exec(m.text)?.[1];
    if (list)
      return list
        .split(',')
        .map((n) => n.trim().split(/\s+/)[0]!)
        .filter(Boolean);
  }
  return [];
}

/**
 * The names an export statement quoted as code exports from the module it goes into:
 * `export { A, B as C } from './x'`, `pub use x::{A, B};`, `__all__ = ["A"]`, and in a package's
 * `__init__.py` (`module`), `from .x import A`. Undefined for other code.
 */
export function exportStatementNames(code: string, module: string | undefined): string[] | undefined {
  const list =
    /^export\s*\{([^}]*)\}/.exec(code)?.[1] ??
    /^pub\s+use\s+[\w:]+::\{([^}]*)\}\s*;?$/.exec(code)?.[1] ??
    /^pub\s+use\s+[\w:]+::(\w+)\s*;?$/.exec(code)?.[1] ??
    /^__all__\s*=\s*\[([^\]]*)\]$/.exec(code)?.[1] ??
    (module && /(?:^|\/)__init__\.py$/.test(module) ? PYTHON_IMPORT.exec(code)?.[1] : undefined);
  if (list === undefined) return undefined;
  // `B as C` exports C; `"A"` is A.
  return list
    .split(',')
    .map((n) =>
      n
        .trim()
        .replace(/['"]/g, '')
        .split(/\s+as\s+/)
        .at(-1)!,
    )
    .filter((n) => /^[A-Za-z_$][\w$]*$/.test(n));
}

/** The module an import in the sentence names: `from promptkit import x`, `import { x } from './lib'`. */
export function importedFrom(sentence: Sentence): string | undefined {
  for (const m of sentence.masks) {
    const python = /^from\s+([\w.]+)\s+import\b/.exec(m.text)?.[1];
    if (python) return python;
    // `import { x } from 'textkit'`: the package's entry module; a relative specifier names a file next to it.
    const js = /\bfrom\s+['"]([^'"]+)['"]/.exec(m.text)?.[1];
    if (js) return js.startsWith('.') ? undefined : PACKAGE;
  }
  return undefined;
}

/** Where an export is reached: "from `pkg`", "in src/index.ts", "at the crate root". */
const MODULE_PREPOSITION = /^(?:from|in|via|through|of|at)$/;

/** The module a symbol is exported from: a file or a module name after "from", "in", "via" (not a snippet such as `pub use`). */
export function moduleAfter(terms: readonly Term[]): string | undefined {
  const named = terms.find(
    (t, i) =>
      t.mask &&
      t.mask.kind !== 'lines' &&
      // "call it in `save()`": a function is not a module.
      !/\s|\)$/.test(t.mask.text.trim()) &&
      MODULE_PREPOSITION.test(terms[i - 1]?.normal ?? ''),
  )?.mask?.text;
  if (named) return named;
  // "from the package", "from the crate root", "to the package's `__all__`".
  const packageWord = terms.findIndex(
    (t, i) =>
      /^(?:package|crate|root|index)$/.test(t.normal) && terms.slice(Math.max(0, i - 3), i).some((x) => MODULE_PREPOSITION.test(x.normal) || x.normal === 'to'),
  );
  return packageWord >= 0 ? PACKAGE : undefined;
}

/** The code of an earlier clause of the sender's own ("I've got `Put()`") that a pronoun object ("add it") stands for. */
export function ownCodeBefore(sentence: Sentence, verb: VerbPhrase, object: readonly Term[]): string[] {
  if (object.length !== 1 || !/^(?:it|them|both)$/.test(object[0]!.normal)) return [];
  const own = new Set(sentence.verbs.filter((v) => v.subject === 'first' && v.clause < verb.clause).map((v) => v.clause));
  // "`to_roman(n: u32) -> String`: writing it as a pub fn": code alone before a colon is what the sentence is about.
  const label = sentence.terms.filter((t) => t.text !== '' && t.clause === 0);
  if (verb.clause > 0 && label.length === 1 && label[0]!.mask?.kind === 'code' && /:/.test(label[0]!.post)) own.add(0);
  const code = sentence.terms.slice(0, verb.start).filter((t) => t.mask?.kind === 'code' && own.has(t.clause));
  return codeOf(code.filter((t) => t.clause === code.at(-1)?.clause));
}
