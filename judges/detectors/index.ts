// The deterministic detectors (no LLM): labels for questions with no reply, near-duplicate
// messages, a first-turn plan and broken checkable commitments, and the conversation's
// specificity counts. Each label is defined in ../definitions.ts.
import type { JudgeInput, JudgeLabel } from '../types.ts';
import { loadGrammarsFor } from '../code/patch-code.ts';
import { extractCommitments } from './commitment-extract.ts';
import { brokenCommitments } from './commitments.ts';
import { nearDuplicates } from './duplicates.ts';
import { firstTurnPlan } from './first-turn-plan.ts';
import { loadLanguage } from './language.ts';
import { countMentions } from './mentions.ts';
import { questionsIn, questionsWithoutReply } from './questions.ts';

/** Bump when a detector changes what it finds: stored results carry it. */
export const DETECTORS_VERSION = 'detectors-16';

export interface DetectorMetrics {
  messages: number;
  questions: number;
  questionsWithoutReply: number;
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

/** Loads what the detectors need for this input (the NLP model, the patches' grammars). */
export async function prepareDetectors(input: JudgeInput): Promise<void> {
  await Promise.all([loadLanguage(), loadGrammarsFor([...input.patches.map((p) => p.patch), input.merge?.patch ?? ''])]);
}

/** Runs the detectors; call prepareDetectors(input) first (runDetectors does both). */
export function detect(input: JudgeInput): DetectorResult {
  const conversation = input.conversation;
  const unanswered = questionsWithoutReply(conversation);
  const duplicates = nearDuplicates(conversation);
  const plan = firstTurnPlan(conversation);
  const commitments = extractCommitments(conversation);
  const broken = brokenCommitments(input, commitments);
  return {
    labels: [...plan, ...unanswered, ...duplicates, ...broken],
    metrics: {
      messages: conversation.length,
      questions: conversation.reduce((n, m) => n + questionsIn(m.message).length, 0),
      questionsWithoutReply: unanswered.length,
      nearDuplicates: duplicates.length,
      firstTurnPlan: plan.length > 0,
      commitments: commitments.length,
      brokenCommitments: broken.length,
      ...countMentions(conversation),
    },
  };
}

export async function runDetectors(input: JudgeInput): Promise<DetectorResult> {
  await prepareDetectors(input);
  return detect(input);
}
