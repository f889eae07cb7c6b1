// What a verb says the sender leaves alone (commitment-verbs.ts reads the rest): a negated verb that
// changes code ("I won't touch `Session.close()`"), a verb that keeps code as it is ("leave lines 40-53
// alone"), a verb of keeping a distance with its distance word ("stay out of", "steer clear of",
// "keep my hands off it") and a negated verb of going with a word of nearness ("didn't go anywhere near").
// The target is the code, line range, file or partner's work the verb's object and place name, or the
// code named before that a pronoun points back at.
import { AS_BEFORE, codeOf, CONSTRUCTOR, functionName, placeFunction, type Target, untouchedRange } from './commitment-code.ts';
import { namesParameterList, partnerWork } from './commitment-references.ts';
import { verbIs } from './commitment-verb-words.ts';
import type { Sentence, Term, VerbPhrase } from './language.ts';

const UNTOUCHED_WORD = /^(?:alone|untouched|intact|unchanged|as-is|is)$/;

/** Verbs of going somewhere: negated with a word of nearness they keep the sender away ("won't go near", "didn't go anywhere near", "won't go in there"). */
const MOVE = /^(?:go|come|get|wander|venture|dig|reach)$/;
const NEAR = /^(?:near|into|close|in)$/;

/** Verbs of keeping a distance, with the word that says the distance ("stay out of", "keep clear of", "steer clear of", "keep my hands off"). */
const KEEP = /^(?:stay|keep|steer|remain|hold)$/;
const AWAY = /^(?:away|out|clear|off|outside)$/;

/** Words that point back at code named before: "not touching it", "I won't touch that one". */
const POINTING = /^(?:it|that|this|them|those|these)$/;

/**
 * "stay out of", "keep clear of" (the tagger may read "keep clear" or "steer clear" as one verb), "keep
 * my hands off it": the distance word follows the verb, after at most a possessed noun.
 */
function keepsAway(sentence: Sentence, verb: VerbPhrase, object: readonly Term[]): boolean {
  if (!KEEP.test(verb.lemma)) return false;
  const inPhrase = sentence.terms.slice(verb.start + 1, verb.index + 1);
  const after = object.findIndex((t) => AWAY.test(t.normal));
  return (
    inPhrase.some((t) => AWAY.test(t.normal)) ||
    after === 0 ||
    (after > 0 && after <= 2 && object.slice(0, after).every((t) => !t.mask && (t.tags.has('Noun') || t.tags.has('Determiner'))))
  );
}

/** A sentence that says code was left alone, whatever it names: "new() untouched", "Stayed out of dispense", "didn't go near your block". */
export function saysLeftAlone(sentence: Sentence): boolean {
  const terms = sentence.terms;
  const near = (v: VerbPhrase) => terms.slice(v.index + 1, v.index + 4).some((t) => NEAR.test(t.normal));
  return (
    terms.some((t) => UNTOUCHED_WORD.test(t.normal) && t.normal !== 'is') ||
    sentence.verbs.some(
      (v) =>
        (KEEP.test(v.lemma) && AWAY.test(terms[v.index + 1]?.normal ?? '')) || (v.negative && (verbIs('touch', v.lemma) || (MOVE.test(v.lemma) && near(v)))),
    )
  );
}

/** "to you", "for you": the partner as who gets the code. */
const toPartner = (terms: readonly Term[]) => terms.some((t, i) => t.normal === 'you' && /^(?:to|for)$/.test(terms[i - 1]?.normal ?? ''));

/** "`new()` I left to you", "I'll leave to you": the sender's verb of leaving, with the partner as who gets it. */
export function leftToPartner(terms: readonly Term[]): boolean {
  const leave = terms.findIndex((t) => t.tags.has('Verb') && verbIs('leave', t.normal.replace(/^left$/, 'leave').replace(/ing$/, 'e')));
  return leave >= 0 && /^(?:i|we)$/.test(terms[0]?.normal ?? '') && toPartner(terms.slice(leave + 1, leave + 4));
}

/**
 * The untouched target of a verb with its object and place, given its head lemma; false when the
 * verb says nothing of leaving code alone (undefined: it does, but names nothing checkable).
 */
export function boundaryTarget(
  sentence: Sentence,
  verb: VerbPhrase,
  lemma: string,
  { object, place }: { object: Term[]; place: Term[] },
  files: string[],
): Target | undefined | false {
  const all = [...object, ...place];
  const lineMask = all.find((t) => t.mask?.kind === 'lines');
  const untouched =
    (verb.negative && (verbIs('touch', lemma) || (MOVE.test(lemma) && all.some((t) => NEAR.test(t.normal))))) ||
    // "I kept the existing parameters of `render()`".
    (verbIs('leave', lemma) && namesParameterList(all)) ||
    keepsAway(sentence, verb, object) ||
    // "I'll leave `new()` to you" (not "leave a note for you in `new()`": what is left is the object).
    (verbIs('leave', lemma) && toPartner(all) && object.some((t) => t.mask?.kind === 'code' || POINTING.test(t.normal))) ||
    (verbIs('leave', lemma) && (lemma === 'avoid' || all.some((t) => UNTOUCHED_WORD.test(t.normal) && t.normal !== 'is') || AS_BEFORE.test(sentence.text)));
  if (!untouched) return false;
  // "leave the existing parameters of `__init__` as they are": its signature, not its body.
  if (namesParameterList(all)) return parameterList(files, placeFunction(place), sentence);
  if (lineMask && !codeOf(object).length) return untouchedRange(lineMask.mask!, files);
  // "leaving compute_dose to you and only changing `max_daily`": what is left comes before "to you".
  const partnerAt = verbIs('leave', lemma) ? all.findIndex((t, i) => t.normal === 'you' && /^(?:to|for)$/.test(all[i - 1]?.normal ?? '')) : -1;
  const names = codeOf((partnerAt > 0 ? all.slice(0, partnerAt) : all).filter((t) => t.mask?.kind === 'code'));
  if (names.length) return { kind: 'untouched_symbol', names, files };
  // "`Session.close()` — not touching it", "… in `Options::new()`, so I won't touch that one": the code named before.
  const referred = object.some((t) => POINTING.test(t.normal))
    ? codeOf(sentence.terms.slice(0, verb.start).filter((t) => t.mask?.kind === 'code')).slice(-1)
    : [];
  if (referred.length) return { kind: 'untouched_symbol', names: referred, files };
  // "I won't edit slug.py", "I stayed out of slug.py", "nothing in slug.py changes": the whole file (a bare path, no symbol).
  const wholeFile = object.every((t) => t.mask?.kind === 'file' || t.text === '' || /^(?:out|away|clear|anything|everything)$/.test(t.normal));
  const objectFiles = (wholeFile ? all : object).filter((t) => t.mask?.kind === 'file').map((t) => t.mask!.text);
  if (objectFiles.length) return { kind: 'untouched_symbol', names: [], files: objectFiles };
  // "I stayed out of your lines": the partner's announced work.
  const refers = partnerWork(all);
  return refers ? { kind: 'untouched_lines', names: [], files, refers } : undefined;
}

/** The existing parameters of a function, named in the sentence or to be resolved through the conversation. */
export function parameterList(files: string[], scope: string | undefined, sentence: Sentence): Target {
  return {
    kind: 'untouched_symbol',
    names: [],
    files,
    parameters: true,
    // "don't change the signature": a parameter added breaks it too, not only one removed.
    ...(sentence.terms.some((t) => /^signatures?$/.test(t.normal)) && { signature: true }),
    ...(scope ? { scope } : { refers: { to: 'parameters', fallback: parameterOwner(sentence.terms.filter((t) => t.text !== '')) } }),
  };
}

/**
 * The function a sentence about parameters is about: a function named after "of", "to", "in"
 * ("the `flush_every` parameter of `__init__`"), else any function it names, else the constructor.
 */
export function parameterOwner(terms: readonly Term[]): string | undefined {
  const functionLike = (t: Term) =>
    t.mask?.kind === 'code' && (/\(\)$/.test(t.mask.text.trim()) || /^(?:[\w.]*\.)?__\w+__$/.test(t.mask.text.trim())) ? functionName(t) : undefined;
  const placed = terms.find((t, i) => functionLike(t) && /^(?:of|to|in|on|for|into)$/.test(terms[i - 1]?.normal ?? ''));
  // "`format_total`'s signature": the owner of the signature, in whatever form its name is written.
  const owning = terms.find((t) => /['’]s$/.test(t.text) && functionName(t) !== undefined);
  const named = placed ?? owning ?? terms.find((t) => functionLike(t));
  // "options to `NewLimiter`": a bare name that parameters are added to is a function too.
  const bare = terms.find((t, i) => /^(?:of|to|on|into)$/.test(terms[i - 1]?.normal ?? '') && functionName(t) !== undefined);
  return (named && functionName(named)) ?? constructorIn(terms) ?? functionName(bare);
}

/** The constructor a sentence names by a class call (`Batcher(sink, config=…)`) or the word. */
function constructorIn(terms: readonly Term[]): string | undefined {
  return terms.some((t) => CONSTRUCTOR.test(t.normal) || (t.mask?.kind === 'code' && /^[A-Z]\w*\(/.test(t.mask.text))) ? '__init__' : undefined;
}
