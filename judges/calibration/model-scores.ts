// The LLM judges' calibration figures, per judge model, that the report shows beside the labels that
// model gave. `coop-bench judge --calibrate --judge-model <spec> --write-scores` writes them into the
// runs folder: they describe the user's model, not this package, so they live with the runs they judge.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { JudgeInputError } from '../errors.ts';
import { llmJudges } from '../llm/registry.ts';
import { SPLITS, type Split } from './cases.ts';
import type { LabelScore } from './tally.ts';

export const MODEL_SCORES_NAME = 'judge-calibration.json';

const labelSchema = z.object({ label: z.string(), tp: z.number().int(), fp: z.number().int(), fn: z.number().int() });
const measurementSchema = z.object({
  judge: z.string(),
  model: z.string(),
  /** judgeVersion(judge) when measured: figures of another prompt (or other code checks) describe another judge. */
  version: z.string(),
  measuredAt: z.string(),
  splits: z.record(z.enum(SPLITS), z.object({ cases: z.number().int(), labels: z.array(labelSchema) })),
});
const fileSchema = z.object({ measurements: z.array(measurementSchema) });
export type ModelMeasurement = z.infer<typeof measurementSchema>;
export type SplitScores = Record<Split, { cases: number; labels: readonly LabelScore[] }>;

/** What the figures of an LLM judge depend on besides the model: its prompt, and whatever else it names (LlmJudge.figuresVersion). */
export function judgeVersion(judge: string): string | undefined {
  const found = llmJudges().find((j) => j.name === judge);
  return found && (found.figuresVersion ?? found.promptVersion);
}

const fileIn = (runsDir: string) => join(runsDir, MODEL_SCORES_NAME);

/** Every measurement stored in the runs folder (none when the file is missing or unreadable). */
export function readModelScores(runsDir: string): ModelMeasurement[] {
  const file = fileIn(runsDir);
  if (!existsSync(file)) return [];
  try {
    const parsed = fileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data.measurements : [];
  } catch {
    return [];
  }
}

/** Stores one model's figures per judge, replacing that model's earlier ones; returns the file written. */
export function writeModelScores(runsDir: string, model: string, scores: SplitScores, now = new Date()): string {
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
  const kept = readModelScores(runsDir).filter((m) => m.model !== model || !judges.includes(m.judge));
  const file = fileIn(runsDir);
  try {
    mkdirSync(runsDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify({ measurements: [...kept, ...measured] }, null, 2)}\n`);
  } catch (error) {
    throw new JudgeInputError(`cannot write ${file}: ${(error as Error).message} (choose a writable --runs-dir)`);
  }
  return file;
}

/** The held-out figures of a judge as that model gave it, measured with the judge as it is now. */
export function modelTestScores(measurements: readonly ModelMeasurement[], judge: string, model: string) {
  return measurements.find((x) => x.judge === judge && x.model === model && x.version === judgeVersion(judge))?.splits.test;
}
