// Writing a task that ran elsewhere (`coop-bench import`): the same rows a run writes, plus what a
// run records as it happens (messages, model usage, times), in one transaction per task.
import { sqlOf } from './database.ts';
import { insertMessage } from './messages.ts';
import type { RunStore, TaskErrorKind } from './run-store.ts';
import type { TaskSpec } from '../../tasks/types.ts';
import { taskKey } from '../../tasks/types.ts';
import type { AgentResult, TaskResult } from '../run/types.ts';

export interface ImportedMessage {
  from: string;
  to: string[];
  body: string;
  sentAt: string;
  /** Per recipient; absent: the log does not say when it arrived (readers take the sent time). */
  deliveredAt?: Record<string, string | null>;
}

/** A model call's usage as the log states it (or an agent's total, when the log keeps no calls). */
export interface ImportedUsage {
  agent: string;
  model: string;
  at: string;
  costUsd: number;
  /** All input tokens, the cached part included (as model_calls counts them). */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface ImportedTask {
  spec: TaskSpec;
  /** Finished and evaluated: stored as done. */
  result?: TaskResult;
  /** Not evaluated (or its evaluation failed): stored as an error with these agents and this reason. */
  error?: { agents: AgentResult[]; message: string; kind: TaskErrorKind };
  conversation: ImportedMessage[];
  usage: ImportedUsage[];
  startedAt: string | null;
  finishedAt: string | null;
  /** Steps as the other harness counted them, per agent (its model calls or events), where they differ from the step rows. */
  agentSteps?: Record<string, number>;
  /** Who ran the agents (the other harness's agent framework): kept as the task's agent configuration. */
  agentConfig?: string;
}

/** Stores the task; returns its id, or undefined when the run already holds a task with its key. */
export function saveImportedTask(store: RunStore, task: ImportedTask): number | undefined {
  const db = sqlOf(store);
  return db.transaction(() => {
    if (db.prepare('SELECT 1 FROM tasks WHERE key = ?').get(taskKey(task.spec))) return undefined;
    const { id } = store.ensureTask(task.spec);
    if (task.result) {
      store.saveResult(id, task.result);
    } else if (task.error) {
      store.saveAgents(id, task.error.agents);
      store.markError(id, task.error.message, task.error.kind);
    }
    for (const m of task.conversation) insertMessage(db, id, m, m.deliveredAt ?? {});
    const insertUsage = db.prepare(
      `INSERT INTO model_calls (task, agent, idx, at, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, latency_ms)
       VALUES (?, ?, (SELECT COALESCE(MAX(idx) + 1, 0) FROM model_calls WHERE task = ? AND agent = ?), ?, ?, ?, ?, ?, ?, ?, 0)`,
    );
    for (const u of task.usage)
      insertUsage.run(id, u.agent, id, u.agent, u.at, u.model, u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.costUsd);
    const setSteps = db.prepare('UPDATE agents SET steps = ? WHERE task = ? AND agent = ?');
    for (const [agent, steps] of Object.entries(task.agentSteps ?? {})) setSteps.run(steps, id, agent);
    db.prepare(
      'UPDATE tasks SET started_at = ?, finished_at = COALESCE(?, finished_at), attempts = 1, agent_config = COALESCE(?, agent_config) WHERE id = ?',
    ).run(task.startedAt, task.finishedAt, task.agentConfig ?? null, id);
    return id;
  })();
}
