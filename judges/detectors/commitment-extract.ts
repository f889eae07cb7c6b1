// Commitments in messages, with what they commit to (definitions.ts: COMMITMENT_KIND_DEFINITIONS):
// a promise ("I'll add `max_batch_size` to the constructor"), a completion claim ("✓ Added X"),
// a boundary ("I won't touch `Session.close()`", "I'll leave lines 40-53 alone") or an accepted
// request ("Sure, will do" after "Please export `LRUCache` from __init__.py"). The sentence
// structure comes from language.ts (who does what, in which tense, negated or not); the target
// from the code the clause names. Offers, conditions and questions commit to nothing, and a
// promise whose target names no code is left to the symptom judge.
import type { ConversationMessage } from '../../harness/store/records.ts';
import type { CommitmentKind } from '../definitions.ts';
import {
  conversationMentions,
  describedCode,
  describingWords,
  meansFunctions,
  namesParameterList,
  packageModule,
  parameterScope,
  partnerCode,
  partnerRanges,
  partnerWork,
  PARAMETER_NOUN,
  previousCode,
  type ConversationMentions,
  type Reference,
} from './commitment-references.ts';
import { isConditional, messageSentences, stanceOf, type Mask, type Sentence, type Term, type VerbPhrase } from './language.ts';

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
  /** placement: first in the function, or before or after the call `anchor`. */
  position?: 'first' | 'before' | 'after';
  anchor?: string;
  /** placement of a guard: words its condition contains ("bypass" for "the bypass check"). */
  guard?: string[];
  /** placement: words naming the anchor where no code does ("after taking the lock": lock). */
  anchorWords?: string[];
  /** exported: the module (file or package) it is exported from; PACKAGE: the package of the code's file. */
  module?: string;
  /** placement of a new definition next to another ("`tick()` below `flush()`"): `anchor` is a definition, not a call. */
  definition?: boolean;
  /** untouched_symbol: only the existing parameters of `scope` (its signature) must stay. */
  parameters?: boolean;
  /** A target named by reference, resolved through the conversation (commitment-references.ts). */
  refers?: Reference;
  /** untouched_lines written as bare numbers: a line range only if it repeats one named before. */
  repeats?: boolean;
}

/** "exported from the package": the module is the package of the file the code is in. */
const PACKAGE = '<package>';

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

const CREATE = /^(?:add|insert|create|implement|define|introduce|append|write|put|declare|register|place|build|include|wire|hook|extend|expose|provide)$/;
const EXPORT = /^(?:export|re-export|reexport|expose|publish)$/;
const TOUCH = /^(?:touch|edit|modify|change|alter|rewrite|refactor|move|rename|remove|delete|reformat|update|reorder|restructure|replace)$/;
/** Verbs that turn code into something: "I'll make `X` public", "converting the loop into an exported `render()`". */
const MAKE = /^(?:make|turn|convert|mark|change)$/;
/** Words that say a symbol is visible from its module. */
const EXPORTED_WORD = /^(?:exports?|exported|re-exported|reexported|importable|public)$/;
const LEAVE = /^(?:leave|keep|preserve|avoid)$/;
const CALL = /^(?:call|invoke|apply|run)$/;
const UNTOUCHED_WORD = /^(?:alone|untouched|intact|unchanged|as-is|is)$/;
/** Verbs of a function that tests a condition: "`acquire()` will test `self._closed`". */
const CHECK_VERB = /^(?:checks?|tests?|guards?|validates?|verif(?:y|ies))$/;
const GUARD_NOUN = /^(?:check|checks|guard|guards|validation|condition|short-circuit|early-return|bail-out)$/;
const CONSTRUCTOR = /^(?:constructor|__init__|init|initializer|initialiser)$/;
const LOCATION = /^(?:in|inside|into|within|to|at|from|of|on|after|before|below|above|beneath|under|beside|via)$/;
/** Places relative to other code: "below `flush()`" places code next to flush, not in it. */
const RELATIVE = /^(?:before|after|below|above|beneath|under|beside)$/;
const FIRST_WORD = /^(?:first|top|start|beginning|first-thing|earliest)$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*(?:\(\))?$/;
/** Words that are not code even in backticks. */
const NOT_CODE = /^(?:true|false|none|null|undefined|yes|no|ok|done|todo|fixme|note|self|this|cls)$/i;

/** The symbols a code mask names: an identifier, or the names a snippet defines (`reverse: bool = False`). */
function symbolsIn(code: string): string[] {
  const trimmed = code.trim();
  if (IDENTIFIER.test(trimmed)) return NOT_CODE.test(trimmed) ? [] : [trimmed.replace(/\(\)$/, '')];
  // A Go-style parameter or field, name then type: `opts ...Option`, `n int64`, `items []string`.
  const typed = /^([A-Za-z_]\w*)\s+(?:\.\.\.|\[\]|\*)*(?:[A-Z]\w*|u?int\d*|float\d+|string|bool|byte|rune|error|any)(?:\.\w+)?$/.exec(trimmed);
  if (typed) return [typed[1]!];
  const defined = [...trimmed.matchAll(/(?:\b(?:def|class|function|func|fn|const|let|var|struct|type)\s+)([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*)\s*(?=[:=(])/g)]
    .map((m) => m[1] ?? m[2]!)
    .filter((n) => !NOT_CODE.test(n) && !/^(?:def|class|function|return|if|for|while|str|int|bool|float|dict|list|self)$/.test(n));
  return [...new Set(defined)];
}

/** A guard written out as code: `if self._closed: raise …`, `if (!req.user) return deny(res);`, `assert n > 0`. */
const GUARD_CODE = /^\s*(?:if|assert|unless|guard)\b/;

/** The names a guard snippet's condition tests: inside its parentheses, else up to the `:` or `{` that opens its body. */
function conditionNames(code: string): string[] {
  const rest = code.replace(GUARD_CODE, '').trim();
  let condition = rest;
  if (rest.startsWith('(')) {
    let depth = 0;
    const end = [...rest].findIndex((c) => (depth += c === '(' ? 1 : c === ')' ? -1 : 0) === 0);
    condition = rest.slice(0, end + 1);
  } else condition = rest.split(/[:{]/)[0]!;
  return namesIn(condition);
}

/** Every name in a code snippet (`if self._closed` gives `_closed`): what a guard's condition tests. */
function namesIn(code: string): string[] {
  return [...code.matchAll(/[A-Za-z_$][\w$]*/g)]
    .map((m) => m[0])
    .filter((n) => !NOT_CODE.test(n) && !/^(?:if|not|and|or|is|in|return|raise|assert|else|elif)$/.test(n));
}

function fileMasks(sentence: Sentence): string[] {
  return sentence.masks.filter((m) => m.kind === 'file').map((m) => m.text);
}

function lineRange(text: string): [number, number] | undefined {
  const numbers = [...text.matchAll(/\d+/g)].map((m) => Number(m[0]));
  if (numbers.length === 0) return undefined;
  return [Math.min(...numbers), Math.max(...numbers)];
}

/** A line range left untouched, from a line mask. */
function untouchedRange(mask: Mask, files: string[]): Target | undefined {
  const lines = lineRange(mask.text);
  return lines ? { kind: 'untouched_lines', names: [], files, lines, ...(mask.bare && { repeats: true }) } : undefined;
}

interface Region {
  /** Terms of the verb's object, up to where its location begins. */
  object: Term[];
  /** The rest of the sentence after the object, until another agent's clause. */
  place: Term[];
}

/** The verb's object and the place phrase after it, up to a clause with another person's verb. */
function regionOf(sentence: Sentence, verb: VerbPhrase): Region {
  const verbs = sentence.verbs.filter((v) => v.index > verb.index);
  const stop = verbs.find((v) => v.clause !== verb.clause && (v.subject === 'first' || v.subject === 'second'))?.start ?? sentence.terms.length;
  const terms = sentence.terms.slice(verb.index + 1, stop).filter((t) => t.text !== '');
  // "Both will be exported so your CLI can call them": the next clause is not the object.
  if (terms[0] && terms[0].clause !== verb.clause && /^(?:so|and|but|because|since|while|then)$/.test(terms[0].normal)) return { object: [], place: [] };
  // "a call to `X`" names what is called, not where.
  const end = terms.findIndex(
    (t, i) =>
      // "exported from `pkg`": no object, only a place.
      (i === 0 && /^(?:from|into|via|inside|within)$/.test(t.normal)) ||
      (i > 0 && ((LOCATION.test(t.normal) && !(t.normal === 'to' && /^(?:call|calls)$/.test(terms[i - 1]!.normal))) || t.clause !== terms[0]!.clause)),
  );
  return end === -1 ? { object: terms, place: [] } : { object: terms.slice(0, end), place: terms.slice(end) };
}

const codeOf = (terms: readonly Term[]) => terms.filter((t) => t.mask?.kind === 'code').flatMap((t) => symbolsIn(t.mask!.text));

/** The function a place phrase names: `get()` in "FIRST in get()", `__init__` in "to the constructor". */
function placeFunction(place: readonly Term[]): string | undefined {
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
      if (name) return name.replace(/^.*[.:]/, '');
    }
    if (CONSTRUCTOR.test(t.normal)) return '__init__';
  }
  return undefined;
}

/** "at its top", "in its body": the function the sentence named last before the verb. */
function possessiveFunction(sentence: Sentence, verb: VerbPhrase, place: readonly Term[]): string | undefined {
  if (!place.some((t) => t.normal === 'its')) return undefined;
  return sentence.terms
    .slice(0, verb.start)
    .filter((t) => t.mask?.kind === 'code' && /\(\)$/.test(t.mask.text.trim()))
    .map((t) => functionName(t))
    .filter(Boolean)
    .at(-1);
}

/** The verb that says what happens: "export" in "get exported", else the phrase's lemma. */
function headLemma(sentence: Sentence, verb: VerbPhrase): string {
  if (!/^(?:get|be|is|become|have|has)$/.test(verb.lemma)) return verb.lemma;
  // "haven't modified": the tagger may leave the participle out of the verb phrase.
  const next = sentence.terms.slice(verb.index + 1).find((t) => t.text !== '' && !t.tags.has('Adverb') && !/^(?:not|never)$/.test(t.normal));
  const head = /^(?:have|has)$/.test(verb.lemma) ? (/ed$/.test(next?.normal ?? '') ? next!.normal : '') : (sentence.terms[verb.index]?.normal ?? '');
  const roots = [head.replace(/ed$/, ''), head.replace(/d$/, ''), head.replace(/([a-z])\1ed$/, '$1'), head.replace(/ied$/, 'y')];
  return roots.find((r) => [CREATE, EXPORT, TOUCH, MAKE, CALL, LEAVE].some((pattern) => pattern.test(r))) ?? verb.lemma;
}

/**
 * Where in its function code is said to sit: first, or before or after an anchor named by code or by
 * words ("the first statement after taking the lock" is after the lock, not first in the function).
 */
function positionIn(terms: readonly Term[]): Pick<Target, 'position' | 'anchor' | 'anchorWords'> {
  const first = terms.some((t) => FIRST_WORD.test(t.normal));
  const relative = terms.findIndex((t) => /^(?:before|after|once)$/.test(t.normal));
  if (relative >= 0) {
    // "once the lock is held": after it.
    const position = terms[relative]!.normal === 'before' ? 'before' : 'after';
    // "before the call to `self._write(chunk)`": the code the call names.
    const called = terms.slice(relative + 1).findIndex((t) => !/^(?:the|a|its|call|calls|invocation|to|of)$/.test(t.normal));
    const anchor = codeOf(terms.slice(relative + 1, relative + 1 + Math.max(2, called + 1)))[0];
    const end = terms.findIndex((t, i) => i > relative + 1 && (LOCATION.test(t.normal) || t.clause !== terms[relative]!.clause));
    const anchorWords = anchor ? [] : describingWords(terms.slice(relative + 1, end < 0 ? undefined : end).filter((t) => t.tags.has('Noun')));
    // "first, before the lookup": first says more.
    if ((anchor || anchorWords.length) && !(first && position === 'before')) return { position, ...(anchor ? { anchor } : { anchorWords }) };
  }
  return first ? { position: 'first' } : {};
}

function targetOf(sentence: Sentence, verb: VerbPhrase): Target | undefined {
  const { object, place } = regionOf(sentence, verb);
  const files = fileMasks(sentence);
  const all = [...object, ...place];
  const lemma = headLemma(sentence, verb);
  const lineMask = all.find((t) => t.mask?.kind === 'lines');
  const untouched =
    (verb.negative && (TOUCH.test(lemma) || (/^(?:go|come|get)$/.test(lemma) && all.some((t) => /^(?:near|into|close)$/.test(t.normal))))) ||
    // "I kept the existing parameters of `render()`".
    (LEAVE.test(lemma) && namesParameterList(all)) ||
    // "stay out of", "keep clear of" (the tagger may read "keep clear" as one verb).
    (/^(?:stay|keep)$/.test(lemma) &&
      [object[0], ...sentence.terms.slice(verb.start + 1, verb.index + 1)].some((t) => /^(?:away|out|clear|off)$/.test(t?.normal ?? ''))) ||
    (LEAVE.test(lemma) &&
      (lemma === 'avoid' ||
        all.some((t) => UNTOUCHED_WORD.test(t.normal) && t.normal !== 'is') ||
        /\bas[ -]is\b|\bas (?:it is|they are)\b/i.test(sentence.text)));
  if (untouched) {
    // "leave the existing parameters of `__init__` as they are": its signature, not its body.
    if (namesParameterList(all)) return parameterList(files, placeFunction(place), sentence);
    if (lineMask && !codeOf(object).length) return untouchedRange(lineMask.mask!, files);
    const names = codeOf(all.filter((t) => t.mask?.kind === 'code'));
    if (names.length) return { kind: 'untouched_symbol', names, files };
    // "I won't edit slug.py": the whole file (a bare path, no symbol).
    const objectFiles = object.filter((t) => t.mask?.kind === 'file').map((t) => t.mask!.text);
    if (objectFiles.length) return { kind: 'untouched_symbol', names: [], files: objectFiles };
    // "I stayed out of your lines": the partner's announced work.
    const refers = partnerWork(all);
    return refers ? { kind: 'untouched_lines', names: [], files, refers } : undefined;
  }
  if (verb.negative) return undefined;
  // "adding an EXIF orientation fix to `load()`: `ImageOps.exif_transpose(img)` …": the code after the colon is the object.
  const apposed = codeOf(object).length ? [] : apposition(sentence, verb);
  const objectNames = apposed.length ? apposed.flatMap((t) => symbolsIn(t.mask!.text)) : codeOf(object);
  // "Adding a public method to `Renderer`" exports nothing: "public" makes an export only as what code is made.
  const exportWord = (t: Term) => t.mask?.text === '__all__' || (EXPORTED_WORD.test(t.normal) && (t.normal !== 'public' || MAKE.test(lemma)));
  if (EXPORT.test(lemma) || ((CREATE.test(lemma) || MAKE.test(lemma)) && all.some(exportWord))) {
    // "… `register_filter()` and `unregister_filter()`, and I'll export both functions": the names said before.
    const referred = objectNames.length === 0 && object.some((t) => /^(?:both|them|these|those|all|it|functions|classes|helpers|methods)$/.test(t.normal));
    const names = (referred ? codeOf(sentence.terms.slice(0, verb.start)) : objectNames).filter((n) => n !== '__all__');
    const module = moduleAfter(place) ?? importedFrom(sentence) ?? files[0];
    if (names.length) return { kind: 'exported', names, files, module };
    const described = describedBefore(sentence, verb, object);
    return described ? { kind: 'exported', names: [], files, module, refers: described } : undefined;
  }
  const where = placeFunction(place) ?? possessiveFunction(sentence, verb, place);
  const at = positionIn(all);
  const position = at.position;
  // "adding a `disabled` bypass": code that skips the rest of the function is a guard too.
  if (CREATE.test(lemma) && object.some((t) => GUARD_NOUN.test(t.normal) || t.normal === 'bypass') && (where || position)) {
    // "an auth guard to `handle()`: `if (!req.user) return deny(res);`": the condition shown says what it tests.
    const shown = apposed.find((t) => GUARD_CODE.test(t.mask!.text));
    if (shown) return { kind: 'placement', names: [], guard: conditionNames(shown.mask!.text), files, scope: where, ...at };
    const words = object
      .filter(
        (t) =>
          !GUARD_NOUN.test(t.normal) &&
          !t.tags.has('Determiner') &&
          (t.mask?.kind === 'code' || t.tags.has('Noun') || t.tags.has('Adjective') || t.tags.has('Verb')),
      )
      .flatMap((t) => (t.mask ? namesIn(t.mask.text) : [t.normal]));
    return words.length ? { kind: 'placement', names: [], guard: words, files, scope: where, ...at } : undefined;
  }
  const callNoun = object.some((t) => /^(?:call|calls|invocation)$/.test(t.normal)) || apposed.some((t) => /\w\(.+\)$/.test(t.mask!.text));
  if ((CALL.test(lemma) || (CREATE.test(lemma) && callNoun)) && objectNames.length && (where || position)) {
    return { kind: 'placement', names: objectNames.map((n) => n.replace(/^.*[.:]/, '')), files, scope: where, ...at };
  }
  if (CREATE.test(lemma) && objectNames.length) {
    const parameter = [...object, ...place].some((t) => /^(?:param|params|parameter|parameters|argument|arguments|signature|kwarg|kwargs)$/.test(t.normal));
    const scope = where && (parameter || where === '__init__') ? where : undefined;
    return { kind: 'exists', names: objectNames, files, ...(scope && { scope }) };
  }
  // "Added the registry functions": code named before, by its description.
  const described = CREATE.test(lemma) && !objectNames.length ? describedBefore(sentence, verb, object) : undefined;
  return described ? { kind: 'exists', names: [], files, refers: described } : undefined;
}

/** The existing parameters of a function, named in the sentence or to be resolved through the conversation. */
function parameterList(files: string[], scope: string | undefined, sentence: Sentence): Target {
  return {
    kind: 'untouched_symbol',
    names: [],
    files,
    parameters: true,
    ...(scope ? { scope } : { refers: { to: 'parameters', fallback: parameterOwner(sentence.terms.filter((t) => t.text !== '')) } }),
  };
}

/**
 * The function a sentence about parameters is about: a function named after "of", "to", "in"
 * ("the `flush_every` parameter of `__init__`"), else any function it names, else the constructor.
 */
function parameterOwner(terms: readonly Term[]): string | undefined {
  const functionLike = (t: Term) =>
    t.mask?.kind === 'code' && (/\(\)$/.test(t.mask.text.trim()) || /^(?:[\w.]*\.)?__\w+__$/.test(t.mask.text.trim())) ? functionName(t) : undefined;
  const placed = terms.find((t, i) => functionLike(t) && /^(?:of|to|in|on|for|into)$/.test(terms[i - 1]?.normal ?? ''));
  const named = placed ?? terms.find((t) => functionLike(t));
  // "options to `NewLimiter`": a bare name that parameters are added to is a function too.
  const bare = terms.find((t, i) => /^(?:of|to|on|into)$/.test(terms[i - 1]?.normal ?? '') && functionName(t) !== undefined);
  return (named && functionLike(named)) ?? constructorIn(terms) ?? functionName(bare);
}

/** The code listed right after a colon that follows the verb, before any other person's clause. */
function apposition(sentence: Sentence, verb: VerbPhrase): Term[] {
  const terms = sentence.terms.filter((t, i) => i > verb.index && t.text !== '');
  const start = terms.findIndex((t, i) => i > 0 && /:/.test(terms[i - 1]!.post) && t.mask?.kind === 'code');
  if (start < 0 || sentence.verbs.some((v) => v.index > verb.index && v.index < sentence.terms.indexOf(terms[start]!) && v.subject !== 'none')) return [];
  const run: Term[] = [];
  for (const t of terms.slice(start)) {
    if (t.mask?.kind === 'code') run.push(t);
    else if (!/^(?:and|or)$/.test(t.normal)) break;
  }
  return run;
}

/** The constructor a sentence names by a class call (`Batcher(sink, config=…)`) or the word. */
function constructorIn(terms: readonly Term[]): string | undefined {
  return terms.some((t) => CONSTRUCTOR.test(t.normal) || (t.mask?.kind === 'code' && /^[A-Z]\w*\(/.test(t.mask.text))) ? '__init__' : undefined;
}

/** The module an import in the sentence names: `from promptkit import x`, `import { x } from './lib'`. */
function importedFrom(sentence: Sentence): string | undefined {
  for (const m of sentence.masks) {
    const python = /^from\s+([\w.]+)\s+import\b/.exec(m.text)?.[1];
    if (python) return python;
    // `import { x } from 'textkit'`: the package's entry module; a relative specifier names a file next to it.
    const js = /\bfrom\s+['"]([^'"]+)['"]/.exec(m.text)?.[1];
    if (js) return js.startsWith('.') ? undefined : PACKAGE;
  }
  return undefined;
}

/**
 * A described object or subject ("the registry functions", "the EXIF step"): its describing words,
 * from the verb's object, else from the subject before the verb (the clause before, when this one
 * goes on with "and"). None for the partner's code or a pronoun.
 */
function describedBefore(sentence: Sentence, verb: VerbPhrase, object: readonly Term[]): Reference | undefined {
  const phrase = (terms: readonly Term[]): Reference | undefined => {
    if (terms.some((t) => /^(?:your|their|his|her|yours)$/.test(t.normal) || t.mask)) return undefined;
    if (terms.length > 0 && terms.every((t) => /^(?:both|they|them|these|those|it|all|each|either)$/.test(t.normal))) return { to: 'previous' };
    const words = describingWords(terms);
    return words.length ? { to: 'described', words, functions: meansFunctions(terms) } : undefined;
  };
  const nouns = object.filter((t) => !LOCATION.test(t.normal));
  if (nouns.length) return phrase(nouns);
  let clause = verb.clause;
  let before = sentence.terms.slice(0, verb.start).filter((t) => t.clause === clause && t.text !== '');
  while (clause > 0 && (before.length === 0 || (before.length === 1 && /^(?:and|but|also)$/.test(before[0]!.normal)))) {
    clause--;
    const previous = sentence.terms.filter((t, i) => i < verb.start && t.clause === clause && t.text !== '');
    const verbAt = previous.findIndex((t) => t.tags.has('Verb'));
    before = verbAt < 0 ? previous : previous.slice(0, verbAt);
  }
  return phrase(before.filter((t) => !/^(?:done|and|but|also)$/.test(t.normal)));
}

/** The module a symbol is exported from: a file or a module name after "from", "in", "via" (not a snippet such as `pub use`). */
function moduleAfter(terms: readonly Term[]): string | undefined {
  const named = terms.find(
    (t, i) => t.mask && t.mask.kind !== 'lines' && !/\s/.test(t.mask.text.trim()) && /^(?:from|in|via|through|of)$/.test(terms[i - 1]?.normal ?? ''),
  )?.mask?.text;
  if (named) return named;
  // "from the package", "from the crate root".
  const packageWord = terms.findIndex(
    (t, i) => /^(?:package|crate|root|index)$/.test(t.normal) && terms.slice(Math.max(0, i - 3), i).some((x) => /^(?:from|in|via|through|of)$/.test(x.normal)),
  );
  return packageWord >= 0 ? PACKAGE : undefined;
}

/** Passive claims: "`X` is now exported from `pkg/__init__.py`", "`foo()` was added to utils.py". */
function passiveTarget(sentence: Sentence, verb: VerbPhrase): Target | undefined {
  const before = sentence.terms.slice(0, verb.start).filter((t) => t.clause === verb.clause);
  const names = codeOf(before);
  const files = fileMasks(sentence);
  const after = sentence.terms.slice(verb.index + 1).filter((t) => t.text !== '');
  // "The registry functions were added": the subject describes code named before.
  const refers = names.length === 0 && (EXPORT.test(verb.lemma) || CREATE.test(verb.lemma)) ? describedBefore(sentence, verb, []) : undefined;
  if (names.length === 0 && !refers) return undefined;
  if (EXPORT.test(verb.lemma)) {
    return { kind: 'exported', names, files, module: moduleAfter(after) ?? importedFrom(sentence) ?? files[0], ...(refers && { refers }) };
  }
  return CREATE.test(verb.lemma) ? { kind: 'exists', names, files, ...(refers && { refers }) } : undefined;
}

/** What a state word says about code: "`X` is untouched", "`X` stays as it is", "`X` is exported", "`X` is done". */
const UNCHANGED = /^(?:untouched|unchanged|intact|same|alone)$/;
const PRESENT = /^(?:done|in|landed|added|implemented|there|ready|merged|live|finished|complete|completed|defined|available)$/;

/** The word that says what state the subject is in, after be/have and adverbs: "landed" in "has now landed". */
function stateWord(words: readonly string[]): string | undefined {
  return words.find((w) => !/^(?:is|are|was|were|'s|has|have|been|now|already|also|all|both|finally|just)$/.test(w));
}

/** Claims and promises whose subject is code: "`FormatSize` stays as it is", "`ParseSize` is done and exported". */
function codeSubjectTargets(sentence: Sentence): Target[] {
  const targets: Target[] = [];
  const allFiles = fileMasks(sentence);
  const files = allFiles;
  // "Bypass check is the first statement in `get()`", "the check happens FIRST in `get()`".
  const checkerAt = sentence.terms.findIndex((t) => CHECK_VERB.test(t.normal) && t.tags.has('Verb'));
  const nounAt = sentence.terms.findIndex((t) => GUARD_NOUN.test(t.normal));
  // "`if self._closed: raise …` as the first thing `flush()` does": the guard written out.
  const shownAt = sentence.terms.findIndex((t) => t.mask?.kind === 'code' && GUARD_CODE.test(t.mask.text));
  const guardAt = checkerAt >= 0 ? checkerAt : nounAt >= 0 ? nounAt : shownAt;
  // The guard's clause up to the guard: no person does it ("in `acquire()` the closed check will be …").
  const lead = sentence.terms.slice(0, Math.max(0, guardAt)).filter((t) => t.clause === sentence.terms[guardAt]?.clause);
  const guardIsSubject = lead.every((t, i) => !t.tags.has('Pronoun') && (!t.tags.has('Verb') || i === lead.length - 1));
  const subjectCode = lead.filter((t) => t.mask?.kind === 'code').at(-1);
  // "I'm making `release()` …: right after taking the lock, the first thing it does is check `self._closed`": "it" is the function named before.
  const pronounChecker = !subjectCode && lead.some((t) => t.normal === 'it') ? functionBefore(sentence, guardAt) : undefined;
  const checker = subjectCode && /\(\)$/.test(subjectCode.mask!.text.trim()) ? functionName(subjectCode) : pronounChecker;
  const after = sentence.terms.slice(guardAt + 1).filter((t) => t.text !== '');
  const between = subjectCode ? lead.slice(lead.indexOf(subjectCode) + 1) : [];
  if (pronounChecker && guardAt > 0 && CHECK_VERB.test(sentence.terms[guardAt]!.normal)) {
    // Where it checks is said around the clause ("right after taking the lock, the first thing it does").
    const words = after
      .filter((t) => t.mask?.kind === 'code')
      .slice(0, 1)
      .flatMap((t) => namesIn(t.mask!.text))
      .filter((w) => w.length >= 3 && w !== 'self');
    const clauseTerms = sentence.terms.filter((t) => t.clause >= sentence.terms[guardAt]!.clause - 1 && t.text !== '');
    if (words.length) targets.push({ kind: 'placement', names: [], guard: words, files, scope: pronounChecker, ...positionIn(clauseTerms) });
  } else if (
    guardAt > 0 &&
    checker &&
    CHECK_VERB.test(sentence.terms[guardAt]!.normal) &&
    between.every((t) => t.tags.has('Adverb') || t.tags.has('Modal') || t.tags.has('Auxiliary') || /^(?:will|now|also|then|first)$/.test(t.normal))
  ) {
    // "`request()` now checks `self._closed` first": the function is the subject, the condition its object.
    const words = after
      .filter((t) => t.mask?.kind === 'code')
      .slice(0, 1)
      .flatMap((t) => namesIn(t.mask!.text))
      .filter((w) => w.length >= 3 && w !== 'self');
    if (words.length) targets.push({ kind: 'placement', names: [], guard: words, files, scope: checker, ...positionIn(after) });
  } else if (guardAt > 0 && guardIsSubject && (after.some((t) => FIRST_WORD.test(t.normal)) || positionIn(after).anchor)) {
    // "Bypass check is the first statement in `get()`", "the bypass check is the first thing `get()` does",
    // "the `max_bytes` check runs before the call to `self._write(chunk)`" (in the function named before).
    const at = positionIn(after);
    const scope = [
      placeFunction(after),
      ...after.map((t) => (t.mask && /\(\)$/.test(t.mask.text) ? functionName(t) : undefined)),
      // "… the first thing it does": the function named before.
      after.some((t) => t.normal === 'it') ? functionBefore(sentence, guardAt) : undefined,
      placeFunction(lead.filter((t) => !t.mask || /\(\)$/.test(t.mask.text.trim()))),
      placeFunction(sentence.terms.slice(0, guardAt).filter((t) => t.clause < sentence.terms[guardAt]!.clause)),
    ].find((name) => name && name !== at.anchor?.replace(/^.*[.:]/, ''));
    const shown = guardAt === shownAt ? conditionNames(sentence.terms[guardAt]!.mask!.text) : [];
    const described = lead
      .filter(
        (t) =>
          t.text !== '' &&
          !t.tags.has('Determiner') &&
          !LOCATION.test(t.normal) &&
          (t.tags.has('Noun') || t.tags.has('Adjective') || t.tags.has('Verb') || t.mask),
      )
      .filter((t) => !(t.mask && functionName(t) === scope))
      .flatMap((t) => (t.mask ? namesIn(t.mask.text) : [t.normal]));
    const words = [...shown, ...described];
    if (scope && words.length) targets.push({ kind: 'placement', names: [], guard: words, files, scope, ...at });
  }
  const clauses = new Set(sentence.terms.map((t) => t.clause));
  // "`offset` is in and `Kind` is exported from src/lib.rs": a file named in a clause with its own code subject is that clause's.
  const clauseFiles = (clause: number) => sentence.terms.filter((t) => t.clause === clause && t.mask?.kind === 'file').map((t) => t.mask!.text);
  const subjectClauses = [...clauses].filter(
    (c) => sentence.terms.find((t) => t.clause === c && t.text !== '' && !/^(?:and|but|or|also)$/.test(t.normal))?.mask?.kind === 'code',
  );
  const sharedFiles = [...clauses].filter((c) => !subjectClauses.includes(c)).flatMap(clauseFiles);
  let previous: string[] = [];
  for (const clause of clauses) {
    const clauseTerms = sentence.terms.filter((t) => t.clause === clause && t.text !== '');
    const files = subjectClauses.length > 1 ? (clauseFiles(clause).length ? clauseFiles(clause) : sharedFiles) : allFiles;
    // "The `strict` option is in", "my `tick()` landed": the sender's own code after a determiner.
    // "…, and `retry_count` support landed": a new subject after the conjunction.
    const terms = /^(?:the|my|our|and|but)$/.test(clauseTerms[0]?.normal ?? '') && clauseTerms[1]?.mask ? clauseTerms.slice(1) : clauseTerms;
    // The subject: code names, possibly joined ("`max_items` and `flush_every` stay untouched").
    const firstWord = terms.findIndex((t, i) => !t.mask && !(/^(?:and|or|both|&)$/.test(t.normal) && terms[i - 1]?.mask && terms[i + 1]?.mask));
    // "`X` is done and exported": the clause after "and" keeps the subject.
    const continued =
      firstWord === 0 &&
      /^(?:and|but|also)$/.test(terms[0]?.normal ?? '') &&
      previous.length > 0 &&
      (terms[1]?.tags.has('Verb') === true || terms[1]?.tags.has('Adverb') === true);
    if (firstWord < 0 || (firstWord === 0 && !continued)) continue;
    const subject = continued ? [] : terms.slice(0, firstWord);
    // "`parse_headers()` / lines 18–27 is yours": what the sender gives the partner, it leaves alone.
    const given = stateWord(terms.slice(firstWord).map((t) => t.normal)) === 'yours' && /^(?:is|are|'s)$/.test(terms[firstWord]!.normal);
    const ranges = subject.filter((t) => t.mask?.kind === 'lines');
    // "lines 24–28 untouched": a line range as the subject.
    if (ranges.length && (given || (subject.length === 1 && terms.slice(firstWord, firstWord + 3).some((t) => UNCHANGED.test(t.normal))))) {
      for (const t of ranges) {
        const range = untouchedRange(t.mask!, files);
        if (range) targets.push(range);
      }
      continue;
    }
    const names = continued ? previous : codeOf(subject);
    if (given && names.length) {
      targets.push({ kind: 'untouched_symbol', names, files });
      continue;
    }
    // "`render()`'s arguments are unchanged" is about its parameters (parameterListTargets), not its body.
    if (names.length === 0 || (!continued && namesParameterList(terms))) continue;
    previous = names;
    // "`config=` support landed", "the `tick()` method is in": the noun the code names is part of the subject.
    const head = !continued && (DEFINITION_NOUN.test(terms[firstWord]!.normal) || /^(?:support|handling)$/.test(terms[firstWord]!.normal)) ? 1 : 0;
    const rest = terms.slice(continued ? 1 : firstWord + head);
    const words = rest.map((t) => t.normal);
    if (words.some((w) => /^(?:not|n't|never|no)$/.test(w)) && !words.some((w) => /^(?:change|changes|changed|edit|edits|touch)$/.test(w))) continue;
    const said = rest.map((t) => t.text).join(' ');
    if (words.some((w) => UNCHANGED.test(w)) || /\b(?:as (?:it|they) (?:is|are)|as[ -]is|won't change|will not change|not change)\b/i.test(said)) {
      targets.push({ kind: 'untouched_symbol', names, files });
    } else if (
      words.some((w) => EXPORTED_WORD.test(w)) ||
      (words.includes('available') && rest.some((t, i) => t.mask && /^(?:from|via)$/.test(rest[i - 1]?.normal ?? '')))
    ) {
      // "`X` is exported", "`X` is importable from `pkg`", "`X` is available from src/index.ts".
      targets.push({ kind: 'exported', names, files, module: moduleAfter(rest) ?? files[0] });
    } else if (
      PRESENT.test(stateWord(words) ?? '') &&
      (/^(?:is|are|was|were|'s|has|have)$/.test(words[0] ?? '') ||
        /^(?:done|landed|added|implemented|finished|merged|complete|completed)$/.test(stateWord(words)!))
    ) {
      // "`X` is in", "`tick()` landed", "`max_length` done", "`X` has now landed".
      targets.push({ kind: 'exists', names, files });
    }
  }
  return targets;
}

const CHANGE_WORD = /^(?:change|changes|changed|touched|edited|modified|removed|renamed|altered|reordered|dropped)$/;

/** "The current parameters stay as they are", "signature otherwise unchanged", "none of its existing arguments gets renamed". */
function parameterListTargets(sentence: Sentence): Target[] {
  const terms = sentence.terms.filter((t) => t.text !== '');
  const at = terms.findIndex((t, i) => PARAMETER_NOUN.test(t.normal) && namesParameterList(terms.slice(Math.max(0, i - 3), i + 1)));
  if (at < 0) return [];
  const before = terms.slice(Math.max(0, at - 5), at);
  const after = terms.slice(at + 1, at + 8);
  const words = after.map((t) => t.normal);
  const unchanged =
    words.some((w) => UNCHANGED.test(w) || w === 'unchange') ||
    /\bas (?:before|it was|they were|it is|they are)\b|\bas[ -]is\b/i.test(span(after)) ||
    ([...before, ...after].some((t) => /^(?:no|none|not|n't|never|nothing)$/.test(t.normal)) && words.some((w) => CHANGE_WORD.test(w)));
  // "`render()`'s arguments": the owner before the noun.
  const owner = terms.slice(Math.max(0, at - 3), at).find((t) => t.mask?.kind === 'code' && /'s$/.test(t.text));
  return unchanged ? [parameterList(fileMasks(sentence), placeFunction(after) ?? functionName(owner), sentence)] : [];
}

const STATE_VERB = /^(?:is|are|was|were|'s|has|have|stays?|stayed|remains?|remained|goes|go|went|lands?|landed|looks?)$/;

/**
 * Clauses whose subject names code by reference: "the existing keyword arguments are unchanged",
 * "no existing keyword argument changed", "your lines are untouched", "the EXIF step is in",
 * "the registry functions are exported".
 */
function referringSubjectTargets(sentence: Sentence): Target[] {
  const targets: Target[] = [];
  const files = fileMasks(sentence);
  for (const clause of new Set(sentence.terms.map((t) => t.clause))) {
    // Contractions keep their verb as a term without text ("They're": they, are).
    const terms = sentence.terms.filter((t) => t.clause === clause && (t.text !== '' || t.normal !== ''));
    const verbAt = terms.findIndex((t) => t.tags.has('Verb'));
    if (verbAt <= 0) continue;
    const subject = terms.slice(/^(?:and|but|so|also)$/.test(terms[0]!.normal) ? 1 : 0, verbAt);
    // "They're in", "Both will be exported": the code the sender named last.
    const pronoun = subject.length > 0 && subject.every((t) => /^(?:they|both|these|those|it|all)$/.test(t.normal));
    if (
      subject.length === 0 ||
      subject.some((t) => t.mask?.kind === 'code' || (t.tags.has('Pronoun') && !/^(?:your|their|no|nothing|none)$/.test(t.normal) && !pronoun))
    )
      continue;
    const rest = terms.slice(verbAt);
    // "will be exported", "'ll be in": the state after the modal.
    const words = rest.map((t) => t.normal).filter((w, i, all) => !(i === 0 && /^(?:will|shall)$/.test(w) && /^(?:be|get|stay|go|land)$/.test(all[1] ?? '')));
    const negated = terms.some((t) => /^(?:no|not|n't|never|none|nothing)$/.test(t.normal));
    const unchanged =
      (negated && words.some((w) => /^(?:change|changes|changed|touched|edited|modified|removed|renamed|altered)$/.test(w))) ||
      words.some((w) => UNCHANGED.test(w) || w === 'unchange') ||
      /\bas (?:before|it was|they were)\b/i.test(span(rest));
    if (unchanged) {
      const refers = namesParameterList(subject) ? undefined : partnerWork(subject);
      if (refers) targets.push({ kind: 'untouched_lines', names: [], files, refers });
      continue;
    }
    if (negated || !(STATE_VERB.test(words[0] ?? '') || /^(?:be|get)$/.test(words[0] ?? '')) || subject.some((t) => /^(?:your|their)$/.test(t.normal)))
      continue;
    const described = describingWords(subject);
    if (described.length === 0 && !pronoun) continue;
    const refers: Reference = pronoun ? { to: 'previous' } : { to: 'described', words: described, functions: meansFunctions(subject) };
    const state = stateWord(words) ?? '';
    if (words.some((w) => EXPORTED_WORD.test(w) && w !== 'public'))
      targets.push({ kind: 'exported', names: [], files, module: moduleAfter(rest) ?? importedFrom(sentence) ?? files[0], refers });
    else if (PRESENT.test(state) || (/^(?:goes|go|went|lands?|landed)$/.test(words[0]!) && /^(?:in|into)$/.test(words[1] ?? '')))
      targets.push({ kind: 'exists', names: [], files, refers });
  }
  return targets;
}

/** The text of terms, masks restored. */
const span = (terms: readonly Term[]) => terms.map((t) => t.mask?.text ?? t.text).join(' ');

/** "No edits to `X`", "without touching `X`", "not touching `X`": the sender leaves X alone. */
function untouchedPhrases(sentence: Sentence): Target[] {
  const targets: Target[] = [];
  sentence.terms.forEach((t, i) => {
    const next = sentence.terms.slice(i + 1, i + 6);
    const negated =
      /^(?:no|without|not|never|zero)$/.test(t.normal) && /^(?:edits?|changes?|touching|touch|modifying|changing|editing|touches)$/.test(next[0]?.normal ?? '');
    if (!negated) return;
    // What is left alone follows within a few words ("no edits to `X`"); the partner's work may take more ("no changes to your section").
    const code = next.slice(1, 3).find((x) => x.mask && x.mask.kind !== 'lines');
    const lines = next.slice(1, 3).find((x) => x.mask?.kind === 'lines');
    if (namesParameterList(next)) {
      const scope = placeFunction(next);
      targets.push(parameterList(fileMasks(sentence), scope, sentence));
    } else if (lines) {
      const range = untouchedRange(lines.mask!, fileMasks(sentence));
      if (range) targets.push(range);
    } else if (code?.mask?.kind === 'code') {
      const names = symbolsIn(code.mask.text);
      if (names.length) targets.push({ kind: 'untouched_symbol', names, files: fileMasks(sentence) });
    } else if (code?.mask?.kind === 'file') {
      targets.push({ kind: 'untouched_symbol', names: [], files: [code.mask.text] });
    } else {
      // "no edits to your lines", "without touching your code".
      const refers = partnerWork(next.slice(1));
      if (refers) targets.push({ kind: 'untouched_lines', names: [], files: fileMasks(sentence), refers });
    }
  });
  return targets;
}

/** Nouns that name a kind of definition: "a `tick()` method", "a new helper `parseIso()`". */
const DEFINITION_NOUN =
  /^(?:helper|helpers|function|functions|func|fn|method|methods|class|struct|type|interface|enum|trait|field|fields|attribute|attr|property|constant|variable|parameter|param|argument|arg|kwarg|keyword|option|flag|setting|decorator|wrapper|constructor)$/;
const PARAMETER_KIND = /^(?:parameter|param|argument|arg|kwarg|keyword|option|flag)$/;
const MEMBER_KIND = /^(?:field|fields|attribute|attr|property|method|methods)$/;
/** Determiners that introduce something not there before: one does not say "a `parse()`" of existing code. */
const INTRODUCING = /^(?:a|an|new|another)$/;
/** Words inside such a noun phrase that say only what the new code is like. */
const PHRASE_WORD =
  /^(?:new|exported|public|private|optional|trailing|small|tiny|separate|dedicated|single|multi-line|module-level|top-level|static|internal|extra|additional)$/;

/**
 * New code introduced by an indefinite noun phrase in the sender's own plan or report: "a new `tick()`
 * method in batcher.py", "a `select_columns()` helper", "a `delimiter` parameter on `read_rows()`"
 * (a parameter of that function), "a `filters` field on `Prompt`" (a member of that class), "size.go:
 * new exported func `ParseSize()`". A code word followed by another noun describes that noun ("a
 * `disabled` bypass"), and code after "of", "like", "such as" is an example, not a definition.
 */
function newCodeTargets(sentence: Sentence): Target[] {
  const targets: Target[] = [];
  const terms = sentence.terms.filter((t) => t.text !== '');
  const files = fileMasks(sentence);
  terms.forEach((t, i) => {
    if (!INTRODUCING.test(t.normal) || (i > 0 && INTRODUCING.test(terms[i - 1]!.normal))) return;
    if (/^(?:like|as|of|than|your|their)$/.test(terms[i - 1]?.normal ?? '')) return;
    // The phrase: describing words and at most one kind noun, then the code (or the code, then its kind noun).
    let j = i + 1;
    let kind: string | undefined;
    while (j < terms.length && j <= i + 4 && !terms[j]!.mask) {
      const w = terms[j]!.normal;
      if (DEFINITION_NOUN.test(w) && !kind) kind = w;
      else if (!(PHRASE_WORD.test(w) || (terms[j]!.tags.has('Adjective') && !terms[j]!.tags.has('Verb')))) return;
      j++;
    }
    const code = terms[j];
    if (code?.mask?.kind !== 'code' || code.clause !== t.clause) return;
    const next = terms[j + 1];
    if (!kind && next && DEFINITION_NOUN.test(next.normal)) {
      kind = next.normal;
      j++;
    } else if (!kind && next && next.tags.has('Noun') && !next.mask && !/^(?:and|or|plus|in|on|to|for|at|below|above|after|before)$/.test(next.normal)) return;
    const names = symbolsIn(code.mask.text);
    if (names.length === 0) return;
    // "… on `read_rows()`", "… to the `prompt` decorator", "… on `Editor.__init__`": what it belongs to.
    const at = terms[j + 1];
    const ownerTerm = at && /^(?:on|to|for|of|in|into|inside)$/.test(at.normal) ? terms.slice(j + 2, j + 4).find((x) => x.mask) : undefined;
    const owner = ownerTerm?.mask?.kind === 'code' ? symbolsIn(ownerTerm.mask.text)[0] : undefined;
    // "a public method" of a class is visible from the class, not exported from the module.
    const exported = terms.slice(i, j).some((x) => x.normal === 'exported' || (x.normal === 'public' && !(kind && MEMBER_KIND.test(kind))));
    if (exported) targets.push({ kind: 'exported', names, files, module: files[0] });
    else if (owner && kind && PARAMETER_KIND.test(kind)) targets.push({ kind: 'exists', names, files, scope: owner.replace(/^.*[.:]/, '') });
    else if (owner && kind && MEMBER_KIND.test(kind)) targets.push({ kind: 'exists', names: names.map((n) => `${owner}.${n.replace(/^.*[.:]/, '')}`), files });
    else targets.push({ kind: 'exists', names, files });
  });
  return targets;
}

/** Words that call, apply or run code: "calling it from `parse_line()`", "`handle()` runs `use()`". */
const CALLING = /^(?:call|calls|calling|called|invoke|invokes|invoking|invoked|apply|applies|applying|applied)$/;
const FROM_PLACE = /^(?:from|in|inside|within)$/;
/** A place verb a guard's claim uses: "the guard `if l.disabled` sits in `Allow()`". */
const SITS = /^(?:sits|sit|is|lives|live|goes|go|runs|run|happens|happen|comes|come|stays)$/;

/** The function named last in the clauses before the one at `index`: what "it" refers to ("… `next_job()` …: the check is the first thing it does"). */
function functionBefore(sentence: Sentence, index: number): string | undefined {
  return sentence.terms
    .slice(0, index)
    .filter((t) => t.clause < sentence.terms[index]!.clause && t.mask?.kind === 'code' && /\(\)$/.test(t.mask.text.trim()))
    .map((t) => functionName(t))
    .at(-1);
}

/** The function a code term names, when the sentence means a function there (`get()`, `Cache.get`, `parseDuration`). */
function functionName(term: Term | undefined): string | undefined {
  if (term?.mask?.kind !== 'code') return undefined;
  const name = symbolsIn(term.mask.text)[0];
  return name && IDENTIFIER.test(term.mask.text.trim()) ? name.replace(/^.*[.:]/, '') : undefined;
}

/**
 * Where the sender says a call sits, whatever the clause's verb: "calling it from `parse_line()`",
 * "`parseIsoDuration()`, called from `parseDuration`", "`create_jinja_env()` now calls `apply()`".
 * "It"/"them" refer to the code named before in the sentence.
 */
function callPlacementTargets(sentence: Sentence): Target[] {
  const terms = sentence.terms.filter((t) => t.text !== '');
  const files = fileMasks(sentence);
  const targets: Target[] = [];
  const push = (names: string[], scope: string | undefined) => {
    const called = names.map((n) => n.replace(/^.*[.:]/, '')).filter((n) => n !== scope);
    if (called.length && scope) targets.push({ kind: 'placement', names: called, files, scope });
  };
  terms.forEach((t, i) => {
    if (!CALLING.test(t.normal)) return;
    const next = terms[i + 1];
    if (t.normal === 'called' && next && FROM_PLACE.test(next.normal)) {
      // Passive: the code named last before "called" is what is called.
      const before = terms
        .slice(0, i)
        .reverse()
        .find((x) => x.mask?.kind === 'code');
      push(before ? symbolsIn(before.mask!.text) : [], functionName(terms[i + 2]));
      return;
    }
    // Active: "calling `X` from `Y`", "calling it from `Y`".
    const objectAt = next && /^(?:the|a|an|my|our|new)$/.test(next.normal) ? i + 2 : i + 1;
    const object = terms[objectAt];
    const names =
      object?.mask?.kind === 'code'
        ? symbolsIn(object.mask.text)
        : object && /^(?:it|them|both|this)$/.test(object.normal)
          ? codeOf(terms.slice(0, i)).slice(-1)
          : [];
    const from = terms.findIndex((x, j) => j > objectAt && j <= objectAt + 3 && FROM_PLACE.test(x.normal));
    if (from >= 0) return push(names, functionName(terms[from + 1]));
    // Code subject: "`Y()` (now) calls `X`".
    const subject = terms
      .slice(Math.max(0, i - 2), i)
      .reverse()
      .find((x) => x.mask?.kind === 'code');
    const between = subject ? terms.slice(terms.indexOf(subject) + 1, i) : [];
    if (
      subject &&
      /\(\)$/.test(subject.mask!.text.trim()) &&
      /^(?:calls|invokes|applies)$/.test(t.normal) &&
      between.every((x) => /^(?:now|also|then|already)$/.test(x.normal))
    ) {
      push(names, functionName(subject));
    }
  });
  return targets;
}

/** A guard said to sit in a function, with its condition or what it checks: "The guard `if l.disabled …` sits … in `Allow()`". */
function guardPlacementTargets(sentence: Sentence): Target[] {
  const terms = sentence.terms.filter((t) => t.text !== '');
  const at = terms.findIndex((t) => GUARD_NOUN.test(t.normal));
  if (at < 0) return [];
  const described = terms
    .slice(Math.max(0, at - 2), at)
    .filter((t) => t.mask?.kind === 'code' || (!t.tags.has('Determiner') && (t.tags.has('Noun') || t.tags.has('Adjective'))));
  const shown = terms[at + 1]?.mask?.kind === 'code' && /^\s*if\b/.test(terms[at + 1]!.mask!.text) ? [terms[at + 1]!] : [];
  const words = [...described, ...shown].flatMap((t) => (t.mask ? namesIn(t.mask.text) : [t.normal])).filter((w) => w.length >= 3);
  // "The guard sits … in `Allow()`", "the closed check in `acquire()` comes right after …".
  const rest = terms.slice(at + 1 + shown.length).filter((t) => t.clause === terms[at]!.clause);
  const verbAt = rest.findIndex((t) => t.tags.has('Verb'));
  if (!words.length || verbAt < 0 || !SITS.test(rest[verbAt]!.normal)) return [];
  const scopeAt = rest.findIndex((t, i) => i > 0 && FROM_PLACE.test(rest[i - 1]!.normal) && functionName(t) !== undefined);
  if (scopeAt < 0) return [];
  return [{ kind: 'placement', names: [], guard: words, files: fileMasks(sentence), scope: functionName(rest[scopeAt]), ...positionIn(rest.slice(verbAt)) }];
}

/**
 * New code placed in a file: "`BatchConfig` lives in a new batchkit/config.py", "In a new words.py:
 * `STOP_WORDS` and `drop_stop_words()`", "`tick()` goes into batcher.py". The partner's code ("your
 * `ParseSize`") and called code are not the sender's to add.
 */
function newFileTargets(sentence: Sentence): Target[] {
  const terms = sentence.terms.filter((t) => t.text !== '');
  const fileAt = terms.findIndex(
    (t, i) => t.mask?.kind === 'file' && (terms.slice(Math.max(0, i - 2), i).some((x) => x.normal === 'new') || /^\(?new\)?$/.test(terms[i + 1]?.normal ?? '')),
  );
  const goesAt = terms.findIndex(
    (t, i) => /^(?:goes|go|lands|land)$/.test(t.normal) && /^(?:in|into|to)$/.test(terms[i + 1]?.normal ?? '') && terms[i + 2]?.mask?.kind === 'file',
  );
  const at = fileAt >= 0 ? fileAt : goesAt >= 0 ? goesAt + 2 : -1;
  if (at < 0) return [];
  const names = terms
    .filter(
      (t, i) =>
        t.mask?.kind === 'code' && !/^(?:your|their|his|her|calls?|calling|uses?|using|from|after|before|below|above)$/.test(terms[i - 1]?.normal ?? ''),
    )
    .flatMap((t) => symbolsIn(t.mask!.text));
  return names.length ? [{ kind: 'exists', names: [...new Set(names)], files: [terms[at]!.mask!.text] }] : [];
}

function sentenceCommitments(sentence: Sentence): { kind: Commitment['kind']; target: Target }[] {
  if (sentence.questionMark || isConditional(sentence)) return [];
  const found: { kind: Commitment['kind']; target: Target }[] = [];
  const stated = sentence.verbs.some((v) => v.tense === 'future' || /^(?:will|doing)$/.test(stanceOf(sentence, v))) ? 'promise' : 'claim';
  const asked = sentence.verbs.some(
    (v) => (v.subject === 'second' && !subordinate(sentence, v)) || (v.form === 'imperative' && v.subject === 'none' && stanceOf(sentence, v) === 'none'),
  );
  const placements = asked ? [] : [...callPlacementTargets(sentence), ...guardPlacementTargets(sentence), ...newFileTargets(sentence)];
  for (const target of [
    ...codeSubjectTargets(sentence),
    ...(asked ? [] : [...referringSubjectTargets(sentence), ...parameterListTargets(sentence)]),
    // "Please don't change the signature of `render()`" asks the partner; it commits the sender to nothing.
    ...(/^\W*(?:please|pls|kindly|don't|do not)\b/i.test(sentence.text) ? [] : untouchedPhrases(sentence)),
    ...placements,
  ]) {
    if (!found.some((f) => JSON.stringify(f.target) === JSON.stringify(target)))
      found.push({ kind: stated === 'claim' && sentence.listItem ? 'promise' : stated, target });
  }
  // New code in the sender's plan ("I'm handling X: a `deadline` argument on …") or report ("Took X: a `Timer` class").
  const own = ownWork(sentence);
  if (!asked && (stated === 'promise' || sentence.listItem || own)) {
    const kind = stated === 'promise' || sentence.listItem || own !== 'did' ? 'promise' : 'claim';
    for (const target of newCodeTargets(sentence)) if (!found.some((f) => JSON.stringify(f.target) === JSON.stringify(target))) found.push({ kind, target });
  }
  for (const verb of sentence.verbs) {
    const stance = coordinatedStance(sentence, verb) ?? stanceOf(sentence, verb);
    const target =
      verb.subject === 'other'
        ? stance === 'did'
          ? passiveTarget(sentence, verb)
          : undefined
        : stance === 'will' || stance === 'doing' || stance === 'did'
          ? targetOf(sentence, verb)
          : undefined;
    if (!target) continue;
    const kind = stance === 'did' ? 'claim' : 'promise';
    // "add `satisfies()` …, both exported": adding and exporting are two promises, the symbol exists and is exported.
    const added =
      target.kind === 'exported' && CREATE.test(headLemma(sentence, verb))
        ? [{ kind: 'exists' as const, names: target.names, files: target.files, ...(target.refers && { refers: target.refers }) }]
        : [];
    for (const t of [target, ...added]) if (!found.some((f) => JSON.stringify(f.target) === JSON.stringify(t))) found.push({ kind, target: t });
  }
  for (const target of ownCodeTargets(sentence)) {
    if (!found.some((f) => JSON.stringify(f.target) === JSON.stringify(target))) found.push({ kind: 'claim', target });
  }
  for (const target of definitionOrderTargets(
    sentence,
    found.map((f) => f.target),
  )) {
    if (!found.some((f) => JSON.stringify(f.target) === JSON.stringify(target))) found.push({ kind: found[0]!.kind, target });
  }
  return found;
}

/**
 * The sender's own function, named as such: "my `render_cached()` in views/cache.py calls it" says it
 * is there. Only in a statement (no question, condition or request) and only for a function, so that
 * "my `--strict` run" names nothing defined.
 */
function ownCodeTargets(sentence: Sentence): Target[] {
  const terms = sentence.terms.filter((t) => t.text !== '');
  return terms
    .filter((t, i) => /^(?:my|our)$/.test(terms[i - 1]?.normal ?? '') && t.mask?.kind === 'code' && /^[A-Za-z_$][\w$.]*\(\)$/.test(t.mask.text.trim()))
    .map((t) => ({ kind: 'exists', names: symbolsIn(t.mask!.text), files: fileMasks(sentence) }));
}

/** Where a new definition goes relative to another: "below", "after", "under" it, "above", "before" it, "between" two. */
const DEFINITION_ORDER: Record<string, 'before' | 'after'> = {
  below: 'after',
  after: 'after',
  under: 'after',
  beneath: 'after',
  between: 'after',
  above: 'before',
  before: 'before',
};

/**
 * New definitions the sentence places next to existing ones: "a new `tick()` method below `flush()`",
 * "`tick()` goes into batcher.py after `flush()`", "between `image_to_base64` and `describe`". The
 * relative word follows the new name in the same stretch of words, before any other verb.
 */
function definitionOrderTargets(sentence: Sentence, targets: readonly Target[]): Target[] {
  const created = new Set(targets.filter((t) => t.kind === 'exists' && !t.scope).flatMap((t) => t.names));
  if (created.size === 0) return [];
  const terms = sentence.terms.filter((t) => t.text !== '');
  const found: Target[] = [];
  terms.forEach((t, i) => {
    const name = t.mask?.kind === 'code' ? symbolsIn(t.mask.text).find((n) => created.has(n)) : undefined;
    if (!name) return;
    for (let j = i + 1; j < Math.min(terms.length, i + 10); j++) {
      const x = terms[j]!;
      if (x.mask?.kind === 'code' || (x.tags.has('Verb') && !SITS.test(x.normal) && !/^(?:lands?|will|be)$/.test(x.normal))) return;
      const position = DEFINITION_ORDER[x.normal];
      if (!position) continue;
      const anchorTerm = terms.slice(j + 1, j + 3).find((y) => y.mask);
      const anchor = anchorTerm?.mask?.kind === 'code' ? symbolsIn(anchorTerm.mask.text)[0] : undefined;
      // "AFTER line 28, i.e. between `a` and `b`": a line number is not a definition; read on.
      if (!anchor || anchor === name) continue;
      found.push({ kind: 'placement', names: [name], files: fileMasks(sentence), position, anchor, definition: true });
      return;
    }
  });
  return found;
}

/** A verb in a subordinate clause ("as you named it", "so your CLI can call them") tells, it does not ask. */
function subordinate(sentence: Sentence, verb: VerbPhrase): boolean {
  return sentence.terms
    .slice(0, verb.start)
    .some((t) => t.clause === verb.clause && /^(?:as|since|because|so|when|while|once|that|which|like|where|until|whenever)$/.test(t.normal));
}

/** The sender says what it does, is doing or did ("I'm doing `--select`: …", "Taking src/parse.ts: …"). */
function ownWork(sentence: Sentence): 'will' | 'did' | undefined {
  const stances = sentence.verbs.filter((v) => v.subject === 'first' || v.subject === 'none').map((v) => stanceOf(sentence, v));
  return stances.some((s) => s === 'will' || s === 'doing') ? 'will' : stances.includes('did') ? 'did' : undefined;
}

/** "I'll add `X` and keep clear of …": a verb joined by "and" with no subject of its own shares the sender's stance. */
function coordinatedStance(sentence: Sentence, verb: VerbPhrase): ReturnType<typeof stanceOf> | undefined {
  if (verb.subject !== 'none' || stanceOf(sentence, verb) !== 'none') return undefined;
  const before = sentence.terms.slice(0, verb.start).filter((t) => t.text !== '' && !t.tags.has('Adverb'));
  if (!/^(?:and|or|then)$/.test(before.at(-1)?.normal ?? '')) return undefined;
  const lead = sentence.verbs.filter((v) => v.index < verb.start && v.subject === 'first').at(-1);
  const stance = lead && stanceOf(sentence, lead);
  return stance === 'will' || stance === 'doing' || stance === 'did' ? stance : undefined;
}

/** A request of the partner's with a checkable target ("Please export `LRUCache` from __init__.py"). */
function requestTargets(sentence: Sentence): Target[] {
  if (isConditional(sentence)) return [];
  const targets: Target[] = [];
  for (const verb of sentence.verbs) {
    // "I'll add `X` … and export it": a verb joined to the requester's own plan is not a request.
    if (verb.subject === 'first' || stanceOf(sentence, verb) !== 'none' || coordinatedStance(sentence, verb)) continue;
    // "I'm taking lines 28-41 to add a `break_long_words` option": the purpose of the requester's own plan.
    if (sentence.terms[verb.start - 1]?.normal === 'to' && sentence.verbs.some((v) => v.index < verb.start && v.subject === 'first')) continue;
    const before = sentence.terms.slice(0, verb.start).filter((t) => t.text !== '' && t.clause === verb.clause);
    const asked = before.every(
      (t) =>
        /^(?:please|pls|also|and|so|then|just|kindly|could|can|would|will|you|now|first|make|sure|to|ensure|do|don't|not|never)$/.test(t.normal) ||
        t.tags.has('Adverb'),
    );
    if (!asked) continue;
    const target = targetOf(sentence, { ...verb, negative: verb.negative || before.some((t) => /^(?:don't|not|never)$/.test(t.normal)) });
    if (target) targets.push(target);
  }
  return targets;
}

const ACCEPTANCE =
  /^\W*(?:sure|ok|okay|will do|agreed|agree|sounds good|yes|yep|yeah|got it|deal|roger|on it|absolutely|of course|no problem|confirmed|perfect|great|understood|ack|works for me|fine by me|happy to|can do|noted|done|👍)\b/i;
const REFUSAL = /\b(?:won't|will not|can't|cannot|instead|rather not|prefer not|not going to|disagree|decline)\b|^\W*no\b/i;

/** What a reference stands for in the conversation so far; nothing when it resolves to nothing. */
function resolve(target: Target, agent: string, at: number, mentions: ConversationMentions): Target[] {
  const { refers, repeats, ...base } = target;
  // "keep clear of 10-19": bare numbers are lines when a range with those numbers was named before.
  if (repeats && !mentions.ranges.some((r) => r.at < at && r.lines[0] === base.lines![0] && r.lines[1] === base.lines![1])) return [];
  let resolved: Target[] = [base];
  if (refers?.to === 'partner_work') {
    const ranges = partnerRanges(mentions, agent, at).map((r): Target => ({ kind: 'untouched_lines', names: [], files: r.files, lines: r.lines }));
    const names = refers.only === 'all' ? [...new Set(partnerCode(mentions, agent, at).map((c) => c.name))] : [];
    resolved = [...ranges, ...(names.length ? [{ kind: 'untouched_symbol', names, files: base.files } as Target] : [])];
  } else if (refers?.to === 'parameters') {
    const scope = parameterScope(mentions, agent, at) ?? refers.fallback;
    resolved = scope ? [{ ...base, scope }] : [];
  } else if (refers?.to === 'previous' || refers?.to === 'described') {
    const code = refers.to === 'previous' ? previousCode(mentions, agent, at) : describedCode(mentions, agent, at, refers.words, refers.functions);
    const names = [...new Set(code.map((c) => c.name))];
    // The files the code was named with, where its sentence named them.
    const files = base.files.length ? base.files : [...new Set(code.filter((c) => c.filesNamed).flatMap((c) => c.files))];
    resolved = names.length ? [{ ...base, names, files }] : [];
  }
  return resolved.flatMap((t) => {
    if (t.module !== PACKAGE) return [t];
    // The package of the file the code lives in: named in the sentence, else where the sender last said it was.
    const file = t.files[0] ?? mentions.code.filter((c) => c.agent === agent && c.at < at && t.names.includes(c.name) && c.files.length).at(-1)?.files[0];
    const module = file ? packageModule(file) : undefined;
    return module ? [{ ...t, module }] : [];
  });
}

/**
 * What a target leaves unsaid, from the sender's earlier commitments on the same code: "The auth check
 * sits at the top of `handle()`" after "`if (!req.user) return deny(res);` as its first statement" is
 * that guard (the names its condition tests count too); "`load_profile` is done and exported" is
 * exported from the module promised before.
 */
function withEarlier(target: Target, agent: string, earlier: readonly Commitment[]): Target {
  const own = earlier.filter((c) => c.agent === agent);
  if (target.guard && target.scope) {
    const before = own.filter((c) => c.target.guard && c.target.scope === target.scope).flatMap((c) => c.target.guard!);
    return before.length ? { ...target, guard: [...new Set([...before, ...target.guard])] } : target;
  }
  if (target.kind === 'exported' && !target.module) {
    const module = own.filter((c) => c.target.kind === 'exported' && c.target.module && c.target.names.some((n) => target.names.includes(n))).at(-1)
      ?.target.module;
    return module ? { ...target, module } : target;
  }
  return target;
}

export function extractCommitments(conversation: readonly ConversationMessage[]): Commitment[] {
  const commitments: Commitment[] = [];
  const analysed = conversation.map((m) => messageSentences(m.message));
  const mentions = conversationMentions(conversation, analysed, symbolsIn, parameterOwner);
  const known = (messageId: number, target: Target) =>
    commitments.some((c) => c.messageId === messageId && JSON.stringify(c.target) === JSON.stringify(target));
  conversation.forEach((message, i) => {
    analysed[i]!.forEach((sentence, s) => {
      for (const { kind, target } of sentenceCommitments(sentence)) {
        for (const resolved of resolve(target, message.from, i * 1000 + s, mentions).map((t) => withEarlier(t, message.from, commitments))) {
          if (!known(message.id, resolved)) commitments.push({ messageId: message.id, agent: message.from, quote: sentence.text, kind, target: resolved });
        }
      }
    });
    // An acceptance commits the agent to the request it answers: the partner's last message before it.
    const opening = analysed[i]![0];
    if (!opening || !ACCEPTANCE.test(opening.text) || REFUSAL.test(message.message)) return;
    const request = conversation
      .slice(0, i)
      .reverse()
      .find((m) => m.from !== message.from && m.to.includes(message.from));
    if (!request) return;
    const requestIndex = conversation.indexOf(request);
    // An acceptance answers the message it follows: once the agent has written after the request, it answered there.
    if (conversation.slice(requestIndex + 1, i).some((m) => m.from === message.from)) return;
    for (const sentence of analysed[requestIndex]!) {
      for (const target of requestTargets(sentence).flatMap((t) => resolve(t, message.from, i * 1000, mentions))) {
        if (known(message.id, target)) continue;
        commitments.push({
          messageId: message.id,
          agent: message.from,
          quote: opening.text,
          kind: 'promise',
          target,
          request: { messageId: request.id, agent: request.from, quote: sentence.text },
        });
      }
    }
  });
  return commitments;
}

const WITHDRAWAL =
  /\b(?:won't|will not|not going to|no longer|instead|decided (?:not|against)|dropp(?:ed|ing)|skip(?:ped|ping)?|revert(?:ed|ing)?|not (?:add|adding|implement|implementing|needed|touch|touching)|you(?:['’]ll| will| can| should)?\s+(?:add|handle|take|implement|own|do))\b/i;

/** A later sentence of the same agent that takes the commitment back for `name` (a symbol or a file). */
export function withdrawal(conversation: readonly ConversationMessage[], commitment: Commitment, name: string): string | undefined {
  const named = new RegExp(`(?<![\\w$])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w$])`);
  for (const message of conversation) {
    if (message.id <= commitment.messageId || message.from !== commitment.agent) continue;
    const hit = messageSentences(message.message).find((s) => named.test(s.text) && WITHDRAWAL.test(s.text) && commitment.target.kind !== 'untouched_symbol');
    if (hit) return hit.text;
  }
  return undefined;
}
