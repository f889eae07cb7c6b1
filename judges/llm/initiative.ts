// Initiative (Collaborative Gym): each message either takes initiative (directs the work or sets
// up shared understanding) or does not, backed by a quote from that same message. The report
// turns the labels into each seat's share of the team's initiative and its entropy
// (reports/analysis/initiative.ts).
import { z } from 'zod';
import { definitionLines, INITIATIVE_DEFINITIONS, type InitiativeLabel } from '../definitions.ts';
import type { JudgeInput, JudgeLabel } from '../types.ts';
import { checkQuote, quoteEvidence } from './evidence.ts';
import type { DroppedLabel, JudgedLabels, LlmJudge } from './judge.ts';
import { conversationPrompt, type Material } from './material.ts';

const answerSchema = z.object({
  messages: z.array(z.object({ id: z.coerce.number().int(), initiative: z.boolean(), quote: z.string() })),
});
export type InitiativeAnswer = z.infer<typeof answerSchema>;

const SYSTEM = `You label the messages that the members of a team exchanged while each of them implemented a different feature of the same repository, on separate branches that are merged afterwards. A member may be a person or a coding agent. For every message, say whether it takes initiative in the collaboration:
${definitionLines(INITIATIVE_DEFINITIONS)}
A message that does both counts as taking initiative. Judge each message on its own words, not on who sent it.

For each message, quote the passage of that message that shows your reading (for a message without initiative, its passive part).

Answer with one JSON object and nothing else:
{"messages": [{"id": <message id>, "initiative": <true|false>, "quote": "<passage of that message>"}]}`;

function prompt(input: JudgeInput) {
  const prompt = conversationPrompt(input, {
    omittedNote: (note) => `(${note}; judge only the messages shown)`,
    closing: 'Answer with the JSON object described in the instructions, one entry per message shown.',
  });
  return { system: SYSTEM, ...prompt };
}

function labels(answer: InitiativeAnswer, material: Material): JudgedLabels {
  const shown = new Set(material.items.map((item) => item.messageId));
  const kept: JudgeLabel[] = [];
  const dropped: DroppedLabel[] = [];
  for (const entry of answer.messages) {
    const label: InitiativeLabel = entry.initiative ? 'initiative' : 'no_initiative';
    if (!shown.has(entry.id)) {
      dropped.push({ label, reason: `message ${entry.id} is not in the conversation shown` });
      continue;
    }
    if (kept.some((l) => l.messageId === entry.id)) {
      dropped.push({ label, reason: `a second reading of message ${entry.id}` });
      continue;
    }
    const check = checkQuote(material, entry.quote, { sources: ['conversation'], messageId: entry.id });
    if (!check.ok) {
      dropped.push({ label, reason: check.problem! });
      continue;
    }
    kept.push({
      judge: 'initiative',
      label,
      isPrimary: false,
      messageId: entry.id,
      agent: check.item!.agent,
      description: `message ${entry.id} ${entry.initiative ? 'takes' : 'takes no'} initiative`,
      evidence: [quoteEvidence(entry.quote, check.item!)],
    });
  }
  return { labels: kept, dropped };
}

function metrics(labels: readonly JudgeLabel[]): Record<string, number> {
  return Object.fromEntries(INITIATIVE_DEFINITIONS.map((d) => [d.id, labels.filter((l) => l.label === d.id).length]));
}

export const initiativeJudge: LlmJudge<InitiativeAnswer> = {
  name: 'initiative',
  title: 'who takes the initiative',
  promptVersion: 'initiative-1',
  // No calibration case has initiative gold yet: the calibration set does not score it.
  calibration: { covers: () => false, score: () => {}, order: [] },
  schema: answerSchema,
  skipReason: (input) => (input.conversation.length === 0 ? 'no messages were exchanged' : undefined),
  prompt,
  labels,
  metrics,
};
