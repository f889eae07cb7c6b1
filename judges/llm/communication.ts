// Communication errors (paper appendix F): at most one category per conversation, each backed by
// at least two quotes from the messages. Precision first: the prompt asks for no issue unless the
// evidence is explicit, and a label whose quotes are not in the conversation is dropped.
import { z } from 'zod';
import {
  COMMUNICATION_ERROR_DEFINITIONS,
  COMMUNICATION_ERRORS,
  COMMUNICATION_EVIDENCE_RULE,
  COMMUNICATION_EXCLUSION,
  definitionLines,
  type CommunicationError,
} from '../definitions.ts';
import type { JudgeInput } from '../types.ts';
import { checkQuote, quoteEvidence } from './evidence.ts';
import type { JudgedLabels, LlmJudge } from './judge.ts';
import { conversationPrompt, type Material } from './material.ts';

const nameOf = (category: CommunicationError) => COMMUNICATION_ERROR_DEFINITIONS.find((d) => d.id === category)!.name.toLowerCase();

const MIN_QUOTES = 2;

const answerSchema = z.object({
  evidence: z.array(z.string()).default([]),
  issue: z
    .object({
      category: z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), z.enum(COMMUNICATION_ERRORS)),
      description: z.string().default(''),
    })
    .nullable()
    .optional(),
});
export type CommunicationAnswer = z.infer<typeof answerSchema>;

const SYSTEM = `You review the messages that coding agents exchanged while each of them implemented a different feature of the same repository, on separate branches that are merged afterwards. You detect one kind of bad communication pattern, and you are precision-first: for most conversations the right answer is that there is no issue. Report an issue only when the messages themselves make it undeniable.

Categories (report at most one, the clearest):
${definitionLines(COMMUNICATION_ERROR_DEFINITIONS)}

${COMMUNICATION_EXCLUSION}

Evidence: ${COMMUNICATION_EVIDENCE_RULE}

Answer with one JSON object and nothing else:
{"evidence": ["<quote>", "<quote>"], "issue": {"category": "<${COMMUNICATION_ERRORS.join('|')}>", "description": "<one sentence>"}}
When there is no clear issue: {"evidence": [], "issue": null}`;

function prompt(input: JudgeInput) {
  return { system: SYSTEM, ...conversationPrompt(input, { closing: 'Answer with the JSON object described in the instructions.' }) };
}

function labels(answer: CommunicationAnswer, material: Material): JudgedLabels {
  const issue = answer.issue;
  if (!issue) return { labels: [], dropped: [] };
  const dropped = (reason: string): JudgedLabels => ({ labels: [], dropped: [{ label: issue.category, reason }] });
  if (answer.evidence.length < MIN_QUOTES) return dropped(`${answer.evidence.length} quote(s), at least ${MIN_QUOTES} required`);
  const checks = answer.evidence.map((quote) => ({ quote, check: checkQuote(material, quote, { sources: ['conversation'] }) }));
  const failed = checks.find((c) => !c.check.ok);
  if (failed) return dropped(failed.check.problem!);
  const evidence = checks.map((c) => quoteEvidence(c.quote, c.check.item!));
  const first = checks[0]!.check.item!;
  return {
    labels: [
      {
        judge: 'communication',
        label: issue.category,
        isPrimary: false,
        messageId: first.messageId,
        agent: first.agent,
        description: issue.description.trim() || nameOf(issue.category),
        evidence,
      },
    ],
    dropped: [],
  };
}

export const communicationJudge: LlmJudge<CommunicationAnswer> = {
  name: 'communication',
  title: 'communication errors (appendix F)',
  promptVersion: 'communication-2',
  schema: answerSchema,
  skipReason: (input) => (input.conversation.length === 0 ? 'no messages were exchanged' : undefined),
  prompt,
  labels,
  // At most one error per conversation: one category, or none, per case.
  calibration: {
    covers: () => true,
    score: (tally, got, c) => tally.classify(c.id, got[0]?.label ?? null, c.gold.communication),
    order: COMMUNICATION_ERRORS,
  },
};
