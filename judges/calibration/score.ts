// Precision and recall on the calibration set: for the deterministic detectors (per message, or
// per conversation for the first-turn plan; mention counts as exact matches), and for the LLM
// judges (communication error and primary symptom per conversation, speech act per message).
import type { Model } from '../../harness/models/types.ts';
import { runDetectors } from '../detectors/index.ts';
import { addUsage, NO_USAGE, type UsageTotal } from '../llm/ask.ts';
import { COMMUNICATION_ERRORS, communicationJudge } from '../llm/communication.ts';
import { SPEECH_ACTS, speechActsJudge } from '../llm/speech-acts.ts';
import { SYMPTOMS, symptomsJudge } from '../llm/symptoms.ts';
import { llmOutcome, memoryCache, type AnswerCache } from '../run-judge.ts';
import { caseInput, type CalibrationCase } from './cases.ts';

export interface LabelScore {
  judge: string;
  label: string;
  tp: number;
  fp: number;
  fn: number;
}

export interface CountScore {
  label: string;
  exact: number;
  cases: number;
  meanAbsoluteError: number;
}

export const precision = (s: LabelScore) => (s.tp + s.fp === 0 ? null : s.tp / (s.tp + s.fp));
export const recall = (s: LabelScore) => (s.tp + s.fn === 0 ? null : s.tp / (s.tp + s.fn));

class Tally {
  private readonly scores = new Map<string, LabelScore>();
  constructor(private readonly judge: string) {}

  private row(label: string): LabelScore {
    let row = this.scores.get(label);
    if (!row) this.scores.set(label, (row = { judge: this.judge, label, tp: 0, fp: 0, fn: 0 }));
    return row;
  }

  /** Items (message numbers, or one conversation) predicted and expected for one label. */
  compare(label: string, predicted: Iterable<number | string>, expected: Iterable<number | string>): void {
    const p = new Set(predicted);
    const e = new Set(expected);
    const row = this.row(label);
    for (const x of p) if (e.has(x)) row.tp++;
    else row.fp++;
    for (const x of e) if (!p.has(x)) row.fn++;
  }

  /** One predicted and one expected category (or none) per item. */
  classify(item: string, predicted: string | null | undefined, expected: string | null | undefined): void {
    if (predicted) this.compare(predicted, [item], predicted === expected ? [item] : []);
    if (expected && predicted !== expected) this.compare(expected, [], [item]);
  }

  rows(order: readonly string[] = []): LabelScore[] {
    const rank = (label: string) => (order.includes(label) ? order.indexOf(label) : order.length);
    return [...this.scores.values()].sort((a, b) => rank(a.label) - rank(b.label) || a.label.localeCompare(b.label));
  }
}

export interface DetectorScores {
  labels: LabelScore[];
  counts: CountScore[];
}

export function scoreDetectors(cases: readonly CalibrationCase[]): DetectorScores {
  const tally = new Tally('detectors');
  const counts = { line_number_mentions: [] as number[][], file_path_mentions: [] as number[][] };
  for (const c of cases) {
    const { labels, metrics } = runDetectors(caseInput(c));
    const ids = (label: string) => labels.filter((l) => l.label === label).map((l) => l.messageId!);
    tally.compare('unanswered_question', ids('unanswered_question'), c.gold.unanswered_question);
    tally.compare('near_duplicate', ids('near_duplicate'), c.gold.near_duplicate);
    tally.compare('first_turn_plan', metrics.firstTurnPlan ? [c.id] : [], c.gold.first_turn_plan ? [c.id] : []);
    if (c.patches) tally.compare('broken_commitment', ids('broken_commitment'), c.gold.broken_commitment);
    counts.line_number_mentions.push([metrics.lineNumberMentions, c.gold.line_number_mentions]);
    counts.file_path_mentions.push([metrics.filePathMentions, c.gold.file_path_mentions]);
  }
  return {
    labels: tally.rows(['unanswered_question', 'near_duplicate', 'first_turn_plan', 'broken_commitment']),
    counts: Object.entries(counts).map(([label, pairs]) => ({
      label,
      exact: pairs.filter(([got, want]) => got === want).length,
      cases: pairs.length,
      meanAbsoluteError: pairs.reduce((sum, [got, want]) => sum + Math.abs(got! - want!), 0) / Math.max(1, pairs.length),
    })),
  };
}

export interface LlmScores {
  labels: LabelScore[];
  /** Conversations whose gold has no communication error and that got none. */
  cleanKeptClean: { kept: number; of: number };
  dropped: number;
  errors: string[];
  usage: UsageTotal;
}

export async function scoreLlmJudges(
  cases: readonly CalibrationCase[],
  model: Model,
  options: { timeoutMs: number; cache?: AnswerCache },
): Promise<LlmScores> {
  const cache = options.cache ?? memoryCache();
  const communication = new Tally('communication');
  const symptoms = new Tally('symptoms');
  const acts = new Tally('speech_acts');
  let dropped = 0;
  const errors: string[] = [];
  let usage = NO_USAGE;
  const clean = { kept: 0, of: 0 };

  for (const c of cases) {
    const input = caseInput(c);
    const outcomes = await Promise.all([
      llmOutcome(communicationJudge, input, model, cache, options),
      c.gold.symptoms ? llmOutcome(symptomsJudge, input, model, cache, options) : undefined,
      llmOutcome(speechActsJudge, input, model, cache, options),
    ]);
    for (const o of outcomes) {
      if (!o) continue;
      dropped += o.dropped.length;
      if (!o.cached) usage = addUsage(usage, o.usage);
      if (o.status === 'error') errors.push(`${c.id} ${o.judge}: ${o.reason}`);
    }
    const [comm, symp, speech] = outcomes;
    const predictedError = comm!.labels[0]?.label ?? null;
    communication.classify(c.id, predictedError, c.gold.communication);
    if (c.gold.communication === null) {
      clean.of++;
      if (predictedError === null) clean.kept++;
    }
    if (symp) symptoms.classify(c.id, symp.labels.find((l) => l.isPrimary)?.label, c.gold.symptoms!.primary);
    c.messages.forEach((m, i) => acts.classify(`${c.id}#${i + 1}`, speech!.labels.find((l) => l.messageId === i + 1)?.label, m.act));
  }
  return { labels: [...communication.rows(COMMUNICATION_ERRORS), ...symptoms.rows(SYMPTOMS), ...acts.rows(SPEECH_ACTS)], cleanKeptClean: clean, dropped, errors, usage };
}
