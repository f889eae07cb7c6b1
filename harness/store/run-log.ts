// The reader of a whole run for reports and summaries: every task with what the statistics need,
// read in a few bulk queries (a run can hold thousands of tasks) and parsed once. A damaged row
// costs its task (reported as an error naming the row) or its label, never the reader; each is
// one line in `damaged`. Per-task pages read their details with loadTaskRecord.
import { z } from 'zod';
import { salvagedTaskRow, taskRow, type RunStore, type TaskErrorKind, type TaskStatus } from './run-store.ts';
import { sqlOf } from './database.ts';
import { ANY_JSON, NUMBER_LIST, STRING_LIST, fromTaskKey, jsonColumn, oneOf, orDamaged, parseRow } from './columns.ts';
import { attemptRowsByTask, parseAttempts, type StoredAttempt } from './stored-attempts.ts';
import { labelsByTask, type StoredLabel } from './judge-results.ts';
import { naiveWasClean, type TaskIdentity } from './records.ts';
import { cachedEvaluationsByTask, type CacheCount } from './test-cache.ts';
import { AGENT_STATUSES, type AgentStatus } from '../agents/types.ts';
import { MERGE_STATUSES } from '../../resolver/index.ts';

export interface LoggedTask extends TaskIdentity {
  /** `error` for a task with a damaged row, whatever its stored status. */
  status: TaskStatus;
  /** The stored error, or the damaged row's line. */
  error: string | null;
  errorKind: TaskErrorKind | null;
  agentConfig: string | null;
  bothPassed: boolean | null;
  /** How each agent ended, by agent. */
  agentEndings: AgentStatus[];
  /** The merge's status (the final stage's, `conflict`, `missing_input`); null without a merge. */
  mergeStatus: string | null;
  naiveClean: boolean | null;
  /** The merge cascade's attempts (without their details), in order. */
  attempts: StoredAttempt[];
  /** Steps the agents took (notes, i.e. prompts and summaries, are not steps). */
  steps: number;
  messages: number;
  usage: { calls: number; inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; outputTokens: number; costUsd: number };
  labels: StoredLabel[];
  /** Its feature evaluations (of a finished task), and how many the test cache gave. */
  testRuns: CacheCount;
}

export interface RunInfo {
  name: string;
  status: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  options: unknown;
}

export interface RunLog {
  run: RunInfo;
  tasks: LoggedTask[];
  /** Damaged rows, one line each saying what became of them. */
  damaged: string[];
}

const NO_USAGE = { calls: 0, inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, costUsd: 0 };

function byTask<T extends { task: number }>(rows: T[]): Map<number, T[]> {
  const map = new Map<number, T[]>();
  for (const row of rows) map.set(row.task, [...(map.get(row.task) ?? []), row]);
  return map;
}

export function readRunLog(store: RunStore): RunLog {
  const db = sqlOf(store);
  const damaged: string[] = [];
  const labelDamage: string[] = [];
  const rowsOf = <T extends { task: number }>(sql: string) => byTask(db.prepare(sql).all() as T[]);
  const counts = (sql: string) => new Map((db.prepare(sql).all() as { task: number; n: number }[]).map((r) => [r.task, r.n]));
  const merges = rowsOf<{ task: number; status: string }>('SELECT task, status FROM merges');
  const agents = rowsOf<{ task: number; status: string }>('SELECT task, status FROM agents ORDER BY task, agent');
  const attempts = attemptRowsByTask(store);
  const steps = counts("SELECT task, COUNT(*) AS n FROM steps WHERE kind != 'note' GROUP BY task");
  const messages = counts('SELECT task, COUNT(*) AS n FROM messages GROUP BY task');
  const usage = rowsOf<typeof NO_USAGE & { task: number }>(
    `SELECT task, COUNT(*) AS calls, SUM(input_tokens) AS inputTokens, SUM(cache_read_tokens) AS cacheReadTokens,
            SUM(cache_write_tokens + cache_write_1h_tokens) AS cacheWriteTokens, SUM(output_tokens) AS outputTokens, SUM(cost_usd) AS costUsd
     FROM model_calls GROUP BY task`,
  );
  const costs = 'that task is reported as an error';
  const taskRows = (db.prepare('SELECT * FROM tasks ORDER BY id').all() as Record<string, unknown>[]).map((raw) =>
    orDamaged(() => taskRow(raw), salvagedTaskRow(raw), damaged, costs),
  );
  const tasks = taskRows.map((row) => row.value);
  const keys = new Map(tasks.map((t) => [t.id, t.key]));
  const testRuns = cachedEvaluationsByTask(store);
  const labels = labelsByTask(store, (id) => keys.get(id) ?? `#${id}`, labelDamage);

  const logged = taskRows.map(({ value: t, damage: rowDamage }): LoggedTask => {
    const place = (table: string) => ({ table, of: `task ${t.key}` });
    const read = <T>(get: () => T, fallback: T) => orDamaged(get, fallback, damaged, costs);
    const models = read(() => jsonColumn(t.models, STRING_LIST, { ...place('tasks'), column: 'models' }), fromTaskKey(t.key).models);
    const features = read(() => jsonColumn(t.features, NUMBER_LIST, { ...place('tasks'), column: 'features' }), fromTaskKey(t.key).features);
    const merge = merges.get(t.id)?.[0];
    const mergeStatus = read(() => (merge ? parseRow(z.object({ status: oneOf(MERGE_STATUSES) }), merge, place('merges')).status : null), null);
    const endings = read(
      () => (agents.get(t.id) ?? []).map((a) => parseRow(z.object({ status: oneOf(AGENT_STATUSES) }), a, place('agents')).status as AgentStatus),
      [],
    );
    const taskAttempts = read(() => parseAttempts(attempts.get(t.id) ?? [], place('merge_attempts')), []);
    const damage = rowDamage ?? [models, features, mergeStatus, endings, taskAttempts].find((r) => r.damage)?.damage;
    const { task: _, ...taskUsage } = usage.get(t.id)?.[0] ?? { task: t.id, ...NO_USAGE };
    return {
      id: t.id,
      key: t.key,
      models: models.value,
      setting: t.setting,
      variant: t.variant,
      repo: t.repo,
      taskId: t.task_id,
      features: features.value,
      status: damage ? 'error' : t.status,
      error: damage ?? t.error,
      errorKind: t.error_kind,
      agentConfig: t.agent_config,
      bothPassed: t.both_passed === null ? null : t.both_passed === 1,
      agentEndings: endings.value,
      mergeStatus: mergeStatus.value,
      naiveClean: merge ? naiveWasClean(taskAttempts.value) : null,
      attempts: taskAttempts.value,
      steps: steps.get(t.id) ?? 0,
      messages: messages.get(t.id) ?? 0,
      usage: taskUsage,
      labels: labels.get(t.id) ?? [],
      testRuns: testRuns.get(t.id) ?? { total: 0, cached: 0 },
    };
  });

  const runRow = db.prepare('SELECT status, created_at, updated_at, options FROM runs WHERE name = ?').get(store.name) as
    { status: string; created_at: string; updated_at: string; options: string } | undefined;
  const options = runRow
    ? orDamaged(
        () => jsonColumn(runRow.options, ANY_JSON, { table: 'runs', column: 'options', of: `run ${store.name}` }),
        null,
        damaged,
        'the report shows no run options',
      ).value
    : null;
  return {
    run: { name: store.name, status: runRow?.status ?? null, createdAt: runRow?.created_at ?? null, updatedAt: runRow?.updated_at ?? null, options },
    tasks: logged,
    damaged: [...damaged, ...labelDamage],
  };
}
