// The deterministic detectors (no LLM): labels for questions with no reply, near-duplicate
// messages, a first-turn plan and broken checkable commitments, and the conversation's
// specificity counts. Each label is defined in ../definitions.ts.
import { asUndecided, undecidedLabel, type JudgeInput, type JudgeLabel } from '../types.ts';
import { loadGrammarsFor } from '../code/patch-code.ts';
import { extractCommitments, type Commitment } from './commitment-extract.ts';
import { codeSeen, DOUBT_RULES, readingDoubt } from './commitment-doubts.ts';
import { READING_RULES } from './commitment-reading-rules.ts';
import { FRAME_RULES } from './commitment-frames.ts';
import { REPLY_RULES } from './commitment-reply-rules.ts';
import { VERB_WORDS } from './commitment-verb-words.ts';
import { WORD_CLASSES } from './commitment-word-classes.ts';
import { brokenCommitmentLabels, brokenPromises, type BrokenPromise } from './commitments.ts';
import { DUPLICATE_RULES, nearDuplicates } from './duplicates.ts';
import { firstTurnPlan, PLAN_RULES } from './first-turn-plan.ts';
import { loadLanguage } from './language.ts';
import { countMentions } from './mentions.ts';
import { QUESTION_RULES, questionsIn, questionsWithoutReply } from './questions.ts';

/** Bump when a detector changes what it finds: stored results carry it. */
export const DETECTORS_VERSION = 'detectors-22';

/** The rule tables of the detectors that read with rules as data (rules.ts), for calibration's per-rule figures. */
export const DETECTOR_RULE_TABLES = [PLAN_RULES, QUESTION_RULES, DUPLICATE_RULES, READING_RULES, FRAME_RULES, VERB_WORDS, REPLY_RULES, DOUBT_RULES] as const;

/** Every rule table, the word classes of the structural readers too (they decide nothing alone, so calibration does not count them). */
export const RULE_TABLES = [...DETECTOR_RULE_TABLES, WORD_CLASSES] as const;

export interface DetectorMetrics {
  messages: number;
  questions: number;
  questionsWithoutReply: number;
  nearDuplicates: number;
  firstTurnPlan: boolean;
  commitments: number;
  brokenCommitments: number;
  /** Findings each detector was not sure of (stored as `undecided:<label>` labels). */
  undecidedPlan: number;
  undecidedQuestions: number;
  undecidedDuplicates: number;
  undecidedCommitments: number;
  lineNumberMentions: number;
  filePathMentions: number;
}

export interface DetectorResult {
  labels: JudgeLabel[];
  metrics: DetectorMetrics;
  /** The commitments read, and those the code does not keep and the reading is sure of (the labels' source, for calibration). */
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
  const found = brokenPromises(input, commitments);
  const seen = codeSeen(input);
  const doubts = new Map(found.map((b) => [b, readingDoubt(b, seen)]));
  const broken = found.filter((b) => doubts.get(b) === undefined);
  const brokenLabels = brokenCommitmentLabels(broken);
  // A message with one sure broken promise is labelled; one with only unsure ones is undecided.
  const unsure = brokenCommitmentLabels(
    found.filter((b) => doubts.get(b) !== undefined && !brokenLabels.some((l) => l.messageId === b.commitment.messageId)),
  ).map((l) => asUndecided(l, [...new Set(found.filter((b) => b.commitment.messageId === l.messageId).flatMap((b) => doubts.get(b) ?? []))].join('; ')));
  const labels = [...plan, ...unanswered, ...duplicates, ...brokenLabels, ...unsure];
  const count = (label: string, decided: boolean) => labels.filter((l) => l.label === (decided ? label : undecidedLabel(label))).length;
  return {
    labels,
    metrics: {
      messages: conversation.length,
      questions: conversation.reduce((n, m) => n + questionsIn(m.message).length, 0),
      questionsWithoutReply: count('question_no_reply', true),
      nearDuplicates: count('near_duplicate', true),
      firstTurnPlan: count('first_turn_plan', true) > 0,
      commitments: commitments.length,
      brokenCommitments: brokenLabels.length,
      undecidedPlan: count('first_turn_plan', false),
      undecidedQuestions: count('question_no_reply', false),
      undecidedDuplicates: count('near_duplicate', false),
      undecidedCommitments: unsure.length,
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
