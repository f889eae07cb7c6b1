// First-turn planning (definitions.ts: first_turn_plan; paper section 5: a plan in the very first
// message nearly halves the conflict rate). A sentence is a plan when one of its verbs is the
// sender's own work to come or under way (language.ts: stance will or doing: "Unless you object,
// I'll put…", "I'm planning to…", "Taking parser.py L40-60", "Proposed split: I take lines 1-60")
// on code the sentence names (a file, a line range, a symbol); a "## Plan" heading over a list is
// one too. Offers ("I can add it if you want"), questions, options offered for the partner to
// choose from, and intentions that name no code ("Starting on the timeout feature") are not plans.
import type { ConversationMessage } from '../../harness/store/records.ts';
import type { JudgeLabel } from '../types.ts';
import { proseOf } from '../text.ts';
import { messageSentences, stanceOf, type Sentence, type VerbPhrase } from './language.ts';

/** Verbs of talking, looking, waiting and wanting: "I'll wait for your reply", "I'll check the file" plan no code. */
const NOT_WORK = /^(?:wait|reply|respond|answer|ask|look|read|review|investigate|explore|inspect|see|think|confirm|know|hear|ping|tell|say|get|be|have|coordinate|sync|check|notify|inform|message|send|let|hope|need|want|like|appreciate|thank|agree|understand|follow|note|mention|share|verify|test|run|try|go|come|finish|stop|pause|begin|start)$/;
/** An option in a list of alternatives ("(1) I add IsHash; you add IsRegex"): a proposal to choose from, not a plan. */
const OPTION = /^\s*(?:\(\s*(?:\d+|[a-c])\s*\)|(?:\d+|[a-c])\)|option\s+\w+\s*[:.)-])/i;
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
  if (NOT_WORK.test(verb.lemma) || (verb.lemma === 'update' && sentence.terms[verb.index + 1]?.normal === 'you')) return false;
  // A plan says where: it names a file, a line range or code (a boundary "I will NOT edit lines 68–84" included).
  return namesCode(sentence, verb) || (!verb.negative && sentence.masks.length > 0);
}

function isPlanSentence(sentence: Sentence, options: boolean): boolean {
  if (sentence.questionMark || (options && OPTION.test(sentence.text))) return false;
  return sentence.verbs.some((v) => isPlanVerb(sentence, v));
}

/** The sentence (or heading) that makes the message a plan, if any. */
export function planSentence(text: string): string | undefined {
  const all = messageSentences(text);
  const options = all.some((s) => s.questionMark);
  const found = all.find((s) => isPlanSentence(s, options));
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
