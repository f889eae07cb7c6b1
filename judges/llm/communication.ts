// Communication errors (paper appendix F): at most one category per conversation, each backed by
// at least two quotes from the messages. Precision first: the prompt asks for no issue unless the
// evidence is explicit, and a label whose quotes are not in the conversation is dropped.
import { z } from 'zod';
import type { JudgeInput } from '../types.ts';
import { checkQuote, quoteEvidence } from './evidence.ts';
import type { JudgedLabels, LlmJudge } from './judge.ts';
import { conversationPrompt, type Material } from './material.ts';

export const COMMUNICATION_ERRORS = ['C1a', 'C1b', 'C2', 'C3a', 'C3b', 'C4a', 'C4b'] as const;
export type CommunicationError = (typeof COMMUNICATION_ERRORS)[number];

export const COMMUNICATION_ERROR_NAMES: Record<CommunicationError, string> = {
  C1a: 'unanswered direct question (no reply)',
  C1b: 'unanswered direct question (ignored)',
  C2: 'non-answer or vague answer',
  C3a: 'incorrect claim (uncorrected)',
  C3b: 'incorrect claim (corrected)',
  C4a: 'spammy repetition (same information)',
  C4b: 'spammy repetition (near-duplicate status blocks)',
};

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
- C1a unanswered direct question, no reply: an agent asks its partner a direct question or asks it for a decision, and the partner never responds to it.
- C1b unanswered direct question, ignored: the partner writes again after the question, but nothing it writes addresses the question.
- C2 non-answer or vague answer: the partner responds to the question, but so vaguely or evasively that the decision stays open.
- C3a incorrect claim, uncorrected: an agent states something about the code, the plan or its own progress that a later message shows to be false, and nobody corrects it.
- C3b incorrect claim, corrected: as C3a, but a later message does correct it.
- C4a repetition: an agent repeats the same information in several messages without adding anything the partner can act on.
- C4b near-duplicate status blocks: an agent sends status reports that are nearly identical to each other.

Not an issue by itself: the agents being unable to see each other's branches or changes (that is how the setup works). Bad communication around that topic can still be an issue.

Evidence: at least two quotes that together make the issue undeniable. C1a and C1b: the question, plus a quote showing the missing or irrelevant response (for C1a, for example the partner's last message, or the asker noting that no answer came). C2: the question and the vague answer. C3a and C3b: the claim and the later message that contradicts it (and for C3b, the correction). C4a and C4b: two of the repeating messages.

Answer with one JSON object and nothing else:
{"evidence": ["<quote>", "<quote>"], "issue": {"category": "<C1a|C1b|C2|C3a|C3b|C4a|C4b>", "description": "<one sentence>"}}
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
    labels: [{
      judge: 'communication',
      label: issue.category,
      isPrimary: false,
      messageId: first.messageId,
      agent: first.agent,
      description: issue.description.trim() || COMMUNICATION_ERROR_NAMES[issue.category],
      evidence,
    }],
    dropped: [],
  };
}

export const communicationJudge: LlmJudge<CommunicationAnswer> = {
  name: 'communication',
  promptVersion: 'communication-1',
  schema: answerSchema,
  skipReason: (input) => (input.conversation.length === 0 ? 'no messages were exchanged' : undefined),
  prompt,
  labels,
};
