// Questions with no reply (definitions.ts: question_no_reply, the C1a part of appendix F). A
// message asks something when one of its sentences is interrogative by structure (a question mark,
// a question word or an inverted auxiliary: "Should we bump the version … or leave that") or
// asks for an answer, a decision or a confirmation ("Tell me which line…", "Please confirm…").
// The label needs the partner to have sent nothing after the question reached it; a partner who
// writes but ignores the question (C1b) is left to the communication judge. A question its sender
// answers in the same message, or takes back in a later one ("Never mind, found it"), asks nothing.
// The detector is sure of a question mark on an interrogative sentence or one put to the partner, of
// a request for an answer in so many words, and of a request announced by a lead-in ("One thing I
// need from you:"); a question mark on a bare phrase ("Same file?") leaves the label undecided. The rules are the entries of QUESTION_RULES.
import { asUndecided, type ConversationMessage, type JudgeLabel } from '../types.ts';
import type { Sentence } from './language.ts';
import { stanceOf } from './stance.ts';
import { firstMatch, sentencesAt, type RuleTable, type SentenceAt } from './rules.ts';

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
/** "Let me know if you need anything" invites, it does not ask. */
const OPEN_INVITATION = /\blet (?:me|us) know if (?:you (?:need|have|want|run into|see)|there(?:'s| is| are)|anything)\b|\bfeel free\b/i;

/** The sender takes its question back: nothing waits on an answer any more. */
const WITHDRAWN =
  /\b(?:never ?mind|nvm|disregard|ignore (?:my|that|the) (?:last |earlier |previous )?question|(?:found|figured) (?:it|that|this) out|found it|no need to (?:answer|reply|respond))\b/i;

function words(s: Sentence): string[] {
  return s.terms.filter((t) => t.text !== '').map((t) => t.normal.replace(/[^\w'?-]/g, ''));
}

function isCourtesy(s: Sentence): boolean {
  const w = words(s);
  return w.length <= 7 && s.masks.length === 0 && w.every((word) => COURTESY_WORD.test(word) || word === '');
}

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

/** Asks the partner for an answer, a decision or a confirmation without asking a question. */
function asksByImperative(s: Sentence): boolean {
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

/** Words of a lead-in that announce a request, a question or a decision of the partner's: "One thing I need from you:", "Question for you:", "Your call:". */
const REQUEST_LEAD =
  /\b(?:(?:need|want|ask)\w*\s+(?:\w+\s+){0,3}(?:from|of) you|(?:question|ask|request)s? (?:for|to) you|(?:one|an?|my|quick|last|open|small) (?:\w+ )?(?:ask|request|question)s?|(?:can|could|would) you|i need you to|please|need (?:your|an answer|a decision|confirmation)|your (?:call|choice|pick|decision)|up to you)\b/i;

/**
 * A lead-in ending in a colon that announces a request or a question, the request after the colon
 * or in the next sentence. The lead-in is cut at its last colon; what follows must be there.
 */
function leadInRequest(at: SentenceAt): boolean {
  const text = at.sentence.text;
  const colon = text.lastIndexOf(':');
  if (colon < 0) return false;
  const lead = text.slice(0, colon);
  const rest = text.slice(colon + 1).trim();
  if (lead.length > 80 || !REQUEST_LEAD.test(lead.replace(/[’‘]/g, "'"))) return false;
  return rest !== '' || at.sentences[at.i + 1] !== undefined;
}

/** The sentences after the question in the same message. */
const later = (at: SentenceAt) => at.sentences.slice(at.i + 1);

type QuestionKind = 'sure' | 'unsure' | 'not-asking' | 'answered' | 'withdrawal';

/**
 * The questions' rules. A sentence asks when the first `sure`, `unsure` or `not-asking` rule that
 * matches says so, and no `answered` rule finds the answer later in the message; a `withdrawal` rule
 * reads the opening of the sender's later messages.
 */
export const QUESTION_RULES: RuleTable<SentenceAt, QuestionKind> = {
  label: 'question_no_reply',
  kinds: { sure: 'label', unsure: 'label', 'not-asking': 'not-label', answered: 'not-label', withdrawal: 'not-label' },
  read: sentencesAt,
  rules: [
    {
      id: 'waiting-for-answer',
      kind: 'sure',
      why: 'the sender says it needs or waits for the partner\'s answer, decision or confirmation ("Need a decision from you on …")',
      examples: [
        'Need a decision from you on whether we keep the v1 endpoint.',
        'Waiting on your answer about the timeout default before I go on.',
        "I need to know whether you're renaming `Batcher`.",
      ],
      nonExamples: ['Let me know if you need anything.', 'I need to add the timeout default first.'],
      matches: (at) => !OPEN_INVITATION.test(at.sentence.text) && WAITING.test(at.sentence.text),
    },
    {
      id: 'reply-imperative',
      kind: 'sure',
      why: 'an imperative verb of answering ("tell me", "confirm", "let me know which") addressed to the partner',
      examples: ['Please confirm you will not edit lines 10-20.', 'Tell me which line you start at.', "If you're editing the same file, tell me now."],
      nonExamples: ['Let me know if you need anything.', 'Feel free to ping me.', 'Please insert your code after the marker.', 'I will confirm later.'],
      matches: (at) => !OPEN_INVITATION.test(at.sentence.text) && asksByImperative(at.sentence),
    },
    {
      id: 'courtesy',
      kind: 'not-asking',
      why: 'a short courtesy closing with a question mark ("Anything else you need from me?") waits on nothing',
      examples: ['Anything else you need from me?', 'Sounds good?'],
      nonExamples: ['Which approach would you prefer?', 'Sounds good, thanks.'],
      matches: (at) => at.sentence.questionMark && isCourtesy(at.sentence),
    },
    {
      id: 'interrogative',
      kind: 'sure',
      why: 'a question word or an inverted auxiliary, with or without a question mark ("Should we bump the version … or leave that")',
      examples: [
        'Which approach would you prefer?',
        'Should we bump the version in setup.py or leave that',
        'One thing before I write the docs: does `Load()` return an error or panic?',
      ],
      nonExamples: ["What I'll do: add the helper to utils.py.", 'Will do.'],
      matches: (at) => isInterrogative(at.sentence),
    },
    {
      id: 'question-to-partner',
      kind: 'sure',
      why: 'a question mark on a sentence put to the partner ("you", "your")',
      examples: ['The `timeout` default in your branch stays 30?'],
      nonExamples: ['The `timeout` default stays 30.', 'The `timeout` default stays 30?'],
      matches: (at) => at.sentence.questionMark && toPartner(at.sentence),
    },
    {
      id: 'choice-question',
      kind: 'sure',
      why: 'a question mark on a choice between options ("Hash the whole tuple or only the first argument?")',
      examples: ['Hash the whole tuple or only the first argument?'],
      nonExamples: ['Hash the whole tuple or only the first argument.', 'Hash the whole tuple?'],
      matches: (at) => at.sentence.questionMark && /\bor\b/i.test(at.sentence.text),
    },
    {
      id: 'bare-question-mark',
      kind: 'unsure',
      why: 'a question mark on a bare phrase ("Same file?") may ask or may muse',
      examples: ['Same file for the tests?'],
      nonExamples: ['Same file for the tests.'],
      matches: (at) => at.sentence.questionMark,
    },
    {
      id: 'lead-in-request',
      kind: 'sure',
      why: 'a lead-in ending in a colon that announces a request or question of the partner ("One thing I need from you:"), the request after it',
      examples: [
        'One thing I need from you:\nthe exact header name you send.',
        'Quick request for you: the name of the header in `send()`.',
        'Could you check one thing for me: the default of `timeout` in client.py.',
        'Your call: keep the old flag or drop it.',
      ],
      nonExamples: ['My plan: add the header to `send()`.', 'One thing I need from you:', 'Heads-up: I renamed `send()` to `post()`.'],
      matches: leadInRequest,
    },
    {
      id: 'answer-marker',
      kind: 'answered',
      why: 'a later sentence of the same message that starts as an answer ("Yes", "No", "Probably") answers the question in place',
      examples: ['Should I bump the version in setup.py? No, I will leave it.'],
      nonExamples: ['Should I bump the version in setup.py? Tell me by noon.'],
      matches: (at) => later(at).some((s) => !s.questionMark && ANSWER_MARKER.test(s.text.replace(/^[\s>*_-]+/, ''))),
    },
    {
      id: 'taken-back',
      kind: 'withdrawal',
      why: 'the opening of a later message of the sender takes the question back ("Never mind, found it")',
      examples: ['Never mind, found it in config.py.', 'Disregard my last question.'],
      nonExamples: ['Found a bug in config.py.', 'Do not mind the noise in the logs.'],
      matches: (at) => at.i === 0 && WITHDRAWN.test(at.sentence.text),
    },
  ],
};

export interface Asked {
  text: string;
  /** The detector is sure the sentence asks the partner something. */
  sure: boolean;
}

/** The sentences of a message that ask the partner something (prose only, not quotes or code), and how sure that is. `messageId`: count the rules' hits. */
export function askedIn(text: string, messageId?: number): Asked[] {
  return QUESTION_RULES.read(text).flatMap((at) => {
    const asks = firstMatch(QUESTION_RULES, ['sure', 'unsure', 'not-asking'], at, messageId);
    if (!asks || asks.kind === 'not-asking' || firstMatch(QUESTION_RULES, ['answered'], at, messageId)) return [];
    return [{ text: at.sentence.text, sure: asks.kind === 'sure' }];
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

/** A later message of the sender withdraws the question ("Never mind, found it"). */
function withdrawn(conversation: readonly ConversationMessage[], message: ConversationMessage): boolean {
  return conversation.some((m) => {
    if (m.id <= message.id || m.from !== message.from) return false;
    const opening = QUESTION_RULES.read(m.message)[0];
    return opening !== undefined && firstMatch(QUESTION_RULES, ['withdrawal'], opening, message.id) !== undefined;
  });
}

export function questionsWithoutReply(conversation: readonly ConversationMessage[]): JudgeLabel[] {
  const labels: JudgeLabel[] = [];
  for (const message of conversation) {
    const recipients = message.to.filter((r) => r !== message.from);
    // With several recipients, one reply is enough.
    const silent = recipients.filter((r) => !partnerWroteAfter(conversation, message, r));
    if (silent.length === 0 || silent.length < recipients.length) continue;
    const asked = askedIn(message.message, message.id);
    if (asked.length === 0 || withdrawn(conversation, message)) continue;
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
