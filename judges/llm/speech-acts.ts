// Speech acts (paper figure 5c): each message gets one act, plan, question, answer, update or
// acknowledgement, backed by a quote from that same message.
import { z } from 'zod';
import { definitionLines, SPEECH_ACT_DEFINITIONS, SPEECH_ACT_RULE, SPEECH_ACTS, type SpeechAct } from '../definitions.ts';
import type { JudgeInput, JudgeLabel } from '../types.ts';
import { checkQuote, quoteEvidence } from './evidence.ts';
import type { DroppedLabel, JudgedLabels, LlmJudge } from './judge.ts';
import { conversationPrompt, type Material } from './material.ts';

const SPELLINGS: Record<string, SpeechAct> = { ack: 'acknowledgement', acknowledgment: 'acknowledgement', status: 'update' };

const actSchema = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  const word = v.trim().toLowerCase();
  return SPELLINGS[word] ?? word;
}, z.enum(SPEECH_ACTS));

const answerSchema = z.object({
  messages: z.array(z.object({ id: z.coerce.number().int(), act: actSchema, quote: z.string() })),
});
export type SpeechActsAnswer = z.infer<typeof answerSchema>;

const SYSTEM = `You classify the messages that coding agents exchanged while each of them implemented a different feature of the same repository, on separate branches that are merged afterwards. Give every message the one speech act that best describes what it does for the collaboration:
${definitionLines(SPEECH_ACT_DEFINITIONS)}
${SPEECH_ACT_RULE}

For each message, quote the passage of that message that shows its act.

Answer with one JSON object and nothing else:
{"messages": [{"id": <message id>, "act": "<${SPEECH_ACTS.join('|')}>", "quote": "<passage of that message>"}]}`;

function prompt(input: JudgeInput) {
  const prompt = conversationPrompt(input, {
    omittedNote: (note) => `(${note}; classify only the messages shown)`,
    closing: 'Answer with the JSON object described in the instructions, one entry per message shown.',
  });
  return { system: SYSTEM, ...prompt };
}

function labels(answer: SpeechActsAnswer, material: Material): JudgedLabels {
  const shown = new Set(material.items.map((item) => item.messageId));
  const kept: JudgeLabel[] = [];
  const dropped: DroppedLabel[] = [];
  for (const entry of answer.messages) {
    if (!shown.has(entry.id)) {
      dropped.push({ label: entry.act, reason: `message ${entry.id} is not in the conversation shown` });
      continue;
    }
    if (kept.some((l) => l.messageId === entry.id)) {
      dropped.push({ label: entry.act, reason: `a second act for message ${entry.id}` });
      continue;
    }
    const check = checkQuote(material, entry.quote, { sources: ['conversation'], messageId: entry.id });
    if (!check.ok) {
      dropped.push({ label: entry.act, reason: check.problem! });
      continue;
    }
    kept.push({
      judge: 'speech_acts',
      label: entry.act,
      isPrimary: false,
      messageId: entry.id,
      agent: check.item!.agent,
      description: `message ${entry.id} is ${entry.act === 'acknowledgement' ? 'an' : 'a'} ${entry.act}`,
      evidence: [quoteEvidence(entry.quote, check.item!)],
    });
  }
  return { labels: kept, dropped };
}

function metrics(labels: readonly JudgeLabel[]): Record<string, number> {
  return Object.fromEntries(SPEECH_ACTS.map((act) => [act, labels.filter((l) => l.label === act).length]));
}

export const speechActsJudge: LlmJudge<SpeechActsAnswer> = {
  name: 'speech_acts',
  title: 'speech acts (figure 5c)',
  promptVersion: 'speech-acts-2',
  schema: answerSchema,
  skipReason: (input) => (input.conversation.length === 0 ? 'no messages were exchanged' : undefined),
  prompt,
  labels,
  metrics,
  // One act per message.
  calibration: {
    covers: () => true,
    score: (tally, got, c) => c.messages.forEach((m, i) => tally.classify(`${c.id}#${i + 1}`, got.find((l) => l.messageId === i + 1)?.label, m.act)),
    order: SPEECH_ACTS,
  },
};
