// What a sentence's verbs say about the sender's own work (will do, doing, did, offers it), and
// whether the sentence is conditional: read from the clause structure language.ts gives.
import { COMPLETION_MARK, SKIPPED, type Sentence, type VerbPhrase } from './language.ts';

/** Modal auxiliaries that make a verb an offer or a possibility rather than a commitment. */
const TENTATIVE = /\b(?:can|could|may|might|should|would|shall)\b/;

/** Verbs whose infinitive complement is the sender's intent ("I plan to add", "I'm going to add"). */
const INTENT_VERB = /^(?:plan|intend|want|aim|go|be|need|like|prefer|propose|suggest|start|begin|continue|proceed|decide|try|let)$/;
/** Intents that, in the past, were had rather than carried out ("I wanted to add", "I was planning to add"). */
const PAST_INTENT = /^(?:plan|intend|want|aim|like|prefer|hope|mean)$/;
const WANT_AUXILIARY = /\b(?:would|'d)\b/;

/**
 * What a verb says about the sender's own work:
 * - will: it is going to do it (future, intent, "let me", a first-person present "I take lines 1-60");
 * - doing: it is doing it now ("I'm adding", or a subjectless "Taking parser.py L40-60");
 * - did: it did it ("I added", "Added X", "X is now exported");
 * - offer: it could or might do it (can, could, may, might, should, would);
 * - none: the verb is not about the sender's work (another subject, a request, a question).
 */
export type Stance = 'will' | 'doing' | 'did' | 'offer' | 'none';

/** The sender commits to the work: it will do it, is doing it or did it (not an offer). */
export const commits = (stance: Stance | undefined): stance is 'will' | 'doing' | 'did' => stance === 'will' || stance === 'doing' || stance === 'did';

export function stanceOf(sentence: Sentence, verb: VerbPhrase): Stance {
  const governor = verb.governor;
  const auxiliary = `${verb.auxiliary} ${governor?.auxiliary ?? ''}`;
  const first = verb.subject === 'first';
  // "👍 won't go near L13-23": an emoji or other mark with no letters is not a word the clause starts with.
  const atClauseStart =
    sentence.terms.findIndex(
      (t) => t.clause === verb.clause && !t.tags.has('Adverb') && !SKIPPED.test(t.normal) && (t.text === '' || /[\p{L}\p{N}]/u.test(t.text)),
    ) === verb.start;
  if (governor && governor.lemma === 'let' && /^(?:me|us)$/.test(sentence.terms[verb.start - 1]?.normal ?? '')) return verb.lemma === 'know' ? 'none' : 'will';
  // "Going to add …", "Planning to add …" without a subject: the sender's own intent.
  if (
    governor &&
    governor.subject === 'none' &&
    /^(?:go|plan|intend|aim)$/.test(governor.lemma) &&
    (governor.progressive || sentence.terms[governor.index]?.tags.has('Gerund')) &&
    !sentence.questionMark
  )
    return 'will';
  // "I was going to add `foo()`, but …", "I wanted to add …", "I meant to add …": an intent the sender had is no commitment.
  if (first && (/\b(?:was|were) going to\b/.test(verb.auxiliary) || (governor?.tense === 'past' && PAST_INTENT.test(governor.lemma)))) return 'none';
  if (governor && first && INTENT_VERB.test(governor.lemma)) {
    if (TENTATIVE.test(auxiliary) && !(governor.lemma === 'like' && WANT_AUXILIARY.test(auxiliary))) return 'offer';
    return governor.tense === 'past' && governor.lemma !== 'decide' ? 'did' : 'will';
  }
  // "Updated `__init__.py` to export `X`": the purpose of a change a status line reports is reported done too.
  if (
    governor &&
    verb.subject === 'none' &&
    governor.subject === 'none' &&
    !INTENT_VERB.test(governor.lemma) &&
    !/^(?:fail|forget|refuse|ask|tell)$/.test(governor.lemma) &&
    sentence.terms[verb.index - 1]?.normal === 'to' &&
    stanceOf(sentence, governor) === 'did'
  )
    return 'did';
  if (TENTATIVE.test(verb.auxiliary)) return first ? 'offer' : 'none';
  if (first) {
    if (verb.tense === 'future') return 'will';
    if (verb.tense === 'past') return 'did';
    if (verb.progressive) return 'doing';
    return verb.form === 'simple-present' || verb.form === 'imperative' ? 'will' : 'none';
  }
  if (verb.subject === 'none' && atClauseStart && !sentence.questionMark) {
    // Status lines and notes without a subject: "Added X", "Taking lines 40-60", "Will do".
    if (verb.tense === 'past') return 'did';
    if (verb.tense === 'future') return 'will';
    if (sentence.terms[verb.index]?.tags.has('Gerund')) return 'doing';
    // A bare verb heading a list item is the sender's next step ("- lib/compare.js: add `satisfies()`").
    if (sentence.listItem && !verb.negative && /^(?:imperative|infinitive|simple-present)$/.test(verb.form)) return 'will';
  }
  // Passive claims about code: "`X` is now exported from Y", "`foo` was added".
  if (
    verb.subject === 'other' &&
    verb.tense === 'past' &&
    sentence.terms.slice(Math.max(0, verb.index - 3), verb.index).some((t) => /^(?:be|is|are|was|were|has|have|been)$/.test(t.normal))
  )
    return 'did';
  return 'none';
}

// "even if" concedes: the main clause holds either way ("release() runs even if it throws").
const conditionAt = (sentence: Sentence) =>
  sentence.terms.findIndex(
    (t, i) =>
      (t.normal === 'if' && sentence.terms[i - 1]?.normal !== 'even') ||
      (t.normal === 'in' && sentence.terms[i + 1]?.normal === 'case' && sentence.terms[i + 2]?.normal !== 'you'),
  );

/** The sentence is conditional on something other than the partner's objection ("if the tests fail, I'll …"). */
export function isConditional(sentence: Sentence): boolean {
  return conditionAt(sentence) >= 0;
}

/**
 * The clauses before a condition and the clause it governs, which the condition leaves unconditional:
 * "`Close()` is in, flushes then closes the writer if it's a Closer" keeps "`Close()` is in". A
 * condition that ends with a comma governs what follows it ("…, and if the tests fail, I'll revert"),
 * one at the end the clause before it ("I'll add it if you agree"). None when nothing is left.
 */
export function unconditionalPart(sentence: Sentence): Sentence | undefined {
  const at = conditionAt(sentence);
  if (at < 0) return sentence;
  const clause = sentence.terms[at]!.clause;
  const governsNext = sentence.terms.some((t) => t.clause > clause);
  const kept = governsNext ? clause : clause - 1;
  const end = sentence.terms.findIndex((t) => t.clause >= kept);
  if (end <= 0) return undefined;
  return { ...sentence, terms: sentence.terms.slice(0, end), verbs: sentence.verbs.filter((v) => v.index < end && v.start < end) };
}

/** "Good call, I'll do that too", "I'll add it now": a promise whose object is only a pronoun for what was asked or said. */
export const acceptsByPronoun = (sentence: Sentence) =>
  !sentence.questionMark &&
  sentence.verbs.some(
    (v) => v.subject === 'first' && stanceOf(sentence, v) === 'will' && /^(?:that|it|this|so|both)$/.test(sentence.terms[v.index + 1]?.normal ?? ''),
  );

/** "`remaining` — a read-only property on …": a word after a determiner in its clause is a noun, however the tagger read it; it asks nothing. */
export const afterDeterminer = (sentence: Sentence, verb: VerbPhrase) =>
  sentence.terms.slice(0, verb.index).some((t) => t.clause === verb.clause && t.tags.has('Determiner'));

/** Words that report work as there, whoever did it: "count_ones is done", "Increment field + NewClock(base, inc) pushed". */
const DONE = /^(?:done|finished|complete|completed|landed|pushed|committed|merged|shipped|added|wired|hooked|written|implemented|there)$/;

/**
 * Where a sentence reports work as there: the term that says so ("done", "pushed", "in" at a clause's
 * end: "early return is in", "it's in now." but not "an early return in finish()"), the sentence's end for a
 * check mark ("add_line ✓ validates qty up front"), or -1. Indexes count the terms with text.
 */
export function reportedDoneAt(sentence: Sentence): number {
  const terms = sentence.terms.filter((t) => t.text !== '');
  const at = terms.findIndex(
    (t, i) =>
      DONE.test(t.normal) ||
      (t.normal === 'in' &&
        (i === terms.length - 1 ||
          /[.;,!)]/.test(t.post) ||
          (/^(?:now|too)$/.test(terms[i + 1]!.normal) && (i + 2 === terms.length || /[.;,!)]/.test(terms[i + 1]!.post))))),
  );
  return at >= 0 ? at : COMPLETION_MARK.test(sentence.text) ? terms.length : -1;
}
