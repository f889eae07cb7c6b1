// One task as later stages read it (judges, reports): everything stored about it, parsed.
import type { RunStore, TaskRow } from './run-store.ts';
import { attemptsOf, type StoredAttempt } from './merge-attempts.ts';
import { NUMBER_LIST, NUMBER_RECORD, STRING_LIST, jsonColumn } from './columns.ts';

export interface ConversationMessage {
  id: number;
  from: string;
  to: string[];
  message: string;
  sentAt: string;
  /** Per recipient: when the message reached its prompt (null: never delivered). */
  deliveredAt: Record<string, string | null>;
}

export interface StoredAgent {
  agent: string;
  model: string;
  features: number[];
  status: string;
  error: string | null;
  steps: number;
  patch: string;
}

export interface StoredMerge {
  /** The final stage's status (`clean`, `union`, `llm`), `conflict` or `missing_input`. */
  status: string;
  strategy: string | null;
  naiveClean: boolean;
  conflictRegions: number;
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

export interface TaskRecord {
  id: number;
  key: string;
  models: string[];
  setting: 'coop' | 'solo';
  variant: string;
  repo: string;
  taskId: number;
  features: number[];
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

export function conversationOf(store: RunStore, taskId: number): ConversationMessage[] {
  const messages = store.db.prepare('SELECT id, sender, recipients, body, sent_at FROM messages WHERE task = ? ORDER BY id').all(taskId) as {
    id: number;
    sender: string;
    recipients: string;
    body: string;
    sent_at: string;
  }[];
  const deliveries = store.db
    .prepare('SELECT d.message, d.recipient, d.delivered_at FROM message_deliveries d JOIN messages m ON m.id = d.message WHERE m.task = ?')
    .all(taskId) as { message: number; recipient: string; delivered_at: string | null }[];
  return messages.map((m) => ({
    id: m.id,
    from: m.sender,
    to: jsonColumn(m.recipients, STRING_LIST, { table: 'messages', column: 'recipients', of: `task #${taskId}` }),
    message: m.body,
    sentAt: m.sent_at,
    deliveredAt: Object.fromEntries(deliveries.filter((d) => d.message === m.id).map((d) => [d.recipient, d.delivered_at])),
  }));
}

export function loadTaskRecord(store: RunStore, taskId: number): TaskRecord {
  const row = store.db.prepare('SELECT * FROM tasks WHERE id = ?').get(taskId) as TaskRow | undefined;
  if (!row) throw new Error(`run ${store.name} has no task ${taskId}`);
  const where = (table: string, column: string) => ({ table, column, of: `task ${row.key}` });
  const merge = store.db.prepare('SELECT * FROM merges WHERE task = ?').get(taskId) as Record<string, unknown> | undefined;
  const attempts = attemptsOf(store.db, taskId);
  const evaluations = store.db.prepare('SELECT * FROM evaluations WHERE task = ? ORDER BY feature').all(taskId) as Record<string, unknown>[];
  const steps = store.db.prepare('SELECT * FROM steps WHERE task = ? ORDER BY at, agent, idx').all(taskId) as Record<string, unknown>[];
  const calls = store.db.prepare('SELECT * FROM model_calls WHERE task = ? ORDER BY at, agent, idx').all(taskId) as Record<string, unknown>[];
  return {
    id: row.id,
    key: row.key,
    models: jsonColumn(row.models, STRING_LIST, where('tasks', 'models')),
    setting: row.setting,
    variant: row.variant,
    repo: row.repo,
    taskId: row.task_id,
    features: jsonColumn(row.features, NUMBER_LIST, where('tasks', 'features')),
    status: row.status,
    error: row.error,
    bothPassed: row.both_passed === null ? null : row.both_passed === 1,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    agents: store.agents(taskId).map((a) => ({ ...a, features: jsonColumn(a.features, NUMBER_LIST, where('agents', 'features')) })),
    merge: merge && {
      status: merge.status as string,
      strategy: merge.strategy as string | null,
      naiveClean: naiveWasClean(attempts),
      conflictRegions: merge.conflict_regions as number,
      reason: merge.reason as string | null,
      patch: merge.patch as string,
      timingsMs: jsonColumn(merge.timings, NUMBER_RECORD, where('merges', 'timings')),
      attempts,
    },
    evaluations: evaluations.map((e) => ({
      feature: e.feature as number,
      passed: e.passed === 1,
      exitCode: e.exit_code as number | null,
      timedOut: e.timed_out === 1,
      framework: e.framework as string | null,
      testsPassed: e.tests_passed as number | null,
      testsFailed: e.tests_failed as number | null,
      cause: e.cause as string | null,
      output: e.output as string,
      durationMs: e.duration_ms as number,
      cached: e.cached === 1,
    })),
    conversation: conversationOf(store, taskId),
    steps: steps.map((s) => ({
      agent: s.agent as string,
      idx: s.idx as number,
      at: s.at as string,
      kind: s.kind as StoredStep['kind'],
      name: s.name as string | null,
      input: s.input as string | null,
      output: s.output as string | null,
      exitCode: s.exit_code as number | null,
    })),
    modelCalls: calls.map((c) => ({
      agent: c.agent as string,
      idx: c.idx as number,
      at: c.at as string,
      model: c.model as string,
      inputTokens: c.input_tokens as number,
      outputTokens: c.output_tokens as number,
      costUsd: c.cost_usd as number,
      latencyMs: c.latency_ms as number,
    })),
  };
}
