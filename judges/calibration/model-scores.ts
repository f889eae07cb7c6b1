// The LLM judges' calibration figures, per judge model, that the report shows beside the labels that
// model gave. They are derived from the model's readings (readings.ts) and stored with them, in its
// readings file, by `coop-bench judge --calibrate --judge-model <spec> --record --write-scores`: one
// source, so the figures describe exactly the answers stored.
import { z } from 'zod';
import { llmJudges } from '../llm/registry.ts';
import { SPLITS, type Split } from './cases.ts';
import type { LabelScore } from './tally.ts';

const labelSchema = z.object({ label: z.string(), tp: z.number().int(), fp: z.number().int(), fn: z.number().int() });
export const measurementSchema = z.object({
  judge: z.string(),
  model: z.string(),
  /** judgeVersion(judge) when measured: figures of another prompt (or other code checks) describe another judge. */
  version: z.string(),
  measuredAt: z.string(),
  splits: z.record(z.enum(SPLITS), z.object({ cases: z.number().int(), labels: z.array(labelSchema) })),
});
export type ModelMeasurement = z.infer<typeof measurementSchema>;
export type SplitScores = Record<Split, { cases: number; labels: readonly LabelScore[] }>;

/** What the figures of an LLM judge depend on besides the model: its prompt, and whatever else it names (LlmJudge.figuresVersion). */
export function judgeVersion(judge: string): string | undefined {
  const found = llmJudges().find((j) => j.name === judge);
  return found && (found.figuresVersion ?? found.promptVersion);
}

/** One model's figures per judge, replacing that model's earlier figures of the same judges in `earlier`. */
export function withMeasurements(earlier: readonly ModelMeasurement[], model: string, scores: SplitScores, now = new Date()): ModelMeasurement[] {
  const judges = [...new Set(SPLITS.flatMap((s) => scores[s].labels.map((l) => l.judge)))];
  const measured = judges.map((judge): ModelMeasurement => ({
    judge,
    model,
    version: judgeVersion(judge) ?? judge,
    measuredAt: now.toISOString(),
    splits: Object.fromEntries(
      SPLITS.map((s) => [
        s,
        { cases: scores[s].cases, labels: scores[s].labels.filter((l) => l.judge === judge).map(({ label, tp, fp, fn }) => ({ label, tp, fp, fn })) },
      ]),
    ) as ModelMeasurement['splits'],
  }));
  return [...earlier.filter((m) => m.model !== model || !judges.includes(m.judge)), ...measured];
}

/** The held-out figures of a judge as that model gave it, measured with the judge as it is now. */
export function modelTestScores(measurements: readonly ModelMeasurement[], judge: string, model: string) {
  return measurements.find((x) => x.judge === judge && x.model === model && x.version === judgeVersion(judge))?.splits.test;
}
