// `coop-bench eval`: merge and test the stored patches of a run again (new runner, fixed pool,
// another merge stage) without running any agent. Test results whose inputs did not change come
// from the run's test cache: evaluating an unchanged run again starts no sandbox.
import type { Pool, TaskSpec } from '../../tasks/types.ts';
import { findFeature, loadPool, scanPools } from '../../tasks/pools.ts';
import { UserError } from '../errors.ts';
import { repairedPatches } from '../store/repaired-patches.ts';
import { evaluateRepaired } from '../evaluation/repaired-patch.ts';
import { RunStore, type TaskRow } from '../store/run-store.ts';
import { NUMBER_LIST, STRING_LIST, jsonColumn } from '../store/columns.ts';
import { taskLogDir, writeEvaluationFiles } from '../store/log-tree.ts';
import type { ContainerLimits } from '../sandbox/types.ts';
import { createBackend, type BackendChoice } from '../sandbox/registry.ts';
import type { MergeStageOptions } from '../evaluation/evaluate.ts';
import { evaluatePatches } from '../evaluation/evaluate.ts';
import { cachedEvaluationsByTask, storeTestCache } from '../store/test-cache.ts';
import { testVerdicts } from './cache-marks.ts';
import { cacheSummaryLine, totalCount } from '../../reports/cache-count.ts';
import { formatSummary, mergeProgress, summarize } from './summary.ts';
import { describeTask, type RunDependencies } from './run-benchmark.ts';
import { processIO, runTasks, type RunnerTask, type TaskStages } from './task-runner.ts';

export interface ReEvaluateOptions {
  name: string;
  runsDir: string;
  concurrency: number;
  /** --backend and its options; a task goes back to the place (Docker engine) it ran on when the backend has it. */
  backend: BackendChoice;
  /** Use cached test results (false: run every test again, e.g. to check for flaky tests). */
  cache: boolean;
  image?: string;
  /** Where the pools of imported tasks are (their logs do not say): a dataset in the CooperBench layout. */
  pools?: string;
  limits: ContainerLimits;
  testTimeoutMs: number;
  merge: MergeStageOptions;
}

export function taskFromRow(row: TaskRow, poolDir = row.pool_dir): TaskSpec {
  return {
    pool: loadPool(poolDir),
    features: jsonColumn(row.features, NUMBER_LIST, { table: 'tasks', column: 'features', of: `task ${row.key}` }),
    setting: row.setting,
    models: jsonColumn(row.models, STRING_LIST, { table: 'tasks', column: 'models', of: `task ${row.key}` }),
    variant: row.variant,
  };
}

/**
 * Each task's pool folder: the one it ran from, or for an imported task (no folder recorded) the
 * pool of its repository and task under --pools; '' when there is none (the task fails on its own).
 */
function poolDirs(rows: TaskRow[], pools: string | undefined, run: string): Map<number, string> {
  const imported = rows.filter((row) => row.pool_dir === '');
  if (imported.length > 0 && pools === undefined)
    throw new UserError(
      `run ${run} holds ${imported.length} imported task(s), whose logs do not say where their pools are: pass --pools <dir> (the dataset folder in the CooperBench layout)`,
    );
  const found = new Map(imported.length > 0 ? scanPools(pools!).pools.map((pool) => [`${pool.repo}/task${pool.taskId}`, pool.dir]) : []);
  return new Map(rows.map((row) => [row.id, row.pool_dir || (found.get(`${row.repo}/task${row.task_id}`) ?? '')]));
}

/** The pools of the rows that still load (a task whose pool is gone fails on its own below). */
function poolsOf(dirsByTask: Map<number, string>): Pool[] {
  const dirs = [...new Set(dirsByTask.values())].filter(Boolean);
  return dirs.flatMap((dir) => {
    try {
      return [loadPool(dir)];
    } catch {
      return [];
    }
  });
}

export async function reEvaluate(options: ReEvaluateOptions, deps: RunDependencies = {}): Promise<number> {
  const io = deps.io ?? processIO;
  const log = (line: string) => io.log(line);
  const backend = await (deps.createBackend ?? createBackend)(options.backend.name, { ...options.backend, image: options.image, log });
  const store = RunStore.open(options.runsDir, options.name, { create: false, exclusive: true });
  const cache = storeTestCache(store, { read: options.cache });
  const rows = store.tasks().filter((row) => row.status === 'done');
  let dirs: Map<number, string>;
  try {
    dirs = poolDirs(rows, options.pools, options.name);
  } catch (error) {
    store.close();
    throw error;
  }
  const poolDirOf = (row: TaskRow) => {
    const dir = dirs.get(row.id);
    if (!dir) throw new UserError(`no pool ${row.repo}/task${row.task_id} under ${options.pools}: task ${row.key} cannot be evaluated`);
    return dir;
  };
  await backend.prepareRun(options.name, poolsOf(dirs));
  if (rows.length === 0) log(`run ${options.name} has no finished task to evaluate`);
  const stages: TaskStages<RunnerTask & { row: TaskRow }> = {
    finished: 'evaluated',
    async execute({ row }, { slot }) {
      const task = taskFromRow(row, poolDirOf(row));
      const image = await slot.prepareImage(task.pool, options.name, log);
      const base = await slot.baseRepo(image, options.name);
      const agents = store.agents(row.id);
      const input = {
        features: task.features.map((id) => findFeature(task.pool, id)),
        patches: agents.map((a) => a.patch),
        base,
        tests: { slot, image, run: options.name, task: row.id, limits: options.limits, timeoutMs: options.testTimeoutMs, cache, keepWarm: true },
        merge: options.merge,
      };
      const result = await evaluatePatches({ ...input, previousMergedPatch: store.mergedPatch(row.id) });
      const repaired = repairedPatches(
        store.dir,
        row.key,
        agents.map((a) => a.agent),
      );
      let repairedVerdict: string | undefined;
      if (repaired.size > 0) {
        const attempt = await evaluateRepaired(input, new Map(agents.flatMap((a, i) => (repaired.has(a.agent) ? [[i, repaired.get(a.agent)!]] : []))));
        result.attempts.push(attempt);
        repairedVerdict = `with the stripped patches repaired: ${attempt.tested ? (attempt.tested.passed ? 'both pass' : 'tests fail') : attempt.reason}`;
      }
      store.saveEvaluation(row.id, result);
      writeEvaluationFiles(taskLogDir(store.dir, task), result);
      const detail = [testVerdicts(result.evaluations), mergeProgress(task.setting, result), repairedVerdict];
      return { bothPassed: result.bothPassed, detail: detail.filter(Boolean).join('; ') };
    },
    // A task whose evaluation failed keeps its earlier evaluation: only the error is reported.
    interrupted: (_running, signal) =>
      log(`eval of run ${options.name} interrupted by ${signal}: finished tasks are stored; run it again to evaluate the rest`),
  };
  const { counts, interrupted } = await runTasks(
    // Its own place (Docker engine) keeps the image id, hence the cached results, of the task's earlier evaluation.
    rows.map((row) => ({ id: row.id, label: labelOf(row, dirs.get(row.id)), place: row.docker_host, row })),
    stages,
    { run: options.name, backend, concurrency: options.concurrency, io, close: () => store.close() },
  );
  if (interrupted) return 130;
  io.out(`${formatSummary(options.name, summarize(store))}\n${cacheSummaryLine(totalCount(cachedEvaluationsByTask(store).values()))}\n`);
  store.close();
  return counts.errors > 0 ? 1 : 0;
}

/** How progress names a stored task; its row's key when its pool no longer loads. */
function labelOf(row: TaskRow, poolDir: string | undefined): string {
  try {
    return describeTask(taskFromRow(row, poolDir));
  } catch {
    return `task ${row.key}`;
  }
}
