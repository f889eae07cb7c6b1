// Requests and their acceptance (commitment-extract.ts): a request of the partner's with a checkable
// target ("Please export `LRUCache` from __init__.py", "I need `LRUCache` exported …"), and a reply
// that accepts it ("Sure, will do", "Good call, I'll do that too") without turning it down (the
// reply's words are the rules of commitment-reply-rules.ts).
import type { Target } from './commitment-code.ts';
import { neededTargets } from './commitment-needs.ts';
import { coordinatedStance, targetOf } from './commitment-verbs.ts';
import type { Sentence } from './language.ts';
import { REPLY_RULES } from './commitment-reply-rules.ts';
import { firstMatch } from './rules.ts';
import { isConditional, stanceOf } from './stance.ts';

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

/** The reply's opening accepts (in words, or "I'll do that") and no sentence of it refuses (REPLY_RULES). `messageId`: the reply, to count the rules' hits. */
export function acceptsRequest(message: string, sentences: readonly Sentence[], messageId?: number): boolean {
  const reply = { message, sentences };
  return firstMatch(REPLY_RULES, ['accept'], reply, messageId) !== undefined && firstMatch(REPLY_RULES, ['refuse'], reply, messageId) === undefined;
}
