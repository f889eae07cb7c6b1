// `coop-bench eval`: merge and test the stored patches of a run again (new runner, fixed pool,
// another merge stage) without running any agent. Test results whose inputs did not change come
// from the run's test cache: evaluating an unchanged run again starts no container.
import pLimit from 'p-limit';
import type { TaskSpec } from '../../tasks/types.ts';
import { findFeature, loadPool } from '../../tasks/pools.ts';
import { RunStore, type TaskRow } from '../store/run-store.ts';
import { NUMBER_LIST, STRING_LIST, jsonColumn } from '../store/columns.ts';
import { taskLogDir, writeEvaluationFiles } from '../store/log-tree.ts';
import { poolImage, readyEngines } from '../docker/images.ts';
import { baseRepo } from '../docker/base-repo.ts';
import type { ContainerLimits } from '../docker/sandbox.ts';
import type { MergeStageOptions } from '../evaluation/evaluate.ts';
import { evaluatePatches } from '../evaluation/evaluate.ts';
import { storeTestCache } from '../store/test-cache.ts';
import { EngineScheduler } from './engine-scheduler.ts';
import { formatSummary, mergeProgress, summarize } from './summary.ts';
import { describeTask } from './run-benchmark.ts';
import { errorMessage } from '../errors.ts';

export interface ReEvaluateOptions {
  name: string;
  runsDir: string;
  concurrency: number;
  /** Docker engines to spread the tasks over (empty: the local engine); a task goes back to the engine it ran on when listed. */
  dockerHosts: string[];
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
    features: jsonColumn(row.features, NUMBER_LIST, { table: 'tasks', column: 'features', of: `task ${row.key}` }),
    setting: row.setting,
    models: jsonColumn(row.models, STRING_LIST, { table: 'tasks', column: 'models', of: `task ${row.key}` }),
    variant: row.variant,
  };
}

export async function reEvaluate(options: ReEvaluateOptions): Promise<number> {
  const engines = await readyEngines(options.dockerHosts, options.image);
  const store = RunStore.open(options.runsDir, options.name, { create: false, exclusive: true });
  const scheduler = new EngineScheduler(engines);
  const cache = options.cache ? storeTestCache(store) : undefined;
  const rows = store.tasks().filter((row) => row.status === 'done');
  if (rows.length === 0) process.stderr.write(`run ${options.name} has no finished task to evaluate\n`);
  let errors = 0;
  const limit = pLimit(Math.max(1, options.concurrency));
  await Promise.all(
    rows.map((row) =>
      limit(async () => {
        let label = `task ${row.key}`;
        // Its own engine keeps the image id, hence the cached results, of the task's earlier evaluation.
        const engine = scheduler.acquire(row.docker_host);
        try {
          const task = taskFromRow(row);
          label = describeTask(task);
          const image = await poolImage(engine, task.pool, { image: options.image, log: (l) => process.stderr.write(`${l}\n`) });
          const base = await baseRepo(image, options.name);
          const result = await evaluatePatches({
            features: task.features.map((id) => findFeature(task.pool, id)),
            patches: store.agents(row.id).map((a) => a.patch),
            base,
            tests: { image, run: options.name, limits: options.limits, timeoutMs: options.testTimeoutMs, cache },
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
          scheduler.release(engine);
        }
      }),
    ),
  );
  process.stdout.write(`${formatSummary(options.name, summarize(store))}\n`);
  store.close();
  return errors > 0 ? 1 : 0;
}
