// The detectors' calibration figures as the report shows them beside the detectors' counts: each
// label's precision and recall per split, written by `coop-bench judge --calibrate --write-scores`
// next to the cases and checked by a test to match a fresh scoring (so it never goes stale).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DETECTORS_VERSION } from '../detectors/index.ts';
import { casesOfSplit, loadCalibrationSet, SPLITS, type CalibrationCase, type Split } from './cases.ts';
import { scoreDetectors, type LabelScore } from './score.ts';

export const STORED_SCORES_FILE = fileURLToPath(new URL('./detector-scores.json', import.meta.url));

const labelSchema = z.object({ label: z.string(), tp: z.number().int(), fp: z.number().int(), fn: z.number().int() });
const storedSchema = z.object({
  detectorsVersion: z.string(),
  splits: z.record(z.enum(SPLITS), z.object({ cases: z.number().int(), labels: z.array(labelSchema) })),
});
export type StoredScores = z.infer<typeof storedSchema>;

export async function computeStoredScores(cases: readonly CalibrationCase[] = loadCalibrationSet()): Promise<StoredScores> {
  const splits = {} as Record<Split, { cases: number; labels: Omit<LabelScore, 'judge'>[] }>;
  for (const split of SPLITS) {
    const scores = await scoreDetectors(casesOfSplit(cases, split));
    splits[split] = { cases: scores.cases, labels: scores.labels.map(({ label, tp, fp, fn }) => ({ label, tp, fp, fn })) };
  }
  return { detectorsVersion: DETECTORS_VERSION, splits };
}

export function writeStoredScores(scores: StoredScores, file = STORED_SCORES_FILE): void {
  writeFileSync(file, `${JSON.stringify(scores, null, 2)}\n`);
}

/** The stored figures of the current detectors, or undefined (missing, unreadable, or of another version). */
export function readStoredScores(file = STORED_SCORES_FILE): StoredScores | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const parsed = storedSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success && parsed.data.detectorsVersion === DETECTORS_VERSION ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
