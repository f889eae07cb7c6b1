// Unanswered questions: a message asks its recipients something, and no recipient sends anything
// after the question reached it. Whether a later reply actually answers is left to the LLM judge
// (C1b, C2): this detector only claims what the timestamps prove.
import type { ConversationMessage } from '../../harness/store/records.ts';
import type { JudgeLabel } from '../types.ts';
import { proseWithoutInlineCode, sentences } from '../text.ts';

/** Requests that need a reply even without a question mark. */
const REPLY_REQUEST = /\bplease (?:confirm|reply|respond|answer|acknowledge)\b/i;

/** Courtesy questions that close a message: nothing waits on their answer. */
const COURTESY = /^(?:anything else|any (?:other |more )?(?:questions|concerns|objections|issues)|(?:does (?:that|this) )?sounds? good|(?:does (?:that|this) )?makes? sense|ok(?:ay)?|all good|right|alright|cool)\b[^?]*\?/i;

/** The sentences of a message that ask something (in prose, not in pasted code or quotes). */
export function questionsIn(text: string): string[] {
  const prose = proseWithoutInlineCode(text);
  return sentences(prose)
    .filter((s) => (/\?["')\]]*$/.test(s.text) && !COURTESY.test(s.text)) || REPLY_REQUEST.test(s.text))
    .map((s) => text.slice(s.start, s.start + s.text.length));
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

export function unansweredQuestions(conversation: readonly ConversationMessage[]): JudgeLabel[] {
  const labels: JudgeLabel[] = [];
  for (const message of conversation) {
    const questions = questionsIn(message.message);
    if (questions.length === 0) continue;
    const silent = message.to.filter((recipient) => {
      if (recipient === message.from) return false;
      const reached = reachedAt(message, recipient);
      return reached === null || !repliedAfter(conversation, recipient, reached);
    });
    // With several recipients, one answer is enough.
    if (silent.length === 0 || silent.length < message.to.filter((r) => r !== message.from).length) continue;
    const undelivered = silent.filter((r) => reachedAt(message, r) === null);
    labels.push({
      judge: 'detectors',
      label: 'unanswered_question',
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
    });
  }
  return labels;
}
