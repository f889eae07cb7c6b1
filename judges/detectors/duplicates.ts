// Near-duplicate messages (appendix H, repetition): an agent sends what it already sent, in the
// same or slightly different words. Compared by the words of the prose (pasted code aside): a later
// message is a repeat when almost all of its words were already in one earlier message of the same
// sender, so a dropped "I have" does not hide a repeat, while new files, names or lines do.
import type { ConversationMessage } from '../../harness/store/records.ts';
import type { JudgeLabel } from '../types.ts';
import { proseOf, quotePrefix } from '../text.ts';

/** Messages with fewer distinct words (a "thanks", an "ok") are never called repeats. */
const MIN_WORDS = 6;
/** At most this share of the later message's words may be new. */
const MAX_NOVELTY = 0.15;
/** A short line whose words all occur in a long report is not a repeat of it. */
const MIN_SIZE_RATIO = 0.35;

export function wordSet(text: string): Set<string> {
  const words = proseOf(text)
    .toLowerCase()
    .replace(/[–—]/g, '-')
    .match(/[\p{L}\p{N}_][\p{L}\p{N}_./:'-]*/gu) ?? [];
  return new Set(words.map((w) => w.replace(/[.:'-]+$/, '')).filter(Boolean));
}

/** Whether `later` repeats `earlier`. */
export function repeats(later: Set<string>, earlier: Set<string>): boolean {
  if (later.size < MIN_WORDS || later.size < MIN_SIZE_RATIO * earlier.size) return false;
  let novel = 0;
  for (const w of later) if (!earlier.has(w)) novel++;
  return novel / later.size <= MAX_NOVELTY;
}

/** One label per message that repeats an earlier message of the same sender. */
export function nearDuplicates(conversation: readonly ConversationMessage[]): JudgeLabel[] {
  const words = conversation.map((m) => wordSet(m.message));
  const labels: JudgeLabel[] = [];
  conversation.forEach((message, i) => {
    const earlier = conversation.findIndex((other, j) => j < i && other.from === message.from && repeats(words[i]!, words[j]!));
    if (earlier === -1) return;
    const original = conversation[earlier]!;
    labels.push({
      judge: 'detectors',
      label: 'near_duplicate',
      isPrimary: false,
      messageId: message.id,
      agent: message.from,
      description: `${message.from} repeats its message ${original.id} with little new information`,
      evidence: [
        { kind: 'quote', source: 'conversation', text: quotePrefix(original.message), messageId: original.id, agent: original.from },
        { kind: 'quote', source: 'conversation', text: quotePrefix(message.message), messageId: message.id, agent: message.from },
      ],
    });
  });
  return labels;
}
