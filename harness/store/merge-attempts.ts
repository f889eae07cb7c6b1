// The merge cascade's attempts in run.db: one row per stage that ran (merge_attempts, schema.ts),
// written as the task's result is saved. stored-attempts.ts reads them back.
import type Database from 'better-sqlite3';
import { ATTEMPT_OUTCOMES, REPAIRED_PATCH_ATTEMPT, stageNamed, type MergeAttempt } from '../../resolver/index.ts';
import type { FeatureEvaluation } from '../run/types.ts';
import { boundText } from '../errors.ts';

/** One feature's verdict on an attempt's code. */
export interface AttemptTest {
  feature: number;
  passed: boolean;
  cached: boolean;
}

/** A stage name an attempt may be stored under: a merge stage's, or the repaired-patch attempt. */
export const isAttemptStage = (name: string): boolean => stageNamed(name) !== undefined || name === REPAIRED_PATCH_ATTEMPT;

const MAX_DETAILS = 64 * 1024;

/** Stage facts as JSON, within bounds: regions beyond the bound are left out and counted. */
function detailsJson(details: Record<string, unknown> | undefined): string | null {
  if (!details) return null;
  const json = JSON.stringify(details);
  if (json.length <= MAX_DETAILS) return json;
  const regions = Array.isArray(details.regions) ? details.regions : [];
  const kept: unknown[] = [];
  for (const region of regions) {
    if (JSON.stringify({ ...details, regions: [...kept, region] }).length > MAX_DETAILS) break;
    kept.push(region);
  }
  const trimmed = JSON.stringify({ ...details, regions: kept, regionsOmitted: regions.length - kept.length });
  return trimmed.length <= MAX_DETAILS ? trimmed : JSON.stringify({ omitted: `details larger than ${MAX_DETAILS / 1024} KiB` });
}

/** Replaces a task's attempts. Unknown stages or outcomes are a harness bug, never stored. */
export function saveAttempts(db: Database.Database, task: number, attempts: MergeAttempt<FeatureEvaluation[]>[]): void {
  db.prepare('DELETE FROM merge_attempts WHERE task = ?').run(task);
  const insert = db.prepare(
    `INSERT INTO merge_attempts (task, idx, stage, outcome, reason, patch_hash, tests, passed, final, details, duration_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  attempts.forEach((a, idx) => {
    if (!isAttemptStage(a.stage) || !ATTEMPT_OUTCOMES.includes(a.outcome))
      throw new Error(`merge attempt with unknown stage or outcome: ${a.stage} ${a.outcome}`);
    const tests: AttemptTest[] | undefined = a.tested?.verdict.map((e) => ({ feature: e.feature, passed: e.passed, cached: e.cached === true }));
    insert.run(
      task,
      idx,
      a.stage,
      a.outcome,
      a.reason ? boundText(a.reason, 2000) : null,
      a.patchHash ?? null,
      tests ? JSON.stringify(tests) : null,
      a.tested ? (a.tested.passed ? 1 : 0) : null,
      a.final ? 1 : 0,
      detailsJson(a.details),
      a.durationMs,
    );
  });
}
