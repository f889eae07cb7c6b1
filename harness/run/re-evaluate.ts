// `coop-bench eval`: merge and test the stored patches of a run again (new runner, fixed pool,
// another merge stage) without running any agent.
import pLimit from 'p-limit';
import type { TaskSpec } from '../../tasks/types.ts';
import { findFeature, loadPool } from '../../tasks/pools.ts';
import { RunStore, type TaskRow } from '../store/run-store.ts';
import { taskLogDir, writeEvaluationFiles } from '../store/log-tree.ts';
import { requireEngine } from '../docker/engine.ts';
import { poolImage, requireImage } from '../docker/images.ts';
import { baseRepo } from '../docker/base-repo.ts';
import type { ContainerLimits } from '../docker/sandbox.ts';
import type { MergeStageOptions } from '../evaluation/evaluate.ts';
import { evaluatePatches } from '../evaluation/evaluate.ts';
import { formatSummary, summarize } from './summary.ts';
import { describeTask } from './run-benchmark.ts';
import { errorMessage } from '../errors.ts';

export interface ReEvaluateOptions {
  name: string;
  runsDir: string;
  concurrency: number;
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

export async function reEvaluate(options: ReEvaluateOptions): Promise<number> {
  await requireEngine();
  if (options.image) await requireImage(options.image);
  const store = RunStore.open(options.runsDir, options.name, { create: false, exclusive: true });
  const rows = store.tasks().filter((row) => row.status === 'done');
  if (rows.length === 0) process.stderr.write(`run ${options.name} has no finished task to evaluate\n`);
  let errors = 0;
  const limit = pLimit(Math.max(1, options.concurrency));
  await Promise.all(
    rows.map((row) =>
      limit(async () => {
        let label = `task ${row.key}`;
        try {
          const task = taskFromRow(row);
          label = describeTask(task);
          const image = await poolImage(task.pool, { image: options.image, log: (l) => process.stderr.write(`${l}\n`) });
          const base = await baseRepo(image, options.name);
          const result = await evaluatePatches({
            features: task.features.map((id) => findFeature(task.pool, id)),
            patches: store.agents(row.id).map((a) => a.patch),
            base,
            tests: { image, run: options.name, limits: options.limits, timeoutMs: options.testTimeoutMs },
            merge: options.merge,
          });
          store.saveEvaluation(row.id, result);
          writeEvaluationFiles(taskLogDir(store.dir, task), result);
          process.stderr.write(`evaluated ${label}: ${result.bothPassed ? 'both pass' : 'not both'} (merge ${result.merge.status})\n`);
        } catch (error) {
          errors++;
          process.stderr.write(`error ${label}: ${errorMessage(error).split('\n')[0]}\n`);
        }
      }),
    ),
  );
  process.stdout.write(`${formatSummary(options.name, summarize(store))}\n`);
  store.close();
  return errors > 0 ? 1 : 0;
}
