// `coop-bench eval`: merge and test the stored patches of a run again (new runner, fixed pool,
// another merge stage) without running any agent. Test results whose inputs did not change come
// from the run's test cache: evaluating an unchanged run again starts no sandbox.
import pLimit from 'p-limit';
import type { Pool, TaskSpec } from '../../tasks/types.ts';
import { findFeature, loadPool } from '../../tasks/pools.ts';
import { RunStore, type TaskRow } from '../store/run-store.ts';
import { taskLogDir, writeEvaluationFiles } from '../store/log-tree.ts';
import type { ContainerLimits } from '../sandbox/types.ts';
import { createBackend, type BackendChoice } from '../sandbox/registry.ts';
import type { MergeStageOptions } from '../evaluation/evaluate.ts';
import { evaluatePatches } from '../evaluation/evaluate.ts';
import { storeTestCache } from '../store/test-cache.ts';
import { formatSummary, mergeProgress, summarize } from './summary.ts';
import { describeTask, type RunDependencies } from './run-benchmark.ts';
import { errorMessage } from '../errors.ts';

export interface ReEvaluateOptions {
  name: string;
  runsDir: string;
  concurrency: number;
  /** --backend and its options; a task goes back to the place (Docker engine) it ran on when the backend has it. */
  backend: BackendChoice;
  /** Use cached test results (false: run every test again, e.g. to check for flaky tests). */
  cache: boolean;
  image?: string;
  limits: ContainerLimits;
  testTimeoutMs: number;
  merge: MergeStageOptions;
}

export function taskFromRow(row: TaskRow): TaskSpec {
  return {
    pool: loadPool(row.pool_dir),
    features: JSON.parse(row.features) as number[],
    setting: row.setting,
    models: JSON.parse(row.models) as string[],
    variant: row.variant,
  };
}

/** The pools of the rows that still load (a task whose pool is gone fails on its own below). */
function poolsOf(rows: TaskRow[]): Pool[] {
  const dirs = [...new Set(rows.map((row) => row.pool_dir))];
  return dirs.flatMap((dir) => {
    try {
      return [loadPool(dir)];
    } catch {
      return [];
    }
  });
}

export async function reEvaluate(options: ReEvaluateOptions, deps: RunDependencies = {}): Promise<number> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const backend = await (deps.createBackend ?? createBackend)(options.backend.name, { ...options.backend, image: options.image, log });
  const store = RunStore.open(options.runsDir, options.name, { create: false, exclusive: true });
  const cache = options.cache ? storeTestCache(store) : undefined;
  const rows = store.tasks().filter((row) => row.status === 'done');
  await backend.prepareRun(options.name, poolsOf(rows));
  if (rows.length === 0) process.stderr.write(`run ${options.name} has no finished task to evaluate\n`);
  let errors = 0;
  const limit = pLimit(Math.max(1, options.concurrency));
  await Promise.all(
    rows.map((row) =>
      limit(async () => {
        let label = `task ${row.key}`;
        // Its own engine keeps the image id, hence the cached results, of the task's earlier evaluation.
        const slot = backend.acquire(row.docker_host);
        try {
          const task = taskFromRow(row);
          label = describeTask(task);
          const image = await slot.prepareImage(task.pool, options.name, log);
          const base = await slot.baseRepo(image, options.name);
          const result = await evaluatePatches({
            features: task.features.map((id) => findFeature(task.pool, id)),
            patches: store.agents(row.id).map((a) => a.patch),
            base,
            tests: { slot, image, run: options.name, task: row.id, limits: options.limits, timeoutMs: options.testTimeoutMs, cache },
            merge: options.merge,
            previousMergedPatch: store.mergedPatch(row.id),
          });
          store.saveEvaluation(row.id, result);
          writeEvaluationFiles(taskLogDir(store.dir, task), result);
          const cached = result.evaluations.filter((e) => e.cached).length;
          const notes = [mergeProgress(task.setting, result), cached ? `${cached} of ${result.evaluations.length} test runs cached` : undefined].filter(Boolean);
          process.stderr.write(`evaluated ${label}: ${result.bothPassed ? 'both pass' : 'not both'}${notes.length ? ` (${notes.join('; ')})` : ''}\n`);
        } catch (error) {
          errors++;
          process.stderr.write(`error ${label}: ${errorMessage(error).split('\n')[0]}\n`);
        } finally {
          backend.release(slot);
        }
      }),
    ),
  );
  process.stdout.write(`${formatSummary(options.name, summarize(store))}\n`);
  store.close();
  return errors > 0 ? 1 : 0;
}
