// Initiative without a judge model (definitions.ts: initiative, no_initiative): labels only the
// messages it is sure of and leaves the rest `undecided:initiative`, so the report computes no share
// from a guess. Sure of initiative: a plan of the work (task initiative), a question about named
// code, or a report of the sender's own work on code the partner has not named (dialogue
// initiative: concrete information). Sure of none: a bare acknowledgement. Anything else, an offer,
// a request, prose without code, is left to the initiative judge.
import { asUndecided, type ConversationMessage, type JudgeLabel } from '../types.ts';
import { proseOf, quotePrefix } from '../text.ts';
import { planSentence, unsurePlan } from './first-turn-plan.ts';
import { messageSentences } from './language.ts';
import { askedIn } from './questions.ts';
import { commits, stanceOf } from './stance.ts';

/** The words of a bare acknowledgement ("Sounds good, thanks!", "ok 👍", "Got it."): it adds nothing the partner can act on. */
const ACKNOWLEDGEMENT_WORD =
  /^(?:ok|okay|k|kk|sure|yes|yep|yeah|yup|great|good|perfect|nice|cool|awesome|excellent|thanks|thank|you|ty|thx|sounds|looks|lgtm|agreed|agree|noted|ack|acknowledged|got|it|understood|roger|makes|sense|all|right|alright|fine|works|for|me|that|this|much|very|too|will|do|same|here)$/;
const MAX_ACKNOWLEDGEMENT_WORDS = 8;

type Reading = { label: 'initiative' | 'no_initiative'; quote: string; why: string } | { undecided: string; quote: string };

function isAcknowledgement(text: string): boolean {
  const prose = proseOf(text);
  if (/[`?]/.test(prose) || messageSentences(prose).some((s) => s.masks.length > 0)) return false;
  const words = prose.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  return words.length <= MAX_ACKNOWLEDGEMENT_WORDS && words.every((w) => ACKNOWLEDGEMENT_WORD.test(w));
}

function reading(message: ConversationMessage, partnersBefore: string): Reading {
  const text = message.message;
  const plan = planSentence(text);
  if (plan) {
    const doubt = unsurePlan(text, plan);
    return doubt ? { undecided: doubt, quote: plan } : { label: 'initiative', quote: plan, why: 'it plans the work (task initiative)' };
  }
  const sentences = messageSentences(text);
  const sureQuestions = new Set(
    askedIn(text)
      .filter((a) => a.sure)
      .map((a) => a.text),
  );
  const concreteQuestion = sentences.find((s) => sureQuestions.has(s.text) && s.masks.length > 0);
  if (concreteQuestion) return { label: 'initiative', quote: concreteQuestion.text, why: 'it asks about named code (dialogue initiative)' };
  const report = sentences.find(
    (s) => s.verbs.some((v) => v.subject !== 'second' && commits(stanceOf(s, v))) && s.masks.some((m) => !partnersBefore.includes(m.text)),
  );
  if (report) return { label: 'initiative', quote: report.text, why: 'it reports its own work on code the partner has not named (dialogue initiative)' };
  if (isAcknowledgement(text)) return { label: 'no_initiative', quote: quotePrefix(text), why: 'a bare acknowledgement' };
  return { undecided: 'no plan, question about named code or report of new code, and more than an acknowledgement', quote: quotePrefix(text) };
}

/** One label per message of the conversation (call loadLanguage() first). */
export function initiativeLabels(conversation: readonly ConversationMessage[]): JudgeLabel[] {
  return conversation.map((message) => {
    const partnersBefore = conversation
      .filter((m) => m.id < message.id && m.from !== message.from)
      .map((m) => m.message)
      .join('\n');
    const r = reading(message, partnersBefore);
    const label: JudgeLabel = {
      judge: 'initiative',
      label: 'label' in r ? r.label : 'initiative',
      isPrimary: false,
      messageId: message.id,
      agent: message.from,
      description: 'label' in r ? `message ${message.id}: ${r.why}` : `message ${message.id} may take initiative`,
      evidence: [{ kind: 'quote', source: 'conversation', text: r.quote, messageId: message.id, agent: message.from }],
    };
    return 'label' in r ? label : asUndecided(label, r.undecided);
  });
}
