// What an LLM judge is: a prompt built from one task's input, the zod schema of its answer, and
// the step that turns a validated answer into labels, dropping those whose evidence fails.
import type { z } from 'zod';
import type { JudgeInput, JudgeLabel, JudgeName } from '../types.ts';
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

export interface LlmJudge<Answer> {
  name: Exclude<JudgeName, 'detectors'>;
  /** Part of the cache key: bump it when the prompt or the schema changes. */
  promptVersion: string;
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
