// Questions with no reply (definitions.ts: question_no_reply, the C1a part of appendix F). A
// message asks something when one of its sentences is interrogative by structure (a question mark,
// a question word or an inverted auxiliary: "Should we bump the version … or leave that") or
// asks for an answer, a decision or a confirmation ("Tell me which line…", "Please confirm…").
// The label needs the partner to have sent nothing after the question reached it; a partner who
// writes but ignores the question (C1b) is left to the communication judge. A question its sender
// answers in the same message, or takes back in a later one ("Never mind, found it"), asks nothing.
// The detector is sure of a question mark on an interrogative sentence or one put to the partner, and
// of a request for an answer in so many words; a tag, an opener ("Any objection to …"), a question
// mark on a bare phrase, or a request announced by a lead-in ("One thing I need from you:") leaves
// the label undecided.
import { asUndecided, type ConversationMessage, type JudgeLabel } from '../types.ts';
import { messageSentences, type Sentence } from './language.ts';
import { stanceOf } from './stance.ts';

/** Verbs that ask the partner for information or a decision when used as a request. */
const REPLY_VERB =
  /^(?:tell|confirm|reply|respond|answer|decide|choose|pick|clarify|advise|share|explain|specify|ping|say|verify|let|send|paste|list|indicate|state|acknowledge|ack|check)$/;
/** Words of a courtesy closing: nothing waits on its answer. */
const COURTESY_WORD =
  /^(?:need|needs|from|help|can|i|want|there|else|ok|okay|good|sound|sounds|fine|sense|make|makes|work|works|agree|agreed|right|alright|cool|questions?|concerns?|objections?|issues?|thoughts?|anything|else|all|set|clear|that|this|does|do|is|it|for|you|with|any|other|more|to|me|us|we|are|both|on|same|page|y'all|good\?|else\?)$/;
const ANSWER_MARKER = /^(?:yes|no|nope|yep|yeah|answer|because|probably|likely|i think|i'd say|short answer)\b/i;
const QUESTION_WORD = /^(?:which|what|where|when|how|who|whom|whose|why|whether)$/;
const INVERTED = /^(?:should|shall|can|could|would|will|do|does|did|is|are|was|were|may|might|have|has|must|am)$/;
/** Requests that wait for an answer without an imperative: "I need your confirmation", "waiting for your decision". */
const WAITING =
  /\b(?:need|needs|waiting (?:for|on)|wait (?:for|on)|awaiting|blocked on|depends on|would like|'d like|appreciate)\b[^.?!]*\b(?:your|you to|from you|you could|you can)\b[^.?!]*\b(?:answer|reply|decision|confirmation|confirm|input|go-ahead|ok|okay|approval|response|call|choice|preference|opinion|thoughts|tell|say|let me know)\b|\b(?:need|needs|waiting (?:for|on)|awaiting)\b[^.?!]*\b(?:answer|reply|decision|confirmation|input|go-ahead|approval|response|call|choice)\b[^.?!]*\bfrom you\b|\b(?:need|want) to know (?:whether|if|which|what|where|when|how)\b/i;
/** Asking by other means than a question: "Any objection to …", "Your call: …", "…, right". */
const ASKING_OPENER =
  /^\W*(?:any (?:objections?|concerns?|thoughts|preference|opinion|issues?) (?:to|on|about|with|if)|mind if|ok(?:ay)? (?:to|with|if)|your call|your choice|up to you)\b/i;
const TAG_QUESTION = /,\s*(?:right|correct|yes|no|ok|okay|yeah)\W*$/i;
/** "Let me know if you need anything" invites, it does not ask. */
const OPEN_INVITATION = /\blet (?:me|us) know if (?:you (?:need|have|want|run into|see)|there(?:'s| is| are)|anything)\b|\bfeel free\b/i;

function words(s: Sentence): string[] {
  return s.terms.filter((t) => t.text !== '').map((t) => t.normal.replace(/[^\w'?-]/g, ''));
}

function isCourtesy(s: Sentence): boolean {
  const w = words(s);
  return w.length <= 7 && s.masks.length === 0 && w.every((word) => COURTESY_WORD.test(word) || word === '');
}

/** A lead-in that announces a request in the next sentence: "One thing I need from you:", "Question for you:". */
const LEAD_IN = /\b(?:(?:need|want|ask)\w*\s+(?:\w+\s+){0,2}(?:from|of) you|question (?:for|to) you|(?:one|an?|my) (?:ask|request|question))\b[^.?!]*:\s*$/i;

/** Put to the partner: a verb whose subject is the partner, or "you"/"your" in the sentence. */
const toPartner = (s: Sentence) => s.verbs.some((v) => v.subject === 'second') || s.terms.some((t) => /^(?:you|your|yours)$/.test(t.normal));

/** Interrogative by structure (a question word, an inverted auxiliary), with or without a question mark. */
function isInterrogative(s: Sentence): boolean {
  // "one thing before I write the docs: does `Load()` return an error?": the question starts after a short lead-in.
  const leadIn = s.terms
    .slice(0, 10)
    .map((t) => t.post.includes(':'))
    .lastIndexOf(true);
  const terms = s.terms.slice(leadIn + 1).filter((t) => t.text !== '' && !/^(?:so|and|also|then|quick|question|one|more|btw|ok|okay|but)$/.test(t.normal));
  const [first, second] = terms;
  if (!first) return false;
  if (QUESTION_WORD.test(first.normal)) {
    // "What I'll do: …" and "Where I put it: …" tell, they do not ask.
    return !(second && /^(?:i|we)(?:'ll|'m|'ve|'d)?$/i.test(second.text));
  }
  if (INVERTED.test(first.normal) && second) {
    // "Should we …", "Can you …", "Is it …"; not "Will do", "Done".
    return second.tags.has('Pronoun') || (second.tags.has('Determiner') && terms[2]?.tags.has('Noun') === true) || Boolean(second.mask);
  }
  return (
    /^(?:i wonder|wondering|i'm wondering|i am wondering)$/.test(`${first.normal} ${second?.normal ?? ''}`.trim()) ||
    /\b(?:wondering (?:if|whether)|i wonder (?:if|whether))\b/i.test(s.text)
  );
}

/** Asking by other means than its structure: "Any objection to …", "…, right" about the partner. */
function asksIndirectly(s: Sentence): boolean {
  if (ASKING_OPENER.test(s.text.replace(/^[\s>*_-]+/, ''))) return true;
  // "Quick check - you're not editing `__init__.py`, right": a statement about the partner, tagged for confirmation.
  return TAG_QUESTION.test(s.text) && s.verbs.some((v) => v.subject === 'second');
}

/** Asks the partner for an answer, a decision or a confirmation without asking a question. */
function isReplyRequest(s: Sentence): boolean {
  if (OPEN_INVITATION.test(s.text)) return false;
  if (WAITING.test(s.text)) return true;
  for (const v of s.verbs) {
    const requested = v.subject === 'none' || v.subject === 'second';
    if (!requested || !REPLY_VERB.test(v.lemma) || v.negative) continue;
    if (v.lemma === 'let' && !/^(?:me|us)$/.test(s.terms[v.index + 1]?.normal ?? '')) continue;
    if (v.lemma === 'let' && s.terms[v.index + 2]?.normal !== 'know') continue;
    // A leading condition ("If you're editing the same file, tell me now") is its own clause.
    const before = s.terms.slice(0, v.start).filter((t) => t.text !== '' && t.clause === s.terms[v.start]!.clause);
    const imperative = before.every(
      (t) => /^(?:please|pls|also|and|so|then|just|kindly|could|can|would|will|you|now|first|quickly|ok|okay)$/.test(t.normal) || t.tags.has('Adverb'),
    );
    if (imperative && stanceOf(s, v) === 'none') return true;
  }
  return false;
}

/** A question the sender answers itself later in the same message. */
function answeredInPlace(question: Sentence, later: readonly Sentence[]): boolean {
  const own = question.verbs.some((v) => v.subject === 'first');
  return later.some((s) => {
    if (s.questionMark) return false;
    if (ANSWER_MARKER.test(s.text.replace(/^[\s>*_-]+/, ''))) return true;
    // "Should I also update the README? I'll leave it as is."
    return own && s.verbs.some((v) => v.subject === 'first' && ['will', 'did'].includes(stanceOf(s, v)));
  });
}

export interface Asked {
  text: string;
  /** The detector is sure the sentence asks the partner something. */
  sure: boolean;
}

/** How sure the detector is that a sentence asks the partner something; false: it does not. */
function asking(s: Sentence, next: Sentence | undefined): 'sure' | 'unsure' | false {
  if (isReplyRequest(s)) return 'sure';
  if (s.questionMark) {
    if (isCourtesy(s)) return false;
    // "Hash the whole tuple or only the first argument?": a choice put to the partner.
    return isInterrogative(s) || toPartner(s) || /\bor\b/i.test(s.text) ? 'sure' : 'unsure';
  }
  if (isInterrogative(s)) return 'sure';
  if (asksIndirectly(s)) return 'unsure';
  // "One thing I need from you: the exact header name." The request is the sentence after the lead-in.
  return next && LEAD_IN.test(s.text) ? 'unsure' : false;
}

/** The sentences of a message that ask the partner something (prose only, not quotes or code), and how sure that is. */
export function askedIn(text: string): Asked[] {
  const all = messageSentences(text);
  return all.flatMap((s, i) => {
    const asks = asking(s, all[i + 1]);
    return asks && !answeredInPlace(s, all.slice(i + 1)) ? [{ text: s.text, sure: asks === 'sure' }] : [];
  });
}

/** The sentences of a message that ask the partner something. */
export function questionsIn(text: string): string[] {
  return askedIn(text).map((a) => a.text);
}

const time = (iso: string) => Date.parse(iso);

/** When the message reached `recipient` (its sent time if delivery was not recorded); null if never. */
function reachedAt(message: ConversationMessage, recipient: string): number | null {
  if (!(recipient in message.deliveredAt)) return time(message.sentAt);
  const at = message.deliveredAt[recipient];
  return at ? time(at) : null;
}

function repliedAfter(conversation: readonly ConversationMessage[], recipient: string, since: number): boolean {
  return conversation.some((m) => m.from === recipient && time(m.sentAt) >= since);
}

/** Whether `recipient` sent anything after `message` reached it: the line between C1a and C1b. */
export function partnerWroteAfter(conversation: readonly ConversationMessage[], message: ConversationMessage, recipient: string): boolean {
  const reached = reachedAt(message, recipient);
  return reached !== null && repliedAfter(conversation, recipient, reached);
}

/** The sender takes its question back: nothing waits on an answer any more. */
const WITHDRAWN =
  /\b(?:never ?mind|nvm|disregard|ignore (?:my|that|the) (?:last |earlier |previous )?question|(?:found|figured) (?:it|that|this) out|found it|no need to (?:answer|reply|respond))\b/i;

/** A later message of the sender withdraws the question ("Never mind, found it"). */
function withdrawn(conversation: readonly ConversationMessage[], message: ConversationMessage): boolean {
  return conversation.some((m) => m.id > message.id && m.from === message.from && WITHDRAWN.test(messageSentences(m.message)[0]?.text ?? ''));
}

export function questionsWithoutReply(conversation: readonly ConversationMessage[]): JudgeLabel[] {
  const labels: JudgeLabel[] = [];
  for (const message of conversation) {
    if (withdrawn(conversation, message)) continue;
    const recipients = message.to.filter((r) => r !== message.from);
    // With several recipients, one reply is enough.
    const silent = recipients.filter((r) => !partnerWroteAfter(conversation, message, r));
    if (silent.length === 0 || silent.length < recipients.length) continue;
    const asked = askedIn(message.message);
    if (asked.length === 0) continue;
    const sure = asked.filter((a) => a.sure);
    const questions = (sure.length > 0 ? sure : asked).map((a) => a.text);
    const undelivered = silent.filter((r) => reachedAt(message, r) === null);
    const label: JudgeLabel = {
      judge: 'detectors',
      label: 'question_no_reply',
      isPrimary: false,
      messageId: message.id,
      agent: message.from,
      description: `${message.from} asked ${silent.join(', ')} ${questions.length === 1 ? 'a question' : `${questions.length} questions`} and got no reply`,
      evidence: [
        ...questions.map((text) => ({ kind: 'quote' as const, source: 'conversation' as const, text, messageId: message.id, agent: message.from })),
        ...silent.map((r) => ({
          kind: 'fact' as const,
          text: undelivered.includes(r)
            ? `the message was never delivered to ${r}, and ${r} sent nothing later`
            : `${r} sent no message after this one reached it`,
        })),
      ],
    };
    labels.push(sure.length > 0 ? label : asUndecided(label, 'the message may not ask anything: a tag, an opener or a lead-in, not a question'));
  }
  return labels;
}
