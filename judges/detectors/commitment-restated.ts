// Reports that restate a placement the sender made before (commitment-extract.ts): a claim in other
// words of the same place, checked as the earlier commitment's target.
import { codeOf, GUARD_NOUN, placeFunction, sameFunction, type Target } from './commitment-code.ts';
import { positionIn } from './commitment-place-words.ts';
import type { Commitment } from './commitment-extract.ts';
import { GUARDED } from './commitment-guards.ts';
import type { Sentence } from './language.ts';
import { isConditional } from './stance.ts';

/**
 * A report that restates a placement the sender promised before, in words: "metric recording is in
 * `request()`, after the send", "validation is in the constructor", "`_normalize` is wired in, after
 * validation". It names the promised function or code, and a position or a guard; it claims that placement.
 */
export function restatedPlacements(sentence: Sentence, agent: string, earlier: readonly Commitment[]): Target[] {
  if (sentence.questionMark || isConditional(sentence)) return [];
  const terms = sentence.terms.filter((t) => t.text !== '');
  const inAt = terms.findIndex((t) => /^(?:in|inside|within)$/.test(t.normal));
  const scope = inAt < 0 ? undefined : placeFunction(terms.slice(inAt + 1, inAt + 4));
  const named = new Set(codeOf(terms).map((n) => n.replace(/^.*[.:]/, '')));
  const placed = positionIn(terms);
  // "before anything is written"; "after all" orders nothing.
  const relative = terms.some((t, i) => /^(?:before|after)$/.test(t.normal) && !/^(?:all|that|this)$/.test(terms[i + 1]?.normal ?? ''));
  const said = placed.position !== undefined || placed.loop === true || terms.some((t) => GUARD_NOUN.test(t.normal) || GUARDED.test(t.normal));
  const own = earlier.filter((c) => c.agent === agent && c.target.kind === 'placement' && !c.target.definition);
  if (!said && !relative) return reportedDone(sentence, own);
  const promised = own.filter(
    (c) =>
      c.target.scope &&
      ((scope !== undefined && sameFunction(scope, c.target.scope)) ||
        c.target.names.some((n) => named.has(n.replace(/^.*[.:]/, ''))) ||
        // "Flush is guarded as described": the promised function named without backticks.
        (c.target.guard && terms.some((t) => !t.mask && t.text.replace(/\W+$/, '') === c.target.scope))),
  );
  if (said && promised.length) return [promised.at(-1)!.target];
  // "The check runs under the lock": a guard noun in a sentence that names no code or file is the one guard the sender placed.
  const guards = [...new Map(own.filter((c) => c.target.guard).map((c) => [JSON.stringify(c.target), c.target])).values()];
  const bare = named.size === 0 && sentence.masks.length === 0 && terms.some((t) => GUARD_NOUN.test(t.normal));
  // "`LogFull` is raised before anything is written": a report of an order that names no function or file
  // (a call is written `x()`) restates the one guard the sender placed, in whatever words.
  const noPlace = sentence.masks.every((m) => m.kind === 'code' && !/\)$/.test(m.text.trim()));
  const reported = !sentence.verbs.some((v) => v.subject === 'first' && v.tense === 'future');
  if ((bare || (relative && noPlace && reported)) && guards.length === 1) return guards;
  // "Write's check is in too": a report in the words of an earlier placement that the rules above do not tie to it.
  return reportedDone(sentence, own);
}

/** Words that say the work is there: "try/finally in", "counter in.", "timing log done". */
const DONE = /^(?:in|done|landed|added|there|pushed|shipped)$/;

const FILLER = /^(?:the|a|an|my|our|its|is|are|was|now|also|all|both|and|too|same|it|this|that|one|thing|change|changes|part|work|bit)$/;

/**
 * "try/finally in, release() now always runs": a completion report whose subject, in its own words,
 * is a word the sender used for a placement before (the last one that used it) restates that placement.
 */
function reportedDone(sentence: Sentence, own: readonly Commitment[]): Target[] {
  const terms = sentence.terms.filter((t) => t.text !== '');
  const doneAt = terms.findIndex((t) => DONE.test(t.normal));
  if (doneAt <= 0 || sentence.verbs.some((v) => v.tense === 'future')) return [];
  const subject = terms
    .slice(0, doneAt)
    .filter((t) => t.clause === terms[doneAt]!.clause && !t.mask && !FILLER.test(t.normal) && t.normal.length >= 3)
    .map((t) => t.normal.replace(/'s$/, ''));
  if (subject.length === 0) return [];
  // "counter in." after "I'm counting polls in poll()": the word or another form of it ("count" for both).
  const root = (w: string) => (w.length > 5 ? w.toLowerCase().replace(/(?:ing|er|ed|es|s)$/, '') : w.toLowerCase());
  const roots = new Set(subject.map(root));
  const said = (c: Commitment) =>
    subject.some((w) => new RegExp(`(?<![\\w/])${w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?![\\w/])`, 'i').test(c.quote)) ||
    c.quote.split(/[^\w/]+/).some((w) => w.length > 5 && roots.has(root(w)));
  const promised = own.filter(said).at(-1);
  return promised ? [promised.target] : [];
}
