// Requests and their acceptance (commitment-extract.ts): a request of the partner's with a checkable
// target ("Please export `LRUCache` from __init__.py", "I need `LRUCache` exported …"), and a reply
// that accepts it ("Sure, will do", "Good call, I'll do that too") without turning it down.
import type { Target } from './commitment-code.ts';
import { neededTargets } from './commitment-needs.ts';
import { coordinatedStance, targetOf } from './commitment-verbs.ts';
import { TOUCH } from './commitment-boundaries.ts';
import type { Sentence } from './language.ts';
import { acceptsByPronoun, isConditional, stanceOf } from './stance.ts';

/** A request of the partner's with a checkable target ("Please export `LRUCache` from __init__.py"). */
export function requestTargets(sentence: Sentence): Target[] {
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
  return [...targets, ...neededTargets(sentence)];
}

const ACCEPTANCE =
  /^\W*(?:sure|ok|okay|k|will do|agreed|agree|sounds good|yes|yep|yeah|got it|deal|roger|on it|absolutely|of course|no problem|np|confirmed|perfect|great|understood|ack|works for me|fine by me|happy to|can do|noted|done|fair point|good point|good call|good catch|makes sense|alright|all right|👍)\b/i;

const REFUSAL = /\b(?:won't|will not|can't|cannot|instead|rather not|prefer not|not going to|disagree|decline)\b/i;

/**
 * The reply turns the request down: a refusal word, or "No" to open it. "`flush_every` won't change"
 * is a boundary the reply promises, not a refusal of what was asked.
 */
function refuses(message: string, sentences: readonly Sentence[]): boolean {
  const boundary = (s: Sentence) => s.verbs.some((v) => v.negative && TOUCH.test(v.lemma)) && !REFUSAL.test(s.text.replace(/\b(?:won't|will not)\b/gi, ''));
  return /^\W*no\b/i.test(message) || sentences.some((s) => REFUSAL.test(s.text) && !boundary(s));
}

/** The reply's opening accepts (in words, or "I'll do that") and no sentence of it refuses. */
export function acceptsRequest(message: string, sentences: readonly Sentence[]): boolean {
  const opening = sentences[0];
  return !!opening && (ACCEPTANCE.test(opening.text) || acceptsByPronoun(opening)) && !refuses(message, sentences);
}
