// One task as later stages read it (judges, reports): everything stored about it, parsed.
import { z } from 'zod';
import { taskRow, type RunStore, type TaskRow } from './run-store.ts';
import { sqlOf } from './database.ts';
import { attemptsOf, type StoredAttempt } from './stored-attempts.ts';
import { conversationOf, type ConversationMessage } from './messages.ts';
import { NUMBER_LIST, NUMBER_RECORD, STRING_LIST, flag, json, jsonColumn, oneOf, parseRow } from './columns.ts';
import { AGENT_STATUSES, type AgentStatus } from '../agents/types.ts';
import { MERGE_STATUSES, type FileMerge } from '../../resolver/index.ts';

export type { ConversationMessage };

export interface StoredAgent {
  agent: string;
  model: string;
  features: number[];
  status: AgentStatus;
  error: string | null;
  steps: number;
  patch: string;
  /** `human`: a person's seat (coop-bench play); `model`: an agent's. */
  seat: 'model' | 'human';
  /** A person's active time (harness/play/active-time.ts); null for a model. */
  activeMs: number | null;
}

export interface StoredMerge {
  /** The final stage's status (`clean`, `union`, `llm`), `conflict` or `missing_input`. */
  status: string;
  strategy: string | null;
  naiveClean: boolean;
  conflictRegions: number;
  /** Per file: which patches touched it and how it was merged. */
  files: FileMerge[];
  /** Test files removed from each input patch. */
  droppedTestFiles: string[][];
  reason: string | null;
  patch: string;
  timingsMs: Record<string, number>;
  /** Every stage of the merge cascade that ran, in order. */
  attempts: StoredAttempt[];
}

/** The naive merge was clean (false also when it never ran: a patch did not apply). */
export const naiveWasClean = (attempts: StoredAttempt[]): boolean => attempts.some((a) => a.stage === 'naive' && a.outcome === 'merged');

export interface StoredEvaluation {
  feature: number;
  passed: boolean;
  exitCode: number | null;
  timedOut: boolean;
  framework: string | null;
  testsPassed: number | null;
  testsFailed: number | null;
  cause: string | null;
  output: string;
  durationMs: number;
  /** From the test cache: the same image, tests and code ran before. */
  cached: boolean;
}

export interface StoredStep {
  agent: string;
  idx: number;
  at: string;
  kind: 'tool' | 'model' | 'message' | 'note';
  name: string | null;
  input: string | null;
  output: string | null;
  exitCode: number | null;
}

export interface StoredModelCall {
  agent: string;
  idx: number;
  at: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  latencyMs: number;
}

/** What names a task, as both readers (a task's record, the whole run's log) give it. */
export interface TaskIdentity {
  id: number;
  key: string;
  models: string[];
  setting: 'coop' | 'solo';
  /** '' or an ablation, e.g. `no-messaging`, `git`. */
  variant: string;
  repo: string;
  taskId: number;
  features: number[];
}

export interface TaskRecord extends TaskIdentity {
  status: TaskRow['status'];
  error: string | null;
  bothPassed: boolean | null;
  startedAt: string | null;
  finishedAt: string | null;
  agents: StoredAgent[];
  merge?: StoredMerge;
  evaluations: StoredEvaluation[];
  conversation: ConversationMessage[];
  steps: StoredStep[];
  modelCalls: StoredModelCall[];
}

const agentRow = z
  .object({
    agent: z.string(),
    model: z.string(),
    features: json(NUMBER_LIST),
    status: oneOf(AGENT_STATUSES),
    error: z.string().nullable(),
    steps: z.number(),
    patch: z.string(),
    seat: z.enum(['model', 'human']),
    active_ms: z.number().nullable(),
  })
  .transform(({ active_ms, ...a }): StoredAgent => ({ ...a, status: a.status as AgentStatus, activeMs: active_ms }));

const fileMerge: z.ZodType<FileMerge> = z.object({
  path: z.string(),
  touchedBy: NUMBER_LIST,
  naiveConflicts: z.number(),
  outcome: z.string().optional(),
  conflictReason: z.string().optional(),
});

const mergeRow = z.object({
  status: oneOf(MERGE_STATUSES),
  strategy: z.string().nullable(),
  conflict_regions: z.number(),
  files: json(z.array(fileMerge)),
  dropped_test_files: json(z.array(STRING_LIST)),
  reason: z.string().nullable(),
  patch: z.string(),
  timings: json(NUMBER_RECORD),
});

const evaluationRow = z
  .object({
    feature: z.number(),
    passed: flag,
    exit_code: z.number().nullable(),
    timed_out: flag,
    framework: z.string().nullable(),
    tests_passed: z.number().nullable(),
    tests_failed: z.number().nullable(),
    cause: z.string().nullable(),
    output: z.string(),
    duration_ms: z.number(),
    cached: flag,
  })
  .transform((e): StoredEvaluation => ({
    feature: e.feature,
    passed: e.passed,
    exitCode: e.exit_code,
    timedOut: e.timed_out,
    framework: e.framework,
    testsPassed: e.tests_passed,
    testsFailed: e.tests_failed,
    cause: e.cause,
    output: e.output,
    durationMs: e.duration_ms,
    cached: e.cached,
  }));

const stepRow = z
  .object({
    agent: z.string(),
    idx: z.number(),
    at: z.string(),
    kind: z.enum(['tool', 'model', 'message', 'note']),
    name: z.string().nullable(),
    input: z.string().nullable(),
    output: z.string().nullable(),
    exit_code: z.number().nullable(),
  })
  .transform(({ exit_code, ...s }): StoredStep => ({ ...s, exitCode: exit_code }));

const modelCallRow = z
  .object({
    agent: z.string(),
    idx: z.number(),
    at: z.string(),
    model: z.string(),
    input_tokens: z.number(),
    output_tokens: z.number(),
    cost_usd: z.number(),
    latency_ms: z.number(),
  })
  .transform((c): StoredModelCall => ({
    agent: c.agent,
    idx: c.idx,
    at: c.at,
    model: c.model,
    inputTokens: c.input_tokens,
    outputTokens: c.output_tokens,
    costUsd: c.cost_usd,
    latencyMs: c.latency_ms,
  }));

/** Everything stored about one task, parsed; a DamagedRowError naming the first damaged row. */
export function loadTaskRecord(store: RunStore, taskId: number): TaskRecord {
  const db = sqlOf(store);
  const found = db.prepare('SELECT * FROM tasks WHERE id = ?').get(taskId);
  if (!found) throw new Error(`run ${store.name} has no task ${taskId}`);
  const row = taskRow(found);
  const where = (table: string) => ({ table, of: `task ${row.key}` });
  const rows = (table: string, order: string) => db.prepare(`SELECT * FROM ${table} WHERE task = ? ORDER BY ${order}`).all(taskId);
  const mergeFound = db.prepare('SELECT * FROM merges WHERE task = ?').get(taskId);
  const merge = mergeFound === undefined ? undefined : parseRow(mergeRow, mergeFound, where('merges'));
  const attempts = attemptsOf(store, taskId, where('merge_attempts'));
  return {
    id: row.id,
    key: row.key,
    models: jsonColumn(row.models, STRING_LIST, { ...where('tasks'), column: 'models' }),
    setting: row.setting,
    variant: row.variant,
    repo: row.repo,
    taskId: row.task_id,
    features: jsonColumn(row.features, NUMBER_LIST, { ...where('tasks'), column: 'features' }),
    status: row.status,
    error: row.error,
    bothPassed: row.both_passed === null ? null : row.both_passed === 1,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    agents: rows('agents', 'agent').map((a) => parseRow(agentRow, a, where('agents'))),
    merge: merge && {
      status: merge.status,
      strategy: merge.strategy,
      naiveClean: naiveWasClean(attempts),
      conflictRegions: merge.conflict_regions,
      files: merge.files,
      droppedTestFiles: merge.dropped_test_files,
      reason: merge.reason,
      patch: merge.patch,
      timingsMs: merge.timings,
      attempts,
    },
    evaluations: rows('evaluations', 'feature').map((e) => parseRow(evaluationRow, e, where('evaluations'))),
    conversation: conversationOf(store, taskId),
    steps: rows('steps', 'at, agent, idx').map((s) => parseRow(stepRow, s, where('steps'))),
    modelCalls: rows('model_calls', 'at, agent, idx').map((c) => parseRow(modelCallRow, c, where('model_calls'))),
  };
}
