// What an LLM judge is: a prompt built from one task's input, the zod schema of its answer, the
// step that turns a validated answer into labels, dropping those whose evidence fails, and how the
// calibration set scores it. Every judge is one entry of registry.ts.
import type { z } from 'zod';
import type { CalibrationCase } from '../calibration/cases.ts';
import type { Tally } from '../calibration/tally.ts';
import type { JudgeInput, JudgeLabel } from '../types.ts';
import type { Material } from './material.ts';

export interface DroppedLabel {
  label: string;
  /** Why it was dropped (a quote not found, too few quotes, an unknown message...). */
  reason: string;
}

export interface JudgedLabels {
  labels: JudgeLabel[];
  dropped: DroppedLabel[];
}

export interface JudgePrompt {
  system: string;
  user: string;
  material: Material;
}

/** How the calibration set (calibration/cases.ts) scores a judge against the cases' gold. */
export interface JudgeCalibration {
  /** Whether a case has gold for this judge; the judge is not asked about the others. */
  covers(c: CalibrationCase): boolean;
  /** Adds one case's labels and gold to the judge's tally. */
  score(tally: Tally, labels: readonly JudgeLabel[], c: CalibrationCase): void;
  /** The order of the judge's rows in the score table (labels outside it follow by name). */
  order: readonly string[];
}

export interface LlmJudge<Answer> {
  /** Stored with each label (judge_labels.judge) and named by `--only`. */
  name: string;
  /** What it labels, in a few words, for the report and the help text. */
  title: string;
  /** Part of the cache key: bump it when the prompt or the schema changes. */
  promptVersion: string;
  /** What its calibration figures depend on when more than the prompt (default: promptVersion). */
  figuresVersion?: string;
  calibration: JudgeCalibration;
  schema: z.ZodType<Answer>;
  /** Why this task has nothing for the judge (e.g. no messages), or undefined to judge it. */
  skipReason(input: JudgeInput): string | undefined;
  /** Loads what `labels` needs for this input (e.g. the patches' grammars), before it runs. */
  prepare?(input: JudgeInput): Promise<void>;
  prompt(input: JudgeInput): JudgePrompt;
  labels(answer: Answer, material: Material, input: JudgeInput): JudgedLabels;
  /** Counts stored with the judge's result (e.g. speech acts per kind). */
  metrics?(labels: readonly JudgeLabel[]): Record<string, number>;
}
