// The merge cascade's attempts in run.db: one row per stage that ran (merge_attempts, schema.ts).
import type Database from 'better-sqlite3';
import { ATTEMPT_OUTCOMES, stageNamed, type MergeAttempt } from '../../resolver/index.ts';
import type { FeatureEvaluation } from '../run/types.ts';
import { boundText } from '../errors.ts';

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
    if (!stageNamed(a.stage) || !ATTEMPT_OUTCOMES.includes(a.outcome)) throw new Error(`merge attempt with unknown stage or outcome: ${a.stage} ${a.outcome}`);
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

interface AttemptRow {
  task: number;
  stage: string;
  outcome: string;
  reason: string | null;
  patch_hash: string | null;
  tests: string | null;
  passed: number | null;
  final: number;
  details: string | null;
  duration_ms: number | null;
}

/** A stored JSON column; a damaged one reads as null rather than failing the reader. */
function parsed<T>(json: string | null): T | null {
  if (json === null) return null;
  try {
    return JSON.parse(json) as T;
  } catch {
    return null;
  }
}

function fromRow(row: AttemptRow): StoredAttempt {
  return {
    stage: row.stage,
    outcome: row.outcome,
    reason: row.reason,
    patchHash: row.patch_hash,
    tests: parsed<AttemptTest[]>(row.tests),
    passed: row.passed === null ? null : row.passed === 1,
    final: row.final === 1,
    details: parsed<Record<string, unknown>>(row.details),
    durationMs: row.duration_ms,
  };
}

/** A task's attempts, in cascade order. */
export function attemptsOf(db: Database.Database, task: number): StoredAttempt[] {
  return (db.prepare('SELECT * FROM merge_attempts WHERE task = ? ORDER BY idx').all(task) as AttemptRow[]).map(fromRow);
}

/** Every task's attempts without their details (what reports count). */
export function attemptsByTask(db: Database.Database): Map<number, StoredAttempt[]> {
  const rows = db
    .prepare('SELECT task, stage, outcome, reason, patch_hash, tests, passed, final, NULL AS details, duration_ms FROM merge_attempts ORDER BY task, idx')
    .all() as AttemptRow[];
  const byTask = new Map<number, StoredAttempt[]>();
  for (const row of rows) {
    const list = byTask.get(row.task) ?? [];
    list.push(fromRow(row));
    byTask.set(row.task, list);
  }
  return byTask;
}
