// The merge cascade's attempts in run.db: one row per stage that ran (merge_attempts, schema.ts).
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { ATTEMPT_OUTCOMES, stageNamed, type MergeAttempt } from '../../resolver/index.ts';
import type { FeatureEvaluation } from '../run/types.ts';
import { boundText } from '../errors.ts';
import type { RunStore } from './run-store.ts';
import { sqlOf } from './database.ts';
import { flag, json, oneOf, parseRow, type RowPlace } from './columns.ts';

/** One feature's verdict on an attempt's code. */
export interface AttemptTest {
  feature: number;
  passed: boolean;
  cached: boolean;
}

export interface StoredAttempt {
  stage: string;
  outcome: string;
  reason: string | null;
  patchHash: string | null;
  /** null: the code was not tested (no code, or a run without tests). */
  tests: AttemptTest[] | null;
  passed: boolean | null;
  final: boolean;
  details: Record<string, unknown> | null;
  durationMs: number | null;
}

/**
 * An attempt outside the cascade: the task's merge and tests again with the agents' patches that an
 * imported run recorded cut by the reference adapters' .strip(), repaired. Never the task's result.
 */
export const REPAIRED_PATCH_ATTEMPT = 'repaired-patch';

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

const attemptRow = z
  .object({
    stage: z.string().refine(isAttemptStage, { error: 'is not a merge stage' }),
    outcome: oneOf(ATTEMPT_OUTCOMES),
    reason: z.string().nullable(),
    patch_hash: z.string().nullable(),
    tests: json(z.array(z.object({ feature: z.number(), passed: z.boolean(), cached: z.boolean() }))).nullable(),
    passed: flag.nullable(),
    final: flag,
    details: json(z.record(z.string(), z.unknown())).nullable(),
    duration_ms: z.number().nullable(),
  })
  .transform((r): StoredAttempt => ({
    stage: r.stage,
    outcome: r.outcome,
    reason: r.reason,
    patchHash: r.patch_hash,
    tests: r.tests,
    passed: r.passed,
    final: r.final,
    details: r.details,
    durationMs: r.duration_ms,
  }));

/** A task's attempts, in cascade order; a DamagedRowError naming `place` when a row is damaged. */
export function attemptsOf(store: RunStore, task: number, place: RowPlace = { table: 'merge_attempts', of: `task #${task}` }): StoredAttempt[] {
  return sqlOf(store)
    .prepare('SELECT * FROM merge_attempts WHERE task = ? ORDER BY idx')
    .all(task)
    .map((row) => parseRow(attemptRow, row, place));
}

/** Every task's attempts without their details (what reports count), each task's rows unparsed until `parseAttempts`. */
export function attemptRowsByTask(store: RunStore): Map<number, unknown[]> {
  const rows = sqlOf(store)
    .prepare('SELECT task, stage, outcome, reason, patch_hash, tests, passed, final, NULL AS details, duration_ms FROM merge_attempts ORDER BY task, idx')
    .all() as { task: number }[];
  const byTask = new Map<number, unknown[]>();
  for (const row of rows) byTask.set(row.task, [...(byTask.get(row.task) ?? []), row]);
  return byTask;
}

export const parseAttempts = (rows: unknown[], place: RowPlace): StoredAttempt[] => rows.map((row) => parseRow(attemptRow, row, place));
