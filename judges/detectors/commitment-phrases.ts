// Targets read from noun phrases and fixed constructions rather than the clause's verb
// (commitment-extract.ts): "no edits to `X`", "a new `tick()` method on `Batcher`", "calling it from
// `parse_line()`", "the guard `if l.disabled` sits in `Allow()`", "`BatchConfig` lives in a new
// config.py", "my `render_cached()`", "a new `tick()` below `flush()`".
import {
  codeOf,
  CONSTRUCTOR,
  fileMasks,
  filesFor,
  functionName,
  GUARD_NOUN,
  lastName,
  namesIn,
  placeFunction,
  symbolsIn,
  type Target,
  untouchedRange,
} from './commitment-code.ts';
import { positionIn } from './commitment-place-words.ts';
import { namesParameterList, partnerWork } from './commitment-references.ts';
import { parameterList } from './commitment-boundaries.ts';
import type { Sentence } from './language.ts';
import { wordIs } from './commitment-word-classes.ts';

/** "No edits to `X`", "without touching `X`", "not touching `X`": the sender leaves X alone. */
export function untouchedPhrases(sentence: Sentence): Target[] {
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

/**
 * New code introduced by an indefinite noun phrase in the sender's own plan or report: "a new `tick()`
 * method in batcher.py", "a `select_columns()` helper", "a `delimiter` parameter on `read_rows()`"
 * (a parameter of that function), "a `filters` field on `Prompt`" (a member of that class), "size.go:
 * new exported func `ParseSize()`". A code word followed by another noun describes that noun ("a
 * `disabled` bypass"), and code after "of", "like", "such as" is an example, not a definition.
 */
export function newCodeTargets(sentence: Sentence): Target[] {
  const targets: Target[] = [];
  const terms = sentence.terms.filter((t) => t.text !== '');
  terms.forEach((t, i) => {
    if (!wordIs('introducing', t.normal) || (i > 0 && wordIs('introducing', terms[i - 1]!.normal))) return;
    if (/^(?:like|as|of|than|your|their)$/.test(terms[i - 1]?.normal ?? '')) return;
    // The phrase: describing words and at most one kind noun, then the code (or the code, then its kind noun).
    // "`remaining` — a read-only property on `RateLimiter`": the name in apposition, before the phrase's dash or colon.
    const before = terms[i - 1];
    const nameBefore = before?.mask?.kind === 'code' && before.clause === t.clause - 1 && /[—–:-]/.test(before.post);
    let j = i + 1;
    let kind: string | undefined;
    while (j < terms.length && j <= i + 4 && !terms[j]!.mask) {
      const w = terms[j]!.normal;
      if (wordIs('definition-noun', w) && !kind) kind = w;
      else if (kind && nameBefore) break;
      else if (!(wordIs('phrase-word', w) || (terms[j]!.tags.has('Adjective') && !terms[j]!.tags.has('Verb')))) return;
      j++;
    }
    const namedBefore = kind !== undefined && nameBefore && !terms[j]?.mask;
    // The phrase ends at its kind noun: what follows ("on `RateLimiter`") is read from the noun on.
    if (namedBefore) j--;
    const code = namedBefore ? before : terms[j];
    // "an exported constructor, `NewLimiter(rate)`, that …": the name in apposition, after the phrase's comma.
    const apposition = code?.clause === t.clause + 1 && /,/.test(terms[j - 1]?.post ?? '');
    if (code?.mask?.kind !== 'code' || (code.clause !== t.clause && !apposition && !namedBefore)) return;
    const next = namedBefore ? undefined : terms[j + 1];
    // "a `with_retries()` builder method": a describing noun may come before the kind noun.
    const describedKind = next && !next.mask && next.tags.has('Noun') && wordIs('definition-noun', terms[j + 2]?.normal ?? '') ? 2 : 0;
    if (!kind && next && (wordIs('definition-noun', next.normal) || describedKind)) {
      kind = terms[j + 1 + (describedKind && 1)]!.normal;
      j += describedKind || 1;
    } else if (
      !kind &&
      next &&
      next.tags.has('Noun') &&
      !next.mask &&
      // "a `with_retries()` builder": a called name is a function, whatever noun follows.
      !/\(\)$/.test(code.mask.text.trim()) &&
      !/^(?:and|or|plus|in|on|to|for|at|below|above|after|before)$/.test(next.normal)
    )
      return;
    const names = symbolsIn(code.mask.text);
    if (names.length === 0) return;
    const files = filesFor(sentence, code);
    // "… on `read_rows()`", "… to the `prompt` decorator", "… on `Editor.__init__`": what it belongs to.
    const at = terms[j + 1];
    const ownerTerm = at && /^(?:on|to|for|of|in|into|inside)$/.test(at.normal) ? terms.slice(j + 2, j + 4).find((x) => x.mask) : undefined;
    const owner = ownerTerm?.mask?.kind === 'code' ? symbolsIn(ownerTerm.mask.text)[0] : undefined;
    // "a public method" of a class is visible from the class, not exported from the module.
    const exported = terms.slice(i, j).some((x) => x.normal === 'exported' || (x.normal === 'public' && !(kind && wordIs('member-kind', kind))));
    if (exported) targets.push({ kind: 'exported', names, files, module: files[0] });
    else if (owner && kind && wordIs('parameter-kind', kind)) targets.push({ kind: 'exists', names, files, scope: lastName(owner) });
    else if (owner && kind && wordIs('member-kind', kind)) targets.push({ kind: 'exists', names: names.map((n) => `${owner}.${lastName(n)}`), files });
    else targets.push({ kind: 'exists', names, files });
  });
  return targets;
}

/**
 * Where the sender says a call sits, whatever the clause's verb: "calling it from `parse_line()`",
 * "`parseIsoDuration()`, called from `parseDuration`", "`create_jinja_env()` now calls `apply()`".
 * "It"/"them" refer to the code named before in the sentence.
 */
export function callPlacementTargets(sentence: Sentence): Target[] {
  const terms = sentence.terms.filter((t) => t.text !== '');
  const files = fileMasks(sentence);
  const targets: Target[] = [];
  terms.forEach((t, i) => {
    if (!wordIs('calling', t.normal)) return;
    // "called in `request()` after `await this.send(req)` returns": where in the function, from this clause.
    const at = positionIn(terms.slice(i + 1).filter((x) => x.clause === t.clause));
    const push = (names: string[], scope: string | undefined) => {
      const called = names.map(lastName).filter((n) => n !== scope);
      if (called.length && scope) targets.push({ kind: 'placement', names: called, files, scope, ...at });
    };
    const next = terms[i + 1];
    const clauseFrom = (at: number) => terms.slice(at).filter((x) => x.clause === t.clause);
    // "In `submit()` it gets called right after `self._validate(payload)`": "it" is the code the sender named last.
    const clause = terms.filter((x) => x.clause === t.clause);
    const placeAt = clause.findIndex((x, j) => j > 0 && wordIs('from-place', clause[j - 1]!.normal) && functionName(x) !== undefined);
    const pronounSubject = /^(?:gets|get|is|be)$/.test(terms[i - 1]?.normal ?? '') && /^(?:it|this)$/.test(terms[i - 2]?.normal ?? '');
    if (t.normal === 'called' && pronounSubject && placeAt >= 0 && at.position) {
      targets.push({ kind: 'placement', names: [], files, scope: functionName(clause[placeAt]), ...at, refers: { to: 'previous' } });
      return;
    }
    const placeWord = next?.normal === 'up' ? i + 2 : i + 1;
    if (wordIs('called', t.normal) && wordIs('from-place', terms[placeWord]?.normal ?? '')) {
      // Passive: the code named last before "called" is what is called.
      const before = terms
        .slice(0, i)
        .reverse()
        .find((x) => x.mask?.kind === 'code');
      // "called from `f()`", "called in the constructor".
      push(before ? symbolsIn(before.mask!.text) : [], placeFunction(clauseFrom(placeWord)));
      return;
    }
    // Active: "calling `X` from `Y`", "calling it from `Y`".
    const objectAt = next && /^(?:the|a|an|my|our|new|your|their)$/.test(next.normal) ? i + 2 : i + 1;
    // "a helper that `__post_init__` calls; `prompt()` …": the next clause holds no object of the verb.
    const object = terms[objectAt]?.clause === t.clause ? terms[objectAt] : undefined;
    const names =
      object?.mask?.kind === 'code'
        ? symbolsIn(object.mask.text)
        : object && /^(?:it|them|both|this)$/.test(object.normal)
          ? codeOf(terms.slice(0, i)).slice(-1)
          : [];
    const from = terms.findIndex((x, j) => j > objectAt && j <= objectAt + 3 && wordIs('from-place', x.normal));
    if (from >= 0) return push(names, placeFunction(clauseFrom(from)));
    // Code subject: "`Y()` (now) calls `X`", "My `Y()` function will call your `X()`".
    const subject = terms
      .slice(Math.max(0, i - 4), i)
      .reverse()
      .find((x) => x.mask?.kind === 'code');
    const between = subject ? terms.slice(terms.indexOf(subject) + 1, i) : [];
    // A Python special method is a function without its parentheses: "`__exit__` just calls `close()`".
    if (
      subject &&
      /\(\)$|^[\w.]*__\w+__$/.test(subject.mask!.text.trim()) &&
      t.normal !== 'called' &&
      between.every(
        (x) => /^(?:now|also|then|already|will|function|method)$/.test(x.normal) || x.tags.has('Modal') || x.tags.has('Auxiliary') || x.tags.has('Adverb'),
      )
    ) {
      push(names, functionName(subject));
    } else if (!subject && t.normal !== 'called') {
      // "The constructor (now) calls `_check()`": a function named by what it is.
      let noun = i - 1;
      while (noun > 0 && (/^(?:now|also|then|already|will)$/.test(terms[noun]!.normal) || terms[noun]!.tags.has('Adverb') || terms[noun]!.tags.has('Modal')))
        noun--;
      if (CONSTRUCTOR.test(terms[noun]?.normal ?? '') && /^(?:the|our|my)$/.test(terms[noun - 1]?.normal ?? '')) push(names, '__init__');
    }
  });
  return targets;
}

/** A guard said to sit in a function, with its condition or what it checks: "The guard `if l.disabled …` sits … in `Allow()`". */
export function guardPlacementTargets(sentence: Sentence): Target[] {
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
  if (!words.length || verbAt < 0 || !wordIs('sits', rest[verbAt]!.normal)) return [];
  const scopeAt = rest.findIndex((t, i) => i > 0 && wordIs('from-place', rest[i - 1]!.normal) && functionName(t) !== undefined);
  if (scopeAt < 0) return [];
  return [{ kind: 'placement', names: [], guard: words, files: fileMasks(sentence), scope: functionName(rest[scopeAt]), ...positionIn(rest.slice(verbAt)) }];
}

/**
 * New code placed in a file: "`BatchConfig` lives in a new batchkit/config.py", "In a new words.py:
 * `STOP_WORDS` and `drop_stop_words()`", "`tick()` goes into batcher.py". The partner's code ("your
 * `ParseSize`") and called code are not the sender's to add.
 */
export function newFileTargets(sentence: Sentence): Target[] {
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

/**
 * The sender's own function, named as such: "my `render_cached()` in views/cache.py calls it" says it
 * is there. Only in a statement (no question, condition or request) and only for a function, so that
 * "my `--strict` run" names nothing defined.
 */
export function ownCodeTargets(sentence: Sentence): Target[] {
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
export function definitionOrderTargets(sentence: Sentence, targets: readonly Target[]): Target[] {
  const created = new Set(targets.filter((t) => t.kind === 'exists' && !t.scope).flatMap((t) => t.names));
  if (created.size === 0) return [];
  const terms = sentence.terms.filter((t) => t.text !== '');
  const found: Target[] = [];
  terms.forEach((t, i) => {
    const name = t.mask?.kind === 'code' ? symbolsIn(t.mask.text).find((n) => created.has(n)) : undefined;
    if (!name) return;
    for (let j = i + 1; j < Math.min(terms.length, i + 10); j++) {
      const x = terms[j]!;
      if (x.mask?.kind === 'code' || (x.tags.has('Verb') && !wordIs('sits', x.normal) && !/^(?:lands?|will|be)$/.test(x.normal))) return;
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
