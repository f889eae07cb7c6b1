// Builds run stores for report tests through the run store's own API; messages, model calls and
// judge labels (written by other stages) are inserted as those stages store them.
import type { AgentStatus } from '../../../../harness/agents/types.ts';
import type { Pool } from '../../../../tasks/types.ts';
import type { MergeAttempt, MergeStatus } from '../../../../resolver/index.ts';
import type { FeatureEvaluation } from '../../../../harness/run/types.ts';
import { RunStore, type TaskErrorKind } from '../../../../harness/store/run-store.ts';
import { storeDb } from '../../../helpers/run-db.ts';

export interface FixtureTask {
  models: string[];
  setting: 'coop' | 'solo';
  variant?: string;
  repo?: string;
  taskId?: number;
  features?: number[];
  /** done (default), error, or pending (never started). */
  status?: 'done' | 'error' | 'pending';
  error?: string;
  /** Why an error task failed (default infrastructure). */
  errorKind?: TaskErrorKind;
  /** Agent statuses of a done task, by agent (default finished). */
  agentStatus?: string[];
  /** Hash of the agent configuration the task ran with. */
  agentConfig?: string;
  passed?: boolean;
  /** Features whose test result came from the test cache. */
  cachedFeatures?: number[];
  merge?: MergeStatus;
  /** A union-merged task's outcome in the other union order (undefined: not measured). */
  otherOrderPasses?: boolean;
  /** Steps per agent (default 3). */
  steps?: number;
  stepOutput?: string;
  patch?: string;
  testOutput?: string;
  messages?: { from: string; to: string; body: string }[];
  /** Editor edits after each agent's bash steps, one step each (agent: 0 for agent1). */
  edits?: { agent: number; path: string; text: string }[];
  /** messageIndex points into `messages`. */
  labels?: { judge: string; label: string; isPrimary?: boolean; messageIndex?: number; agent?: string; description?: string; evidence?: string[] }[];
  calls?: { agent: string; inputTokens: number; outputTokens: number; costUsd: number }[];
  /** Seats taken by people (coop-bench play), by agent index (0 for agent1). */
  people?: number[];
  /** The model the labels are stored with (default judge-model). */
  labelModel?: string;
}

const at = (base: number, seconds: number) => new Date(base + seconds * 1000).toISOString();

/** A Coop task whose agents talk, then both edit src/x.js; only agent1's edit is in the patch. */
export const COLLIDING_COOP_TASK: FixtureTask = {
  models: ['m', 'm'],
  setting: 'coop',
  passed: true,
  // After three bash steps each (agent1 at 0, 2, 4 s, agent2 at 1, 3, 5 s), both agents edit
  // src/x.js (at 6 and 7 s); only agent1's text is in the patch (`+new`).
  edits: [
    { agent: 0, path: 'src/x.js', text: 'new\n' },
    { agent: 1, path: 'src/x.js', text: 'scratch\n' },
  ],
  messages: [
    { from: 'agent1', to: 'agent2', body: 'I take src/x.js' },
    { from: 'agent2', to: 'agent1', body: 'fine' },
  ],
};

export function buildRun(runsDir: string, name: string, tasks: FixtureTask[]): void {
  const store = RunStore.open(runsDir, name, { create: true });
  try {
    addTasks(store, tasks);
    store.setRunStatus('finished');
  } finally {
    store.close();
  }
}

/** Starts the run in an open store and stores the tasks, as a run that is still going has. */
export function addTasks(store: RunStore, tasks: FixtureTask[]): void {
  store.startRun({ fixture: true });
  storeDb(store).transaction(() => tasks.forEach((t, i) => addTask(store, t, i)))();
}

function addTask(store: RunStore, t: FixtureTask, index: number): void {
  const features = t.features ?? [1, 2];
  const repo = t.repo ?? 'demo_task';
  const pool = { repo, taskId: t.taskId ?? 1, dir: `/pools/${repo}/task1`, features: [], publishedImage: 'none' } as Pool;
  const row = store.ensureTask({ pool, features, setting: t.setting, models: t.models, variant: t.variant ?? '' });
  if (t.status === 'pending') return;
  store.markRunning(row.id, t.agentConfig ?? null);
  if (t.status === 'error') {
    store.markError(row.id, t.error ?? 'the agent crashed', t.errorKind ?? 'infrastructure');
    return;
  }
  const base = Date.UTC(2026, 0, 1) + index * 60_000;
  const agentIds = t.setting === 'solo' ? ['agent1'] : features.map((_, i) => `agent${i + 1}`);
  const patch = t.patch ?? 'diff --git a/src/x.js b/src/x.js\n--- a/src/x.js\n+++ b/src/x.js\n@@ -1 +1 @@\n-old\n+new\n';
  const passed = t.passed ?? false;
  const mergeStatus = t.merge ?? (t.setting === 'solo' ? 'clean' : 'union');
  store.saveResult(row.id, {
    image: 'fixture:latest',
    dockerHost: 'unix:///var/run/docker.sock',
    baseRev: 'abc123',
    agents: agentIds.map((agentId, a) => ({
      agentId,
      model: t.models[a] ?? t.models[0],
      features: t.setting === 'solo' ? features : [features[a]],
      status: (t.agentStatus?.[a] ?? 'finished') as AgentStatus,
      steps: Array.from({ length: t.steps ?? 3 }, (_, s) => ({
        index: s,
        at: at(base, 2 * s + a),
        kind: 'tool' as const,
        name: 'bash',
        input: `step ${s}`,
        output: t.stepOutput ?? `output ${s}`,
        exitCode: 0,
      })).concat(
        (t.edits ?? [])
          .filter((e) => e.agent === a)
          .map((e, i) => ({
            index: (t.steps ?? 3) + i,
            at: at(base, 2 * ((t.steps ?? 3) + i) + a),
            kind: 'tool' as const,
            name: 'str_replace_based_edit_tool',
            input: JSON.stringify({ command: 'create', path: e.path, file_text: e.text }),
            output: 'created',
            exitCode: 0,
          })),
      ),
      patch,
      ...(t.people?.includes(a) ? { person: { activeMs: 90_000 } } : {}),
    })),
    merge: {
      status: mergeStatus,
      strategy: mergeStatus === 'clean' ? 'naive' : mergeStatus === 'union' || mergeStatus === 'llm' ? mergeStatus : undefined,
      patch,
      files: [],
      conflictRegions: mergeStatus === 'clean' ? [] : [{ path: 'src/x.js', marked: '<<<<<<<\n=======\n>>>>>>>', before: '', after: '' }],
      droppedTestFiles: [[], []],
      timingsMs: { naive: 1, ...(mergeStatus === 'clean' ? {} : { union: 1 }) },
    },
    evaluations: features.map((feature) => ({
      feature,
      passed,
      exitCode: passed ? 0 : 1,
      timedOut: false,
      output: t.testOutput ?? `tests of feature ${feature}`,
      durationMs: 1000,
      cached: t.cachedFeatures?.includes(feature),
    })),
    attempts: attemptsFor(mergeStatus, passed, features, t.otherOrderPasses),
    bothPassed: passed,
  });
  const messageIds = (t.messages ?? []).map((m, i) => {
    const sent = at(base, 2 * i + 1.5);
    const id = Number(
      storeDb(store)
        .prepare('INSERT INTO messages (task, sender, recipients, body, sent_at) VALUES (?, ?, ?, ?, ?)')
        .run(row.id, m.from, JSON.stringify([m.to]), m.body, sent).lastInsertRowid,
    );
    storeDb(store).prepare('INSERT INTO message_deliveries (message, recipient, delivered_at) VALUES (?, ?, ?)').run(id, m.to, sent);
    return id;
  });
  for (const l of t.labels ?? []) {
    storeDb(store)
      .prepare(
        'INSERT INTO judge_labels (task, judge, label, is_primary, message_id, agent, description, evidence, model, input_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        row.id,
        l.judge,
        l.label,
        l.isPrimary ? 1 : 0,
        l.messageIndex === undefined ? null : messageIds[l.messageIndex],
        l.agent ?? null,
        l.description ?? null,
        JSON.stringify(l.evidence ?? []),
        t.labelModel ?? 'judge-model',
        'hash',
        at(base, 50),
      );
  }
  (t.calls ?? []).forEach((c, i) => {
    storeDb(store)
      .prepare('INSERT INTO model_calls (task, agent, idx, at, model, input_tokens, output_tokens, cost_usd, latency_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(row.id, c.agent, i, at(base, i), t.models[0], c.inputTokens, c.outputTokens, c.costUsd, 100);
  });
}

/** The merge cascade's attempts that end in `status`, as the cascade records them. */
function attemptsFor(status: MergeStatus, passed: boolean, features: number[], otherOrderPasses?: boolean): MergeAttempt<FeatureEvaluation[]>[] {
  const tested = (ok: boolean) => ({
    passed: ok,
    verdict: features.map((feature) => ({ feature, passed: ok, exitCode: ok ? 0 : 1, timedOut: false, output: '', durationMs: 1 })),
  });
  const merged = (stage: string, ok: boolean, final: boolean): MergeAttempt<FeatureEvaluation[]> => ({
    stage,
    outcome: 'merged',
    patchHash: `${stage}-hash`,
    tested: tested(ok),
    final,
    durationMs: 1,
  });
  const conflict = (stage: string): MergeAttempt<FeatureEvaluation[]> => ({
    stage,
    outcome: 'conflict',
    reason: 'a.py (CONFLICT (modify/delete))',
    final: false,
    durationMs: 1,
  });
  const probe = otherOrderPasses === undefined ? [] : [merged('union-reversed', otherOrderPasses, false)];
  switch (status) {
    case 'clean':
      return [merged('naive', passed, true)];
    case 'union':
      return [conflict('naive'), merged('union', passed, true), ...probe];
    case 'llm':
      return [conflict('naive'), merged('union', false, false), ...probe, merged('llm', passed, true)];
    case 'conflict':
      return [conflict('naive'), conflict('union')];
    default:
      return [];
  }
}
