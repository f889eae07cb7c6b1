// The merge cascade's attempts as stored in run.db (merge_attempts), read back and checked.
import { z } from 'zod';
import { ATTEMPT_OUTCOMES } from '../../resolver/index.ts';
import type { RunStore } from './run-store.ts';
import { sqlOf } from './database.ts';
import { flag, json, oneOf, parseRow, type RowPlace } from './columns.ts';
import { isAttemptStage, type AttemptTest } from './merge-attempts.ts';

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
