// The deterministic detectors (no LLM): labels for unanswered questions, near-duplicate messages,
// a first-turn plan and broken commitments, and the conversation's specificity counts.
import type { JudgeInput, JudgeLabel } from '../types.ts';
import { extractCommitments } from './commitment-extract.ts';
import { brokenCommitments } from './commitments.ts';
import { nearDuplicates } from './duplicates.ts';
import { firstTurnPlan } from './first-turn-plan.ts';
import { countMentions } from './mentions.ts';
import { questionsIn, unansweredQuestions } from './questions.ts';

/** Bump when a detector changes what it finds: stored results carry it. */
export const DETECTORS_VERSION = 'detectors-1';

export const DETECTOR_LABELS = ['unanswered_question', 'near_duplicate', 'first_turn_plan', 'broken_commitment'] as const;
export type DetectorLabel = (typeof DETECTOR_LABELS)[number];

export interface DetectorMetrics {
  messages: number;
  questions: number;
  unansweredQuestions: number;
  nearDuplicates: number;
  firstTurnPlan: boolean;
  commitments: number;
  brokenCommitments: number;
  lineNumberMentions: number;
  filePathMentions: number;
}

export interface DetectorResult {
  labels: JudgeLabel[];
  metrics: DetectorMetrics;
}

export function runDetectors(input: JudgeInput): DetectorResult {
  const conversation = input.conversation;
  const unanswered = unansweredQuestions(conversation);
  const duplicates = nearDuplicates(conversation);
  const plan = firstTurnPlan(conversation);
  const commitments = extractCommitments(conversation);
  const broken = brokenCommitments(input, commitments);
  return {
    labels: [...plan, ...unanswered, ...duplicates, ...broken],
    metrics: {
      messages: conversation.length,
      questions: conversation.reduce((n, m) => n + questionsIn(m.message).length, 0),
      unansweredQuestions: unanswered.length,
      nearDuplicates: duplicates.length,
      firstTurnPlan: plan.length > 0,
      commitments: commitments.length,
      brokenCommitments: broken.length,
      ...countMentions(conversation),
    },
  };
}
