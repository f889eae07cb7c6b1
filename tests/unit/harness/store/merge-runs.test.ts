// merge-runs on stores written through the store's API: two shards of one synthetic plan merge into
// one run holding everything each shard stored (every table, ids renumbered consistently), and runs
// that are not shards of one plan are refused.
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunStore } from '../../../../harness/store/run-store.ts';
import { loadTaskRecord } from '../../../../harness/store/records.ts';
import { TABLE_POLICIES, mergeRuns, tablesOf } from '../../../../harness/store/merge-runs.ts';
import { buildRun } from '../../reports/helpers/fixture-run.ts';
import { syntheticTasks } from '../../reports/helpers/synthetic-run.ts';
import { storeDb } from '../../../helpers/run-db.ts';

const PLAN = { tasks: 40, hash: 'plan-hash' };

function withStore<T>(runs: string, name: string, use: (store: RunStore) => T): T {
  const store = RunStore.open(runs, name, { create: false });
  try {
    return use(store);
  } finally {
    store.close();
  }
}

/** Writes what the judges and the evaluation cache leave behind, and the options a sharded run records. */
function finishShard(runs: string, name: string, options: Record<string, unknown>, cacheKey: string): void {
  withStore(runs, name, (store) => {
    store.startRun({ maxSteps: 100, testTimeoutMs: 900_000, plan: PLAN, ...options });
    const now = new Date(0).toISOString();
    for (const task of store.tasks().filter((t) => t.status === 'done')) {
      storeDb(store)
        .prepare(
          `INSERT INTO judge_runs (task, judge, status, model, prompt_version, input_hash, labels, dropped_labels, dropped, metrics, cached, calls, input_tokens, output_tokens, cost_usd, latency_ms, judged_at)
                  VALUES (?, 'communication', 'ok', 'judge', 'v1', ?, 1, 0, '[]', '{}', 0, 1, 10, 5, 0.01, 100, ?)`,
        )
        .run(task.id, `judged-${task.key}`, now);
    }
    const cache = storeDb(store).prepare('INSERT INTO test_cache (image_id, tests_hash, patch_hash, settings, result, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    cache.run('sha256:image', 'tests', 'shared-patch', '{}', '{"passed":true}', now);
    cache.run('sha256:image', 'tests', cacheKey, '{}', '{"passed":false}', now);
    storeDb(store)
      .prepare(
        `INSERT INTO judge_cache (input_hash, judge, model, prompt_version, answer, calls, input_tokens, output_tokens, cost_usd, latency_ms, created_at) VALUES (?, 'c', 'm', 'v1', '{}', 1, 1, 1, 0, 1, ?)`,
      )
      .run(`answer-${cacheKey}`, now);
  });
  mkdirSync(join(runs, name, 'logs', name), { recursive: true });
  writeFileSync(join(runs, name, 'logs', name, 'result.json'), `{"shard":"${name}"}`);
}

/** Everything stored about a task, without the ids that merging renumbers. */
function taskContent(store: RunStore, key: string) {
  const id = (storeDb(store).prepare('SELECT id FROM tasks WHERE key = ?').get(key) as { id: number }).id;
  const { id: _, conversation, agents, ...record } = loadTaskRecord(store, id);
  const labels = storeDb(store)
    .prepare(
      'SELECT l.judge, l.label, l.is_primary, l.evidence, m.body AS message FROM judge_labels l LEFT JOIN messages m ON m.id = l.message_id WHERE l.task = ? ORDER BY l.id',
    )
    .all(id);
  const judged = storeDb(store).prepare('SELECT judge, input_hash FROM judge_runs WHERE task = ?').all(id);
  return { ...record, agents: agents.map((a) => ({ ...a, task: undefined })), conversation: conversation.map(({ id: _id, ...m }) => m), labels, judged };
}

function shardedRuns() {
  const runs = mkdtempSync(join(tmpdir(), 'coop-bench-merge-runs-'));
  const tasks = syntheticTasks(PLAN.tasks);
  buildRun(runs, 'whole', tasks);
  finishShard(runs, 'whole', {}, 'whole');
  buildRun(
    runs,
    'vm1',
    tasks.filter((_, i) => i % 2 === 0),
  );
  finishShard(runs, 'vm1', { shard: { index: 1, count: 2 } }, 'vm1');
  buildRun(
    runs,
    'vm2',
    tasks.filter((_, i) => i % 2 === 1),
  );
  finishShard(runs, 'vm2', { shard: { index: 2, count: 2 } }, 'vm2');
  return runs;
}

describe('coop-bench merge-runs', () => {
  it('combines two shards into one run holding everything each stored', () => {
    const runs = shardedRuns();
    const result = mergeRuns(runs, 'merged', ['vm1', join(runs, 'vm2')]);
    expect(result).toMatchObject({ tasks: PLAN.tasks, missingShards: [] });

    const expected = ['vm1', 'vm2'].flatMap((shard) =>
      withStore(runs, shard, (store) => store.tasks().map((t) => [t.key, taskContent(store, t.key)] as const)),
    );
    const merged = withStore(runs, 'merged', (store) => expected.map(([key]) => [key, taskContent(store, key)] as const));
    expect(merged).toEqual(expected);
    expect(withStore(runs, 'merged', (store) => store.tasks().length)).toBe(PLAN.tasks);
    expect(expected.some(([, t]) => t.conversation.length > 0 && t.labels.some((l) => (l as { message: string | null }).message !== null))).toBe(true);

    withStore(runs, 'merged', (store) => {
      expect(storeDb(store).prepare('SELECT status FROM runs').all()).toEqual([{ status: 'finished' }]);
      expect(store.runOptions<Record<string, unknown>>()).toMatchObject({ plan: PLAN, mergedFrom: ['vm1', 'vm2'] });
      expect(store.runOptions<Record<string, unknown>>()).not.toHaveProperty('shard');
      // The cache row both shards hold is kept once.
      expect(storeDb(store).prepare('SELECT patch_hash FROM test_cache ORDER BY patch_hash').all()).toEqual([
        { patch_hash: 'shared-patch' },
        { patch_hash: 'vm1' },
        { patch_hash: 'vm2' },
      ]);
      expect(storeDb(store).prepare('SELECT COUNT(*) AS n FROM judge_cache').get()).toEqual({ n: 2 });
    });
    expect(readFileSync(join(runs, 'merged', 'logs', 'vm2', 'result.json'), 'utf8')).toBe('{"shard":"vm2"}');
  });

  it('knows how to combine every table of the schema', () => {
    const runs = mkdtempSync(join(tmpdir(), 'coop-bench-merge-runs-'));
    const store = RunStore.open(runs, 'empty', { create: true });
    expect(tablesOf(store).sort()).toEqual(Object.keys(TABLE_POLICIES).sort());
    store.close();
  });

  it('refuses runs that are not distinct shards of one plan, and leaves no half-merged run', () => {
    const runs = shardedRuns();
    expect(() => mergeRuns(runs, 'twice', ['vm1', 'vm1'])).toThrow(/shard 1\/2 is given twice/);
    expect(() => mergeRuns(runs, 'mixed', ['vm1', 'whole'])).toThrow(/split the plan into 2 and 1 shards/);
    withStore(runs, 'vm2', (store) => store.startRun({ ...store.runOptions<object>(), maxSteps: 50 }));
    expect(() => mergeRuns(runs, 'steps', ['vm1', 'vm2'])).toThrow(/differ in maxSteps/);
    withStore(runs, 'vm2', (store) => store.startRun({ ...store.runOptions<object>(), maxSteps: 100, plan: { tasks: 40, hash: 'other' } }));
    expect(() => mergeRuns(runs, 'plans', ['vm1', 'vm2'])).toThrow(/differ in plan/);
    expect(() => mergeRuns(runs, 'vm1', ['vm2'])).toThrow(/already exists/);
    for (const name of ['twice', 'mixed', 'steps', 'plans']) expect(() => RunStore.open(runs, name, { create: false })).toThrow(/no run named/);
  });

  it('refuses inputs that hold the same task, and says which shards are missing', () => {
    const runs = shardedRuns();
    withStore(runs, 'whole', (store) => store.startRun({ ...store.runOptions<object>(), shard: { index: 2, count: 2 } }));
    expect(() => mergeRuns(runs, 'overlap', ['vm1', 'whole'])).toThrow(/is in both vm1 and whole/);
    expect(mergeRuns(runs, 'half', ['vm2'])).toMatchObject({ tasks: PLAN.tasks / 2, missingShards: [1] });
    expect(withStore(runs, 'half', (store) => storeDb(store).prepare('SELECT status FROM runs').get())).toEqual({ status: 'failed' });
  });
});
