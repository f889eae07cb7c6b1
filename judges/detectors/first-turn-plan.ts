// First-turn planning (paper section 5: a plan in the very first message nearly halves the
// conflict rate). A plan is the sender announcing, in the first person, work it is about to do
// on the code: "I'll add X to F", "I'm adding X", "My plan: ...", "I'm going to modify lines 10-20".
import type { ConversationMessage } from '../../harness/store/records.ts';
import type { JudgeLabel } from '../types.ts';
import { proseOf, sentences } from '../text.ts';

const INTENT = String.raw`(?:\bI(?:['’]ll| will| am going to|['’]m going to| plan to| intend to| am about to|['’]m about to| would like to|['’]d like to)|\bI(?:['’]m| am)(?=\s+(?:now\s+|currently\s+|also\s+)?(?:adding|implementing|modifying|editing|changing|updating|inserting|creating|touching|handling|working on|refactoring|extending|writing)\b)|\b(?:my|the) plan\b|^\s*plan\b)`;
const WORK = String.raw`(?:add|implement|modify|edit|chang|updat|insert|creat|writ|touch|refactor|extend|append|introduc|defin|handl|own|work|put|replac|renam|remov|wrap|register|export|build)`;
const PLAN = new RegExp(`${INTENT}[^.!?\\n]*?\\b${WORK}`, 'i');
/** Before the verb, these make it no plan: a refusal, a condition, an offer or a question. */
const NOT_PLAN = /\b(?:not|never|won't|if|unless|could|can|should|shall)\b|n't\b/i;

function isPlan(sentence: string): boolean {
  const match = PLAN.exec(sentence);
  if (!match || sentence.endsWith('?')) return false;
  return !NOT_PLAN.test(sentence.slice(0, match.index + match[0].length));
}

/** The sentence that makes the message a plan, if any. */
export function planSentence(text: string): string | undefined {
  const found = sentences(proseOf(text)).find((s) => isPlan(s.text));
  return found && text.slice(found.start, found.start + found.text.length);
}

/** A label when the conversation's first message is a plan. */
export function firstTurnPlan(conversation: readonly ConversationMessage[]): JudgeLabel[] {
  const first = conversation[0];
  if (!first) return [];
  const sentence = planSentence(first.message);
  if (!sentence) return [];
  return [{
    judge: 'detectors',
    label: 'first_turn_plan',
    isPrimary: false,
    messageId: first.id,
    agent: first.from,
    description: `the first message (${first.from}) states a plan`,
    evidence: [{ kind: 'quote', source: 'conversation', text: sentence, messageId: first.id, agent: first.from }],
  }];
}
