// A judge written the way a new LLM judge is: one LlmJudge in one file. It asks whether the
// conversation opens with a plan and labels the first message `opening_plan`; the calibration
// cases' `first_turn_plan` gold scores it.
import { z } from 'zod';
import type { JudgedLabels, LlmJudge } from '../../../judges/llm/judge.ts';
import { conversationPrompt } from '../../../judges/llm/material.ts';
import type { JudgeInput } from '../../../judges/types.ts';

export const DUMMY_SYSTEM = 'You say whether the first message of a conversation between coding agents is a plan.';

const answerSchema = z.object({ plan: z.boolean() });
type DummyAnswer = z.infer<typeof answerSchema>;

function labels(answer: DummyAnswer, _material: unknown, input: JudgeInput): JudgedLabels {
  const first = input.conversation[0];
  if (!answer.plan || !first) return { labels: [], dropped: [] };
  return {
    labels: [
      {
        judge: 'opening_plan',
        label: 'opening_plan',
        isPrimary: false,
        messageId: first.id,
        agent: first.from,
        description: 'the conversation opens with a plan',
        evidence: [{ kind: 'fact', text: 'the judge model read the first message as a plan' }],
      },
    ],
    dropped: [],
  };
}

export const dummyJudge: LlmJudge<DummyAnswer> = {
  name: 'opening_plan',
  title: 'an opening plan',
  promptVersion: 'opening-plan-1',
  schema: answerSchema,
  skipReason: (input) => (input.conversation.length === 0 ? 'no messages were exchanged' : undefined),
  prompt: (input) => ({ system: DUMMY_SYSTEM, ...conversationPrompt(input, { closing: 'Answer {"plan": true} or {"plan": false}.' }) }),
  labels,
  calibration: {
    covers: () => true,
    score: (tally, got, c) => tally.compare('opening_plan', got.length > 0 ? [c.id] : [], c.gold.first_turn_plan ? [c.id] : []),
    order: ['opening_plan'],
  },
};
