// runs/<name>/run.db: tasks and everything they produced. A task's results are written in one
// transaction, so a crash leaves either a finished task or one that will be run again.
import Database from 'better-sqlite3';
import { z } from 'zod';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { attachDatabase, checkpointWhenLarge, closeDatabase, openDatabase } from './database.ts';
import { parseRow, type RowPlace } from './columns.ts';
import type { TaskSpec } from '../../tasks/types.ts';
import { taskKey } from '../../tasks/types.ts';
import type { AgentResult, TaskResult } from '../run/types.ts';
import type { TrajectoryStep } from '../agents/trajectory.ts';
import type { Usage } from '../models/types.ts';
import { UserError, boundText, quoted } from '../errors.ts';
import { lockRun, type RunLock } from './run-lock.ts';
import { saveAttempts } from './merge-attempts.ts';
import { MERGE_STATUSES } from '../../resolver/index.ts';

export const TASK_STATUSES = ['pending', 'running', 'done', 'error', 'interrupted'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
/** Why a task did not finish (it is left out of the rates, and run again on resume); `pool`: a defect of its pool (a gold patch that does not apply). */
export const TASK_ERROR_KINDS = ['infrastructure', 'harness', 'pool', 'interrupted'] as const;
export type TaskErrorKind = (typeof TASK_ERROR_KINDS)[number];
export type RunStatus = 'running' | 'finished' | 'interrupted' | 'failed';

const text = z.string();
const optionalText = z.string().nullable();
/** A row of `tasks`. Its JSON columns (models, features) stay text: readers parse them with their own fallbacks. */
const TASK_ROW = z.object({
  id: z.number().int(),
  key: text,
  models: text,
  setting: z.enum(['coop', 'solo']),
  variant: text,
  repo: text,
  task_id: z.number().int(),
  features: text,
  pool_dir: text,
  image: optionalText,
  base_rev: optionalText,
  docker_host: optionalText,
  status: z.enum(TASK_STATUSES),
  error: optionalText,
  error_kind: z.enum(TASK_ERROR_KINDS).nullable(),
  /** Hash of the agent configuration the task ran with (null before it ran). */
  agent_config: optionalText,
  /** The run conditions the task ran under, JSON (harness/messaging/conditions.ts); null: none. */
  conditions: optionalText,
  both_passed: z.union([z.literal(0), z.literal(1)]).nullable(),
  started_at: optionalText,
  finished_at: optionalText,
  attempts: z.number().int().nonnegative(),
});
export type TaskRow = z.output<typeof TASK_ROW>;

const placeOf = (raw: unknown): RowPlace => ({ table: 'tasks', of: `task ${String((raw as { key?: unknown } | undefined)?.key)}` });

/** A `tasks` row as read from SQLite, checked; a DamagedRowError naming its first bad column otherwise. */
export const taskRow = (raw: unknown): TaskRow => parseRow(TASK_ROW, raw, placeOf(raw));

/**
 * What readers show of a task whose row is damaged: each column that is still valid, a neutral
 * value for the others. The damage itself is reported by the caller (the task counts as an error).
 */
export function salvagedTaskRow(raw: Record<string, unknown>): TaskRow {
  const neutral: Omit<TaskRow, 'id' | 'key'> = {
    ...{ models: '', setting: 'coop', variant: '', repo: '', task_id: 0, features: '', pool_dir: '', image: null, base_rev: null, docker_host: null },
    ...{
      status: 'error',
      error: null,
      error_kind: null,
      agent_config: null,
      conditions: null,
      both_passed: null,
      started_at: null,
      finished_at: null,
      attempts: 0,
    },
  };
  const valid = Object.entries(TASK_ROW.shape).flatMap(([column, schema]) => {
    const parsed = schema.safeParse(raw[column]);
    return parsed.success ? [[column, parsed.data]] : [];
  });
  return { ...neutral, id: Number(raw.id), key: String(raw.key), ...Object.fromEntries(valid) };
}

export interface AgentRow {
  task: number;
  agent: string;
  model: string;
  features: string;
  status: string;
  error: string | null;
  steps: number;
  patch: string;
  seat: 'model' | 'human';
  active_ms: number | null;
}

const RUN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const MAX_STORED_OUTPUT = 64 * 1024;

export function checkRunName(name: string): void {
  if (!RUN_NAME.test(name) || name.includes('..')) {
    throw new UserError(`run name ${quoted(name)} is not allowed: use 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit`);
  }
}

export function runDir(runsRoot: string, name: string): string {
  checkRunName(name);
  return join(resolve(runsRoot), name);
}

const now = () => new Date().toISOString();

/**
 * mkdir -p, one folder at a time: Node's recursive mkdir reports a read-only file system as ENOENT;
 * made step by step, the failing step says EROFS or EACCES.
 */
function createDir(dir: string): void {
  const missing: string[] = [];
  for (let d = dir; !existsSync(d) && dirname(d) !== d; d = dirname(d)) missing.unshift(d);
  try {
    for (const d of missing) {
      try {
        mkdirSync(d);
      } catch (error) {
        // Made meanwhile by another process (two runs starting at once).
        if ((error as { code?: string }).code !== 'EEXIST') throw error;
      }
    }
  } catch (error) {
    throw new UserError(`cannot create ${dir}: ${(error as Error).message} (choose a writable --runs-dir)`);
  }
}

export class RunStore {
  private constructor(
    private readonly db: Database.Database,
    readonly name: string,
    readonly dir: string,
    private readonly lock?: RunLock,
  ) {
    attachDatabase(this, db);
  }

  /**
   * Opens (and with `create`, creates) the store of run `name` under `runsRoot`; `readonly` for
   * commands that only read it (they write nothing into it). With `exclusive` (commands that write
   * results) it fails with a UserError while another process has the run open.
   */
  static open(
    runsRoot: string,
    name: string,
    { create, exclusive = false, readonly = false }: { create: boolean; exclusive?: boolean; readonly?: boolean },
  ): RunStore {
    const dir = runDir(runsRoot, name);
    const path = join(dir, 'run.db');
    if (!existsSync(path)) {
      if (!create) throw new UserError(`no run named "${name}" under ${resolve(runsRoot)} (start one with coop-bench run --name ${name})`);
      createDir(dir);
    }
    const db = openDatabase(path, dir, create ? 'create' : readonly ? 'read' : 'write');
    try {
      // Taken once the store is known to be readable; what came before changes no task.
      return new RunStore(db, name, dir, exclusive ? lockRun(dir, name) : undefined);
    } catch (error) {
      closeDatabase(db);
      throw error;
    }
  }

  close(): void {
    try {
      closeDatabase(this.db);
    } finally {
      this.lock?.release();
    }
  }

  startRun(options: unknown): void {
    const t = now();
    this.db
      .prepare(
        `INSERT INTO runs (name, created_at, updated_at, status, options) VALUES (?, ?, ?, 'running', ?)
         ON CONFLICT(name) DO UPDATE SET status = 'running', updated_at = excluded.updated_at, options = excluded.options`,
      )
      .run(this.name, t, t, JSON.stringify(options));
  }

  /** The run's status as the last process left it (undefined for a new run). */
  runStatus(): RunStatus | undefined {
    return (this.db.prepare('SELECT status FROM runs WHERE name = ?').get(this.name) as { status: RunStatus } | undefined)?.status;
  }

  setRunStatus(status: RunStatus): void {
    this.db.prepare('UPDATE runs SET status = ?, updated_at = ? WHERE name = ?').run(status, now(), this.name);
  }

  runOptions<T>(): T | undefined {
    const row = this.db.prepare('SELECT options FROM runs WHERE name = ?').get(this.name) as { options: string } | undefined;
    return row ? (JSON.parse(row.options) as T) : undefined;
  }

  /** Adds the task if new; returns its row either way. */
  ensureTask(task: TaskSpec): TaskRow {
    const key = taskKey(task);
    this.db
      .prepare(
        `INSERT INTO tasks (key, models, setting, variant, repo, task_id, features, pool_dir, status)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending') ON CONFLICT(key) DO NOTHING`,
      )
      .run(key, JSON.stringify(task.models), task.setting, task.variant, task.pool.repo, task.pool.taskId, JSON.stringify(task.features), task.pool.dir);
    return taskRow(this.db.prepare('SELECT * FROM tasks WHERE key = ?').get(key));
  }

  /** The run conditions the task runs under (validated JSON; null: none). */
  setConditions(id: number, conditions: object | null): void {
    const text = conditions && Object.keys(conditions).length > 0 ? JSON.stringify(conditions) : null;
    this.db.prepare('UPDATE tasks SET conditions = ? WHERE id = ?').run(text, id);
  }

  /**
   * A new attempt: what an earlier attempt left on the message bus, its steps, and the judges' view
   * of it, are not this attempt's. Its model calls stay: that money was spent.
   */
  markRunning(id: number, agentConfig: string | null = null): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM messages WHERE task = ?').run(id);
      this.db.prepare('DELETE FROM steps WHERE task = ?').run(id);
      this.db.prepare('DELETE FROM probes WHERE task = ?').run(id);
      this.db.prepare('DELETE FROM judge_labels WHERE task = ?').run(id);
      this.db.prepare('DELETE FROM judge_runs WHERE task = ?').run(id);
      this.db
        .prepare(
          `UPDATE tasks SET status = 'running', error = NULL, error_kind = NULL, agent_config = ?, started_at = ?, finished_at = NULL, attempts = attempts + 1 WHERE id = ?`,
        )
        .run(agentConfig, now(), id);
    })();
  }

  markError(id: number, error: string, kind: TaskErrorKind): void {
    const status = kind === 'interrupted' ? 'interrupted' : 'error';
    this.db
      .prepare('UPDATE tasks SET status = ?, error = ?, error_kind = ?, finished_at = ? WHERE id = ?')
      .run(status, boundText(error, 4000), kind, now(), id);
    checkpointWhenLarge(this.db);
  }

  /** Tasks left 'running' by a process that died: they will run again. */
  markStaleRunningInterrupted(): number {
    return this.db
      .prepare(
        `UPDATE tasks SET status = 'interrupted', error_kind = 'interrupted', error = 'the coop-bench process stopped during this task' WHERE status = 'running'`,
      )
      .run().changes;
  }

  /** One trajectory step, stored as it happens: a crash loses no step of the attempt. */
  recordStep(taskId: number, agent: string, step: TrajectoryStep): void {
    this.db
      .prepare('INSERT OR REPLACE INTO steps (task, agent, idx, at, kind, name, input, output, exit_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(...stepRow(taskId, agent, step));
    checkpointWhenLarge(this.db);
  }

  /** Everything a task produced, replacing what an earlier attempt wrote. */
  saveResult(id: number, result: TaskResult): void {
    const write = this.db.transaction(() => {
      this.saveAgents(id, result.agents);
      this.saveEvaluation(id, result);
      this.db
        .prepare(
          `UPDATE tasks SET status = 'done', error = NULL, error_kind = NULL, image = ?, base_rev = ?, docker_host = ?, both_passed = ?, finished_at = ? WHERE id = ?`,
        )
        .run(result.image, result.baseRev, result.dockerHost, result.bothPassed ? 1 : 0, now(), id);
    });
    write();
    checkpointWhenLarge(this.db);
  }

  /** The agents' patches and steps, replacing what an earlier attempt wrote. */
  saveAgents(id: number, agents: readonly AgentResult[]): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM agents WHERE task = ?').run(id);
      this.db.prepare('DELETE FROM steps WHERE task = ?').run(id);
      const insertStep = this.db.prepare('INSERT INTO steps (task, agent, idx, at, kind, name, input, output, exit_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
      for (const a of agents) {
        for (const step of a.steps) insertStep.run(...stepRow(id, a.agentId, step));
      }
      const insertAgent = this.db.prepare(
        'INSERT INTO agents (task, agent, model, features, status, error, steps, patch, seat, active_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      for (const a of agents) {
        const activeMs = a.person ? Math.max(0, Math.round(a.person.activeMs)) : null;
        insertAgent.run(
          id,
          a.agentId,
          a.model,
          JSON.stringify(a.features),
          a.status,
          a.error ?? null,
          a.steps.length,
          a.patch,
          a.person ? 'human' : 'model',
          activeMs,
        );
      }
    })();
  }

  /** Replaces a task's merge, attempt and evaluation rows (used by `coop-bench eval`). */
  saveEvaluation(id: number, result: Pick<TaskResult, 'merge' | 'attempts' | 'evaluations' | 'bothPassed'>): void {
    const write = this.db.transaction(() => {
      this.db.prepare('DELETE FROM merges WHERE task = ?').run(id);
      this.db.prepare('DELETE FROM evaluations WHERE task = ?').run(id);
      const m = result.merge;
      if (!MERGE_STATUSES.includes(m.status)) throw new Error(`unknown merge status ${m.status}`);
      this.db
        .prepare(
          `INSERT INTO merges (task, status, strategy, conflict_regions, files, dropped_test_files, reason, patch, timings)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          m.status,
          m.strategy ?? null,
          m.conflictRegions.length,
          JSON.stringify(m.files),
          JSON.stringify(m.droppedTestFiles),
          m.reason ?? null,
          m.patch,
          JSON.stringify(m.timingsMs),
        );
      saveAttempts(this.db, id, result.attempts);
      const insertEval = this.db.prepare(
        `INSERT INTO evaluations (task, feature, passed, exit_code, timed_out, framework, tests_passed, tests_failed, cause, output, duration_ms, cached)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const e of result.evaluations) {
        insertEval.run(
          id,
          e.feature,
          e.passed ? 1 : 0,
          e.exitCode,
          e.timedOut ? 1 : 0,
          e.counts?.framework ?? null,
          e.counts?.passed ?? null,
          e.counts?.failed ?? null,
          e.cause ?? null,
          boundText(e.output, MAX_STORED_OUTPUT),
          e.durationMs,
          e.cached ? 1 : 0,
        );
      }
      this.db.prepare('UPDATE tasks SET both_passed = ? WHERE id = ?').run(result.bothPassed ? 1 : 0, id);
    });
    write();
  }

  /** One model call of an agent, stored as it happens: cost so far survives a crash. */
  recordModelCall(taskId: number, agent: string, model: string, usage: Usage, stopReason?: string): void {
    this.db
      .prepare(
        `INSERT INTO model_calls (task, agent, idx, at, model, input_tokens, output_tokens, cost_usd, latency_ms,
                                  cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens, stop_reason)
         VALUES (?, ?, (SELECT COALESCE(MAX(idx) + 1, 0) FROM model_calls WHERE task = ? AND agent = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        taskId,
        agent,
        taskId,
        agent,
        now(),
        model,
        usage.inputTokens,
        usage.outputTokens,
        usage.costUsd,
        Math.round(usage.latencyMs),
        usage.cachedInputTokens ?? 0,
        usage.cacheWriteTokens ?? 0,
        usage.cacheWrite1hTokens ?? 0,
        usage.reasoningTokens ?? 0,
        stopReason ?? null,
      );
    checkpointWhenLarge(this.db);
  }

  /** The models that answered a call of a task whose latest attempt ran with this agent configuration. */
  modelsAnsweredUnder(agentConfig: string): string[] {
    const rows = this.db.prepare('SELECT DISTINCT model FROM model_calls WHERE task IN (SELECT id FROM tasks WHERE agent_config = ?)').all(agentConfig) as {
      model: string;
    }[];
    return rows.map((row) => row.model);
  }

  /** USD spent on model calls by the agents of this run, across attempts kept in the store. */
  agentCostUsd(): number {
    return (this.db.prepare('SELECT COALESCE(SUM(cost_usd), 0) AS cost FROM model_calls').get() as { cost: number }).cost;
  }

  /** The merged patch of the task's latest evaluation, if it has one. */
  mergedPatch(taskId: number): string | undefined {
    return (this.db.prepare('SELECT patch FROM merges WHERE task = ?').get(taskId) as { patch: string } | undefined)?.patch;
  }

  tasks(): TaskRow[] {
    return this.db.prepare('SELECT * FROM tasks ORDER BY id').all().map(taskRow);
  }

  agents(taskId: number): AgentRow[] {
    return this.db.prepare('SELECT * FROM agents WHERE task = ? ORDER BY agent').all(taskId) as AgentRow[];
  }
}

function stepRow(taskId: number, agent: string, step: TrajectoryStep) {
  const input = step.input === undefined ? null : boundText(typeof step.input === 'string' ? step.input : JSON.stringify(step.input), MAX_STORED_OUTPUT);
  return [taskId, agent, step.index, step.at, step.kind, step.name ?? null, input, step.output ?? null, step.exitCode ?? null] as const;
}
