// Reports that restate a commitment the sender made before (commitment-extract.ts): a placement in
// other words of the same place, or any commitment by naming its code with a word that says it is
// done; a claim checked as the earlier commitment's target.
import { codeOf, GUARD_NOUN, lastName, placeFunction, sameFunction, symbolsIn, type Commitment, type Target } from './commitment-code.ts';
import { positionIn } from './commitment-place-words.ts';
import { GUARDED } from './commitment-guards.ts';
import type { Sentence } from './language.ts';
import { isConditional, reportedDoneAt } from './stance.ts';
import { saysLeftAlone } from './commitment-boundaries.ts';
import { wordIs } from './commitment-word-classes.ts';

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
  const named = new Set(codeOf(terms).map(lastName));
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
        c.target.names.some((n) => named.has(lastName(n))) ||
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

const FILLER = /^(?:the|a|an|my|our|its|is|are|was|now|also|all|both|and|too|same|it|this|that|one|thing|change|changes|part|work|bit)$/;

/**
 * "try/finally in, release() now always runs": a completion report whose subject, in its own words,
 * is a word the sender used for a placement before (the last one that used it) restates that placement.
 */
function reportedDone(sentence: Sentence, own: readonly Commitment[]): Target[] {
  const terms = sentence.terms.filter((t) => t.text !== '');
  // A placement is reported where it is: "in" anywhere ("the metric is recorded in request() now").
  const inAt = terms.findIndex((t) => t.normal === 'in');
  const doneAt = inAt > 0 ? inAt : reportedDoneAt(sentence);
  if (doneAt <= 0 || sentence.verbs.some((v) => v.tense === 'future')) return [];
  const subject = terms
    .slice(0, doneAt)
    .filter((t) => t.clause === (terms[doneAt] ?? terms.at(-1)!).clause && !t.mask && !FILLER.test(t.normal) && t.normal.length >= 3)
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

/** "not in yet", "still pending", "next": work reported as unfinished claims nothing. */
const UNFINISHED = /^(?:not|never|no|yet|still|todo|wip|pending|next|later|almost|partly|half)$/;

/**
 * A report that names, bare or in backticks, code the sender committed to before, and says it is done
 * (for an export, exported; for what the sender promised to leave alone, untouched): "add_line ✓
 * validates qty up front", "offset param is in.", "reserve/release + held are in.", "parseCron is up,
 * exported from index.ts too", "new() untouched". It claims those earlier commitments, with their
 * targets as the earlier sentence named them (the file, the owner, the place).
 */
export function restatedCommitments(sentence: Sentence, agent: string, earlier: readonly Commitment[]): Target[] {
  if (sentence.questionMark || isConditional(sentence) || sentence.verbs.some((v) => v.tense === 'future')) return [];
  const terms = sentence.terms.filter((t) => t.text !== '');
  const left = saysLeftAlone(sentence);
  if (!left && terms.some((t) => UNFINISHED.test(t.normal))) return [];
  const reported = { done: reportedDoneAt(sentence) >= 0, left, exported: terms.some((t) => wordIs('exported-word', t.normal)) };
  // "MAX_DELAY_MS added" reports the constant, not its export: an export is restated in words that say so.
  const says = (c: Commitment) => (c.target.kind === 'untouched_symbol' ? reported.left : c.target.kind === 'exported' ? reported.exported : reported.done);
  const named = new Set(
    terms.flatMap((t) => (t.mask ? (t.mask.kind === 'code' ? symbolsIn(t.mask.text) : []) : t.text.split('/'))).map((n) => lastName(n.replace(/\W+$/, ''))),
  );
  const names = (c: Commitment) => {
    const t = c.target;
    // "`foo()` done" after "I'll add `foo()` and call it first in `bar()`" reports foo, not where it is called.
    if (t.kind === 'placement') return !t.definition && named.has(t.scope ?? '');
    return t.names.some((n) => named.has(lastName(n)));
  };
  const claimed = earlier
    .filter((c) => c.agent === agent && !c.request && says(c) && names(c))
    // "`DEFAULT_TTL` is in" after promising `DEFAULT_TTL` and `format_duration()`: the names it reports; a placement whole.
    .map((c): Target => (c.target.kind === 'placement' ? c.target : { ...c.target, names: c.target.names.filter((n) => named.has(lastName(n))) }));
  return [...new Map(claimed.map((t) => [JSON.stringify(t), t])).values()];
}
