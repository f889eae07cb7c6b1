// A run.db as coop-bench wrote it before merge attempts were stored (schema 6: the shipped
// migrations up to then, and the merge's stage columns `naive_clean`, `union_used`, `llm_*`).
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { migrations } from '../../harness/store/schema.ts';

export const SCHEMA_BEFORE_ATTEMPTS = 6;

export interface LegacyTask {
  setting?: 'coop' | 'solo';
  repo?: string;
  taskId?: number;
  features: number[];
  poolDir?: string;
  /** One per agent. */
  patches?: string[];
  merge: {
    status: 'clean' | 'union' | 'llm' | 'conflict' | 'missing_input';
    patch?: string;
    llm?: { outcome: 'accepted' | 'rejected' | 'skipped' | 'error'; reason?: string; regions?: string };
  };
  passed: boolean;
}

export function writeLegacyRun(runsDir: string, name: string, tasks: LegacyTask[]): void {
  mkdirSync(join(runsDir, name), { recursive: true });
  const db = new Database(join(runsDir, name, 'run.db'));
  for (const sql of migrations.slice(0, SCHEMA_BEFORE_ATTEMPTS)) db.exec(sql);
  db.pragma(`user_version = ${SCHEMA_BEFORE_ATTEMPTS}`);
  const t = '2026-01-01T00:00:00.000Z';
  db.prepare(`INSERT INTO runs (name, created_at, updated_at, status, options) VALUES (?, ?, ?, 'finished', '{}')`).run(name, t, t);
  tasks.forEach((task, i) => {
    const setting = task.setting ?? 'coop';
    const repo = task.repo ?? 'argkit_task';
    const m = task.merge;
    const id = Number(
      db
        .prepare(
          `INSERT INTO tasks (key, models, setting, repo, task_id, features, pool_dir, status, both_passed, started_at, finished_at, attempts)
      VALUES (?, '["oracle"]', ?, ?, ?, ?, ?, 'done', ?, ?, ?, 1)`,
        )
        .run(`legacy-${i}`, setting, repo, task.taskId ?? 1, JSON.stringify(task.features), task.poolDir ?? `/pools/${repo}/task1`, task.passed ? 1 : 0, t, t)
        .lastInsertRowid,
    );
    (task.patches ?? []).forEach((patch, a) => {
      db.prepare(`INSERT INTO agents (task, agent, model, features, status, steps, patch) VALUES (?, ?, 'oracle', ?, 'finished', 1, ?)`).run(
        id,
        `agent${a + 1}`,
        JSON.stringify(setting === 'solo' ? task.features : [task.features[a]]),
        patch,
      );
    });
    db.prepare(
      `INSERT INTO merges (task, status, strategy, naive_clean, union_used, llm_used, conflict_regions, files, dropped_test_files, reason, patch, timings,
        llm_outcome, llm_reason, llm_latency_ms, llm_model, llm_regions) VALUES (?, ?, ?, ?, ?, ?, 1, '[]', '[[],[]]', NULL, ?, '{"naive":3,"union":2}', ?, ?, ?, ?, ?)`,
    ).run(
      id,
      m.status,
      m.status === 'clean' ? 'naive' : m.status === 'union' || m.status === 'llm' ? m.status : null,
      m.status === 'clean' ? 1 : 0,
      m.status === 'union' || m.status === 'llm' ? 1 : 0,
      m.status === 'llm' ? 1 : 0,
      m.patch ?? `patch ${i}\n`,
      m.llm?.outcome ?? null,
      m.llm?.reason ?? null,
      m.llm ? 12.5 : null,
      m.llm ? 'resolver@http://127.0.0.1:8080/v1' : null,
      m.llm?.regions ?? null,
    );
    for (const feature of task.features) {
      db.prepare(`INSERT INTO evaluations (task, feature, passed, exit_code, timed_out, output, duration_ms, cached) VALUES (?, ?, ?, ?, 0, 'out', 10, 0)`).run(
        id,
        feature,
        task.passed ? 1 : 0,
        task.passed ? 0 : 1,
      );
    }
  });
  db.close();
}
