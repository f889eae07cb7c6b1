// What the report's statistics need about every task of a run, read from run.db in a few bulk
// queries (a run can hold thousands of tasks). Per-task pages read their details separately.
import type { RunStore, TaskErrorKind, TaskStatus } from '../harness/store/run-store.ts';
import { naiveWasClean } from '../harness/store/records.ts';
import { attemptsByTask, type StoredAttempt } from '../harness/store/merge-attempts.ts';
import { cachedEvaluationsByTask, type CacheCount } from '../harness/store/test-cache.ts';
import { ANY_JSON, DamagedRowError, NUMBER_LIST, STRING_LIST, fromTaskKey, jsonColumn } from '../harness/store/columns.ts';
import { featureDirName, teamName } from '../tasks/types.ts';

export interface JudgeLabel {
  judge: string;
  label: string;
  isPrimary: boolean;
  messageId: number | null;
  agent: string | null;
  description: string | null;
  /** Quotes or snippets that back the label. */
  evidence: string[];
  model: string;
}

export interface TaskOutcome {
  id: number;
  key: string;
  /** Model or team name: `gpt-5` for Solo and self-play Coop, `gpt-5+claude` for a mixed team. */
  team: string;
  setting: 'coop' | 'solo';
  /** '' or an ablation, e.g. `no-messaging`, `git`. */
  variant: string;
  repo: string;
  taskId: number;
  features: number[];
  /** The feature set's identity across settings and models (difficulty is per pair). */
  pair: string;
  status: TaskStatus;
  error: string | null;
  /** Why the task did not finish (infrastructure, harness, interrupted); null when it did or has not run. */
  errorKind: TaskErrorKind | null;
  /** Hash of the agent configuration it ran with. */
  agentConfig: string | null;
  /** How each agent ended (finished, step_limit, context_exhausted, model_rejected, ...), by agent. */
  agentEndings: string[];
  /** Both (all) features' tests pass on the merged code; null unless done. */
  passed: boolean | null;
  /** The merge's status (the final stage's, `conflict`, `missing_input`); null without a merge. */
  mergeStatus: string | null;
  naiveClean: boolean | null;
  /** The merge cascade's attempts (stage, outcome, tests' verdict), in order. */
  mergeAttempts: Pick<StoredAttempt, 'stage' | 'outcome' | 'passed' | 'final'>[];
  steps: number;
  messages: number;
  modelCalls: number;
  inputTokens: number;
  /** Of inputTokens: read from, and written to, the prompt cache. */
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  costUsd: number;
  labels: JudgeLabel[];
  /** Its feature evaluations, and how many the test cache gave. */
  testRuns: CacheCount;
}

export interface RunInfo {
  name: string;
  status: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  options: unknown;
}

export interface RunData {
  run: RunInfo;
  tasks: TaskOutcome[];
  /** Damaged rows, one line each saying what became of them (none when absent); a task with one is counted as an error. */
  damaged?: string[];
}

export function pairName(repo: string, taskId: number, features: number[]): string {
  return `${repo}/task${taskId}/${featureDirName(features)}`;
}

/** Evidence is stored as JSON (a list of quotes, or of objects holding a `quote` or `text`) or as plain text. */
export function parseEvidence(raw: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return raw ? [raw] : [];
  }
  const items = Array.isArray(value) ? value : [value];
  return items.map((item) => {
    if (typeof item === 'string') return item;
    const quote = (item as { quote?: unknown; text?: unknown } | null)?.quote ?? (item as { text?: unknown } | null)?.text;
    return typeof quote === 'string' ? quote : JSON.stringify(item);
  });
}

function countsByTask(store: RunStore, sql: string): Map<number, number> {
  const rows = store.db.prepare(sql).all() as { task: number; n: number }[];
  return new Map(rows.map((r) => [r.task, r.n]));
}

export function loadRunData(store: RunStore): RunData {
  const runRow = store.db.prepare('SELECT * FROM runs WHERE name = ?').get(store.name) as
    { status: string; created_at: string; updated_at: string; options: string } | undefined;
  const merges = new Map((store.db.prepare('SELECT task, status FROM merges').all() as { task: number; status: string }[]).map((m) => [m.task, m]));
  const attempts = attemptsByTask(store.db);
  // Notes (the prompts, summaries) are not steps the agent took.
  const steps = countsByTask(store, "SELECT task, COUNT(*) AS n FROM steps WHERE kind != 'note' GROUP BY task");
  const messages = countsByTask(store, 'SELECT task, COUNT(*) AS n FROM messages GROUP BY task');
  const usage = new Map(
    (
      store.db
        .prepare(
          `SELECT task, COUNT(*) AS calls, SUM(input_tokens) AS input, SUM(cache_read_tokens) AS cache_read,
                  SUM(cache_write_tokens + cache_write_1h_tokens) AS cache_write, SUM(output_tokens) AS output, SUM(cost_usd) AS cost
           FROM model_calls GROUP BY task`,
        )
        .all() as { task: number; calls: number; input: number; cache_read: number; cache_write: number; output: number; cost: number }[]
    ).map((u) => [u.task, u]),
  );
  const endings = new Map<number, string[]>();
  for (const a of store.db.prepare('SELECT task, status FROM agents ORDER BY task, agent').all() as { task: number; status: string }[]) {
    endings.set(a.task, [...(endings.get(a.task) ?? []), a.status]);
  }
  const labels = new Map<number, JudgeLabel[]>();
  const labelRows = store.db.prepare('SELECT * FROM judge_labels ORDER BY task, judge, id').all() as Record<string, unknown>[];
  for (const l of labelRows) {
    const list = labels.get(l.task as number) ?? [];
    list.push({
      judge: l.judge as string,
      label: l.label as string,
      isPrimary: l.is_primary === 1,
      messageId: l.message_id as number | null,
      agent: l.agent as string | null,
      description: l.description as string | null,
      evidence: parseEvidence(l.evidence as string),
      model: l.model as string,
    });
    labels.set(l.task as number, list);
  }

  const testRuns = cachedEvaluationsByTask(store);
  const damaged: string[] = [];
  /** A damaged row costs its task (an error naming the row), never the report. */
  const checked = <T>(read: () => T, fallback: T, consequence = 'that task is reported as an error'): { value: T; damage?: string } => {
    try {
      return { value: read() };
    } catch (error) {
      if (!(error instanceof DamagedRowError)) throw error;
      damaged.push(`${error.message}: ${consequence}`);
      return { value: fallback, damage: error.message };
    }
  };
  const tasks = store.tasks().map((t): TaskOutcome => {
    const where = (column: string) => ({ table: 'tasks', column, of: `task ${t.key}` });
    const models = checked(() => jsonColumn(t.models, STRING_LIST, where('models')), fromTaskKey(t.key).models);
    const featureList = checked(() => jsonColumn(t.features, NUMBER_LIST, where('features')), fromTaskKey(t.key).features);
    const features = featureList.value;
    const damage = models.damage ?? featureList.damage;
    const status = damage ? 'error' : t.status;
    const merge = merges.get(t.id);
    const u = usage.get(t.id);
    return {
      id: t.id,
      key: t.key,
      team: teamName(models.value),
      setting: t.setting,
      variant: t.variant,
      repo: t.repo,
      taskId: t.task_id,
      features,
      pair: pairName(t.repo, t.task_id, features),
      status,
      error: damage ?? t.error,
      errorKind: t.error_kind,
      agentConfig: t.agent_config,
      agentEndings: endings.get(t.id) ?? [],
      passed: status === 'done' ? t.both_passed === 1 : null,
      mergeStatus: merge?.status ?? null,
      naiveClean: merge ? naiveWasClean(attempts.get(t.id) ?? []) : null,
      mergeAttempts: (attempts.get(t.id) ?? []).map(({ stage, outcome, passed, final }) => ({ stage, outcome, passed, final })),
      steps: steps.get(t.id) ?? 0,
      messages: messages.get(t.id) ?? 0,
      modelCalls: u?.calls ?? 0,
      inputTokens: u?.input ?? 0,
      cacheReadTokens: u?.cache_read ?? 0,
      cacheWriteTokens: u?.cache_write ?? 0,
      outputTokens: u?.output ?? 0,
      costUsd: u?.cost ?? 0,
      labels: labels.get(t.id) ?? [],
      testRuns: testRuns.get(t.id) ?? { total: 0, cached: 0 },
    };
  });

  return {
    run: {
      name: store.name,
      status: runRow?.status ?? null,
      createdAt: runRow?.created_at ?? null,
      updatedAt: runRow?.updated_at ?? null,
      options: runRow
        ? checked(
            () => jsonColumn(runRow.options, ANY_JSON, { table: 'runs', column: 'options', of: `run ${store.name}` }),
            null,
            'the report shows no run options',
          ).value
        : null,
    },
    tasks,
    damaged,
  };
}
