// Targets of a sentence's verbs (commitment-extract.ts): the verb's lemma decides the kind ("add",
// "export", "leave … alone", "call"), its object and the place phrase after it the target; passive
// claims ("`X` was added to utils.py") and references ("the registry functions") included.
import {
  codeOf,
  conditionNames,
  fileMasks,
  functionName,
  GUARD_CODE,
  GUARD_NOUN,
  exportStatementNames,
  importedFrom,
  importedNames,
  lastName,
  LOCATION,
  moduleAfter,
  namesIn,
  ownCodeBefore,
  placeFunction,
  symbolsIn,
  type Target,
} from './commitment-code.ts';
import { positionIn } from './commitment-place-words.ts';
import { describingWords, meansFunctions, PARAMETER_NOUN, type Reference } from './commitment-references.ts';
import type { Sentence, Term, VerbPhrase } from './language.ts';
import { commits, stanceOf } from './stance.ts';
import { boundaryTarget } from './commitment-boundaries.ts';
import { verbIs } from './commitment-verb-words.ts';
import { wordIs } from './commitment-word-classes.ts';

interface Region {
  /** Terms of the verb's object, up to where its location begins. */
  object: Term[];
  /** The rest of the sentence after the object, until another agent's clause. */
  place: Term[];
}

/**
 * "`Optional` to the imports", "`pytest.mark.slow` to the long tests": the place the code goes to
 * holds no definitions (in lower case: `Doc` is a type).
 */
function addedToNoDefinitions(place: readonly Term[]): boolean {
  if (!/^(?:to|into)$/.test(place[0]?.normal ?? '')) return false;
  const noun = place.slice(1).find((t) => t.mask || !(t.tags.has('Determiner') || t.tags.has('Adjective') || t.tags.has('Possessive')));
  return noun !== undefined && !noun.mask && (wordIs('about-code', noun.text) || wordIs('used-list', noun.text));
}

/**
 * The object without what a word for writing about code is about, or what comes "around": "tests for
 * `parse` and `format`" make neither, "error handling around `requests.get`" no `requests.get`; "tests
 * and a `reset()` method" still make `reset()` (a new noun phrase, after "and").
 */
function withoutAboutCode(object: readonly Term[]): readonly Term[] {
  const at = object.findIndex((t) => !t.mask && (wordIs('about-code', t.normal) || t.normal === 'around'));
  if (at < 0) return object;
  const next = object.findIndex(
    (t, i) =>
      i > at && !t.mask && (t.tags.has('Determiner') || t.tags.has('Noun')) && (/^(?:and|plus)$/.test(object[i - 1]!.normal) || /,/.test(object[i - 1]!.post)),
  );
  return [...object.slice(0, at), ...(next < 0 ? [] : withoutAboutCode(object.slice(next)))];
}

/** "a metrics call to `request()`": a call a noun describes names no callee; "to" is where it goes. */
const describedCall = (terms: readonly Term[], at: number) => !!terms[at - 1] && !terms[at - 1]!.mask && terms[at - 1]!.tags.has('Noun');

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
      // "exported, with a `run()` method": what comes with it is not what is exported.
      (i === 0 && /^(?:from|into|via|inside|within|with)$/.test(t.normal)) ||
      (i > 0 &&
        // "call `record()` once `send()` has returned": "once" opens the place, as "after" does.
        ((LOCATION.test(t.normal) && !(t.normal === 'to' && /^(?:call|calls)$/.test(terms[i - 1]!.normal) && !describedCall(terms, i - 1))) ||
          t.normal === 'once' ||
          t.clause !== terms[0]!.clause)),
  );
  return end === -1 ? { object: terms, place: [] } : { object: terms.slice(0, end), place: terms.slice(end) };
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
export function headLemma(sentence: Sentence, verb: VerbPhrase): string {
  if (!/^(?:get|be|is|become|have|has)$/.test(verb.lemma)) return verb.lemma;
  // "haven't modified": the tagger may leave the participle out of the verb phrase.
  const next = sentence.terms.slice(verb.index + 1).find((t) => t.text !== '' && !t.tags.has('Adverb') && !/^(?:not|never)$/.test(t.normal));
  const head = /^(?:have|has)$/.test(verb.lemma) ? (/ed$/.test(next?.normal ?? '') ? next!.normal : '') : (sentence.terms[verb.index]?.normal ?? '');
  const roots = [head.replace(/ed$/, ''), head.replace(/d$/, ''), head.replace(/([a-z])\1ed$/, '$1'), head.replace(/ied$/, 'y')];
  return roots.find((r) => (['create', 'export', 'touch', 'make', 'call', 'leave'] as const).some((kind) => verbIs(kind, r))) ?? verb.lemma;
}

export function targetOf(sentence: Sentence, verb: VerbPhrase): Target | undefined {
  const { object, place } = regionOf(sentence, verb);
  const files = fileMasks(sentence);
  const all = [...object, ...place];
  const lemma = headLemma(sentence, verb);
  const boundary = boundaryTarget(sentence, verb, lemma, { object, place }, files);
  if (boundary !== false) return boundary;
  if (verb.negative) return undefined;
  // "adding an EXIF orientation fix to `load()`: `ImageOps.exif_transpose(img)` …": the code after the colon is the object.
  const apposed = codeOf(object).length ? [] : apposition(sentence, verb);
  const objectNames = apposed.length ? apposed.flatMap((t) => symbolsIn(t.mask!.text)) : codeOf(object);
  // "Adding a public method to `Renderer`" exports nothing: "public" makes an export only as what code is made; "not exported" neither.
  const exportWord = (t: Term, i: number) =>
    t.mask?.text === '__all__' ||
    (wordIs('exported-word', t.normal) && (t.normal !== 'public' || verbIs('make', lemma)) && !/^(?:not|never)$/.test(all[i - 1]?.normal ?? ''));
  // "I'll add `export { RateLimiter } from './limiter'` to index.ts": the statement names what is exported, the place where.
  const module = moduleAfter(place) ?? files[0];
  const stated = verbIs('create', lemma)
    ? object.map((t) => (t.mask?.kind === 'code' ? exportStatementNames(t.mask.text, module) : undefined)).find(Boolean)
    : undefined;
  if (stated?.length) return { kind: 'exported', names: stated, files, module };
  if (verbIs('export', lemma) || ((verbIs('create', lemma) || verbIs('make', lemma)) && all.some(exportWord))) {
    // "… `register_filter()` and `unregister_filter()`, and I'll export both functions": the names said before.
    const referred = objectNames.length === 0 && object.some((t) => /^(?:both|them|these|those|all|it|functions|classes|helpers|methods)$/.test(t.normal));
    // "importable from `mdtoc`; I'll add it …": code after "from" is the module, not what is exported.
    const before = sentence.terms.slice(0, verb.start).filter((_, i, all) => !/^(?:from|via)$/.test(all[i - 1]?.normal ?? ''));
    const said = (referred ? codeOf(before) : objectNames).filter((n) => n !== '__all__');
    // "make it importable as `from config import load_config`": what the import names.
    const names = said.length || !referred ? said : importedNames(sentence);
    const module = moduleAfter(place) ?? importedFrom(sentence) ?? files[0];
    if (names.length) return { kind: 'exported', names, files, module };
    const described = describedBefore(sentence, verb, object);
    return described ? { kind: 'exported', names: [], files, module, refers: described } : undefined;
  }
  const where = placeFunction(place) ?? possessiveFunction(sentence, verb, place);
  const at = positionIn(all);
  const position = at.position;
  // "adding a `disabled` bypass": code that skips the rest of the function is a guard too.
  if (verbIs('create', lemma) && object.some((t) => GUARD_NOUN.test(t.normal) || t.normal === 'bypass') && (where || position)) {
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
  // "check `s.closed` right after we acquire the lock", "validate `opts.timeout` in the constructor": a guard on what the code names.
  const tested = object.filter((t) => t.mask?.kind === 'code').flatMap((t) => namesIn(t.mask!.text).slice(-1));
  if (verbIs('guard', lemma) && tested.length && (where || position || at.loop)) {
    // "In `Drain()` I will test `ctx.Err()` …": the place may lead the clause.
    const leading = sentence.terms.slice(0, verb.start).filter((t) => t.clause === verb.clause && t.text !== '');
    return { kind: 'placement', names: [], guard: tested, files, scope: where ?? placeFunction(leading), ...at };
  }
  const callNoun = object.some((t) => /^(?:call|calls|invocation)$/.test(t.normal)) || apposed.some((t) => /\w\(.+\)$/.test(t.mask!.text));
  // "call it `debounce`": a pronoun and then code are two objects; the verb names the code, it calls nothing.
  const naming = /^(?:it|them|this)$/.test(object[0]?.normal ?? '') && object[1]?.mask?.kind === 'code';
  if ((verbIs('call', lemma) || (verbIs('create', lemma) && callNoun)) && !naming && objectNames.length && (where || position)) {
    return { kind: 'placement', names: objectNames.map(lastName), files, scope: where, ...at };
  }
  // "give `Pool` a `close()` method", "give `allow()` a `cost` arg": the first object receives the second, as after "to".
  const recipient = lemma === 'give' && object[0]?.mask?.kind === 'code' && object[1]?.tags.has('Determiner') ? object[0] : undefined;
  // "a call to `self._flush()`" makes the call, not the function; "`Optional` to the imports" makes no definition.
  const notMade = callNoun || addedToNoDefinitions(place);
  // "I added three helpers, including `foo()`": the code the object includes is made too.
  const included = place[0]?.normal === 'including' ? codeOf(place.slice(1).filter((t) => t.clause === place[1]?.clause)) : [];
  const made = recipient ? codeOf(object.slice(1)) : notMade ? [] : [...(apposed.length ? objectNames : codeOf(withoutAboutCode(object))), ...included];
  if ((verbIs('create', lemma) || recipient) && made.length) {
    const parameter = [...object, ...place].some((t) => PARAMETER_NOUN.test(t.normal));
    // "I'll write `assertMetricName(name)` in the same file; it runs in the constructor": a place in another clause is not where the code goes.
    const into =
      recipient && /\(\)$/.test(recipient.mask!.text.trim()) ? functionName(recipient) : placeFunction(place.filter((t) => t.clause === verb.clause));
    const scope = into && (parameter || into === '__init__') ? into : undefined;
    // "added `Timeout` to `Options`": a member of the type the place names (capitalised, not a call).
    const owner = scope
      ? undefined
      : (recipient ? [recipient] : place).find((t) => t.mask?.kind === 'code' && /^[A-Z][\w$]*$/.test(t.mask.text.trim()))?.mask!.text.trim();
    const names = owner ? made.map((n) => (n.includes('.') ? n : `${owner}.${n}`)) : made;
    return { kind: 'exists', names, files, ...(scope && { scope }) };
  }
  // "I've got `Put()`; I'll add it above Get": a pronoun for code the sender took on earlier in the sentence.
  const taken = verbIs('create', lemma) && !objectNames.length ? ownCodeBefore(sentence, verb, object) : [];
  if (taken.length) return { kind: 'exists', names: taken, files };
  // "Added the registry functions": code named before, by its description.
  const described = verbIs('create', lemma) && !objectNames.length ? describedBefore(sentence, verb, object) : undefined;
  return described ? { kind: 'exists', names: [], files, refers: described } : undefined;
}

/** The code listed right after a colon that follows the verb, before any other person's clause. */
function apposition(sentence: Sentence, verb: VerbPhrase): Term[] {
  const terms = sentence.terms.filter((t, i) => i > verb.index && t.text !== '');
  const start = terms.findIndex((t, i) => i > 0 && /:/.test(terms[i - 1]!.post) && t.mask?.kind === 'code');
  if (start < 0 || sentence.verbs.some((v) => v.index > verb.index && v.index < sentence.terms.indexOf(terms[start]!) && v.subject !== 'none')) return [];
  const run: Term[] = [];
  for (const [i, t] of terms.slice(start).entries()) {
    if (t.mask?.kind === 'code') run.push(t);
    // "`retries` field and `with_retries()` builder": a noun right after a code word says what it is.
    else if (!/^(?:and|or)$/.test(t.normal) && !(t.tags.has('Noun') && !t.tags.has('Pronoun') && terms[start + i - 1]?.mask?.kind === 'code')) break;
  }
  return run;
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
  // "- ✓ `formatBytes` implemented" then "- ✓ exported from src/index.ts": an item's subjectless verb with
  // nothing but a place after it continues the code the items before named.
  const opensItem = sentence.listItem && verb.subject === 'none' && sentence.terms.slice(0, verb.start).every((t) => t.text === '');
  if (opensItem && object.every((t) => LOCATION.test(t.normal) || t.mask?.kind === 'file')) return { to: 'previous' };
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

/** Passive claims: "`X` is now exported from `pkg/__init__.py`", "`foo()` was added to utils.py". */
export function passiveTarget(sentence: Sentence, verb: VerbPhrase): Target | undefined {
  const before = sentence.terms.slice(0, verb.start).filter((t) => t.clause === verb.clause);
  const names = codeOf(before);
  const files = fileMasks(sentence);
  const after = sentence.terms.slice(verb.index + 1).filter((t) => t.text !== '');
  // "The registry functions were added": the subject describes code named before.
  const refers = names.length === 0 && (verbIs('export', verb.lemma) || verbIs('create', verb.lemma)) ? describedBefore(sentence, verb, []) : undefined;
  if (names.length === 0 && !refers) return undefined;
  if (verbIs('export', verb.lemma)) {
    return { kind: 'exported', names, files, module: moduleAfter(after) ?? importedFrom(sentence) ?? files[0], ...(refers && { refers }) };
  }
  return verbIs('create', verb.lemma) ? { kind: 'exists', names, files, ...(refers && { refers }) } : undefined;
}

/** A verb in a subordinate clause ("as you named it", "so your CLI can call them") tells, it does not ask. */
export function subordinate(sentence: Sentence, verb: VerbPhrase): boolean {
  return sentence.terms.slice(0, verb.start).some((t) => t.clause === verb.clause && wordIs('subordinator', t.normal));
}

/** The sender says what it does, is doing or did ("I'm doing `--select`: …", "Taking src/parse.ts: …"). */
export function ownWork(sentence: Sentence): 'will' | 'did' | undefined {
  const stances = sentence.verbs.filter((v) => v.subject === 'first' || v.subject === 'none').map((v) => stanceOf(sentence, v));
  return stances.some((s) => s === 'will' || s === 'doing') ? 'will' : stances.includes('did') ? 'did' : undefined;
}

/** "I'll add `X` and keep clear of …": a verb joined by "and" with no subject of its own shares the sender's stance. */
export function coordinatedStance(sentence: Sentence, verb: VerbPhrase): ReturnType<typeof stanceOf> | undefined {
  if (verb.subject !== 'none' || stanceOf(sentence, verb) !== 'none') return undefined;
  const before = sentence.terms.slice(0, verb.start).filter((t) => t.text !== '' && !t.tags.has('Adverb'));
  if (!/^(?:and|or|then)$/.test(before.at(-1)?.normal ?? '')) return undefined;
  const lead = sentence.verbs.filter((v) => v.index < verb.start && v.subject === 'first').at(-1);
  const stance = lead && stanceOf(sentence, lead);
  return commits(stance) ? stance : undefined;
}
