// The deterministic detectors (no LLM): labels for questions with no reply, near-duplicate
// messages, a first-turn plan and broken checkable commitments, and the conversation's
// specificity counts. Each label is defined in ../definitions.ts.
import type { JudgeInput, JudgeLabel } from '../types.ts';
import { loadGrammarsFor } from '../code/patch-code.ts';
import { extractCommitments, type Commitment } from './commitment-extract.ts';
import { brokenCommitmentLabels, brokenPromises, type BrokenPromise } from './commitments.ts';
import { nearDuplicates } from './duplicates.ts';
import { firstTurnPlan } from './first-turn-plan.ts';
import { loadLanguage } from './language.ts';
import { countMentions } from './mentions.ts';
import { questionsIn, questionsWithoutReply } from './questions.ts';

/** Bump when a detector changes what it finds: stored results carry it. */
export const DETECTORS_VERSION = 'detectors-18';

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
  /** The commitments read, and those the code does not keep (the labels' source, for calibration). */
  commitments: Commitment[];
  broken: BrokenPromise[];
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
  const broken = brokenPromises(input, commitments);
  const brokenLabels = brokenCommitmentLabels(broken);
  return {
    labels: [...plan, ...unanswered, ...duplicates, ...brokenLabels],
    metrics: {
      messages: conversation.length,
      questions: conversation.reduce((n, m) => n + questionsIn(m.message).length, 0),
      questionsWithoutReply: unanswered.length,
      nearDuplicates: duplicates.length,
      firstTurnPlan: plan.length > 0,
      commitments: commitments.length,
      brokenCommitments: brokenLabels.length,
      ...countMentions(conversation),
    },
    commitments,
    broken,
  };
}

export async function runDetectors(input: JudgeInput): Promise<DetectorResult> {
  await prepareDetectors(input);
  return detect(input);
}
