// First-turn planning (definitions.ts: first_turn_plan; paper section 5: a plan in the very first
// message nearly halves the conflict rate). A sentence is a plan when one of its verbs is the
// sender's own work to come or under way (language.ts: stance will or doing: "Unless you object,
// I'll put…", "I'm planning to…", "Taking parser.py L40-60", "Proposed split: I take lines 1-60")
// and the verb is work on the code or names code; a "## Plan" heading over a list is one too.
// Offers ("I can add it if you want") and questions are not plans.
import type { ConversationMessage } from '../../harness/store/records.ts';
import type { JudgeLabel } from '../types.ts';
import { proseOf } from '../text.ts';
import { messageSentences, stanceOf, type Sentence, type VerbPhrase } from './language.ts';

/** Verbs of talking and waiting: "I'll wait for your reply" and "I'll let you know" plan no code. */
const NOT_WORK = /^(?:wait|reply|respond|answer|ask|look|read|review|investigate|explore|inspect|see|think|confirm|know|hear|ping|tell|say|get|be|have|coordinate|sync|check|notify|inform|message|send|let|hope|need|want|like|appreciate|thank|agree|understand|follow|note|mention|share|keep you|update you)$/;
/** Headings that introduce a plan: "## Plan", "Proposed split:", "My plan:", "Division of work:". */
const PLAN_HEADING = /^\s*(?:#{1,6}\s*)?(?:\*\*|__)?\s*(?:(?:my|our|the|proposed|suggested|implementation|coordination|work)\s+)*(?:plan|proposal|split|division of (?:work|labou?r)|work split|ownership|assignments?)\b[^\n]{0,60}?(?:\*\*|__)?\s*:?\s*$/im;
/** Lines of a list after a heading. */
const LIST_ITEM = /^\s*(?:[-*+•]|\d+[.)])\s+\S/m;

function namesCode(sentence: Sentence, verb: VerbPhrase): boolean {
  return sentence.terms.some((t, i) => i > verb.index && t.clause === verb.clause && t.mask !== undefined);
}

function isPlanVerb(sentence: Sentence, verb: VerbPhrase): boolean {
  const stance = stanceOf(sentence, verb);
  if (stance !== 'will' && stance !== 'doing') return false;
  if (verb.lemma === 'update' && sentence.terms[verb.index + 1]?.normal === 'you') return false;
  const names = namesCode(sentence, verb);
  // "I will NOT edit lines 68–84" draws a boundary: a plan when it names the code it keeps out of.
  if (verb.negative) return names;
  return !NOT_WORK.test(verb.lemma) || names && !/^(?:wait|reply|respond|answer|ask|hope|thank|appreciate)$/.test(verb.lemma);
}

function isPlanSentence(sentence: Sentence): boolean {
  if (sentence.questionMark) return false;
  return sentence.verbs.some((v) => isPlanVerb(sentence, v));
}

/** The sentence (or heading) that makes the message a plan, if any. */
export function planSentence(text: string): string | undefined {
  const found = messageSentences(text).find(isPlanSentence);
  if (found) return found.text;
  const prose = proseOf(text);
  const heading = PLAN_HEADING.exec(prose);
  if (heading && LIST_ITEM.test(prose.slice(heading.index + heading[0].length))) return text.slice(heading.index, heading.index + heading[0].length).trim();
  return undefined;
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
