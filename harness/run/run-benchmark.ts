// `coop-bench run`: plan the tasks, skip the finished ones, run the rest N at a time, store each
// result as it finishes, and stop cleanly on SIGINT/SIGTERM.
import pLimit from 'p-limit';
import { createHash } from 'node:crypto';
import type { Setting, TaskSpec } from '../../tasks/types.ts';
import { featureDirName, poolKey, taskKey, teamName } from '../../tasks/types.ts';
import { discoverPools } from '../../tasks/pools.ts';
import { loadSubset } from '../../tasks/subset.ts';
import { planTasks, selectShard, subsetPoolsMissing, type Shard } from '../../tasks/plan.ts';
import { checkAgentSpecs, createAgent } from '../agents/registry.ts';
import type { ModelOptions } from '../models/index.ts';
import type { ContainerLimits, SandboxBackend } from '../sandbox/types.ts';
import { createBackend, type BackendChoice } from '../sandbox/registry.ts';
import { RunStore, checkRunName } from '../store/run-store.ts';
import { storeTestCache } from '../store/test-cache.ts';
import { taskLogDir, writeTaskFiles } from '../store/log-tree.ts';
import { MessageBus } from '../messaging/bus.ts';
import type { MergeStageOptions } from '../evaluation/evaluate.ts';
import { executeTask } from './execute-task.ts';
import { createProgress, type Progress } from './progress.ts';
import { formatSummary, mergeProgress, summarize } from './summary.ts';
import { UserError, errorMessage } from '../errors.ts';

export interface RunOptions {
  name: string;
  runsDir: string;
  poolsDir: string;
  models: string[];
  settings: Setting[];
  pools?: string[];
  taskIds?: number[];
  features?: number[];
  subset?: string;
  /** Agents per Coop task: 2, or 3-4 for the scaling experiment. */
  agents: number;
  /** Mixed teams of different models, in every order, instead of self-play. */
  mix: boolean;
  messaging: boolean;
  git: boolean;
  maxSteps: number;
  /** Stop starting new tasks once the agents' model calls have cost this much (USD). */
  maxCost?: number;
  concurrency: number;
  /** --backend and its options (Docker engines to spread the tasks over, a Kubernetes namespace). */
  backend: BackendChoice;
  /** This machine's share of the plan, when several machines run it. */
  shard?: Shard;
  force: boolean;
  dryRun: boolean;
  image?: string;
  limits: ContainerLimits;
  testTimeoutMs: number;
  modelOptions: ModelOptions;
  merge: MergeStageOptions;
  /** Called after each task is stored (e.g. the judges); its failure never loses the task. */
  afterTask?: (store: RunStore, taskId: number) => Promise<void>;
}

/** Coop ablations that change what agents can do: part of a task's identity. */
export function variantOf(options: Pick<RunOptions, 'messaging' | 'git'>): string {
  return [options.messaging ? '' : 'no-messaging', options.git ? 'git' : ''].filter(Boolean).join('+');
}

/** Self-play teams, or with --mix every ordered pair of different models. */
export function teamsOf(models: string[], mix: boolean): string[][] {
  if (!mix) return models.map((m) => [m]);
  return models.flatMap((a) => models.filter((b) => b !== a).map((b) => [a, b]));
}

export function planRun(options: RunOptions): TaskSpec[] {
  checkRunName(options.name);
  const pools = discoverPools(options.poolsDir);
  const subset = options.subset ? loadSubset(options.subset, options.poolsDir) : undefined;
  if (subset) {
    const missing = subsetPoolsMissing(subset, pools);
    if (missing.length) process.stderr.write(`warning: subset ${subset.name} names ${missing.length} pool(s) not under ${options.poolsDir}, skipped: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''}\n`);
  }
  return planTasks(pools, {
    pools: options.pools,
    taskIds: options.taskIds,
    features: options.features,
    subset,
    teams: teamsOf(options.models, options.mix),
    settings: options.settings,
    agents: options.agents,
    variant: variantOf(options),
  });
}

/**
 * What identifies a plan whatever machine made it: its size and a hash of its task keys in order.
 * Stored with the run's options, so that merge-runs only combines shards of one plan.
 */
export function planIdentity(plan: TaskSpec[]): { tasks: number; hash: string } {
  return { tasks: plan.length, hash: createHash('sha256').update(plan.map(taskKey).join('\n')).digest('hex') };
}

export function describeTask(task: TaskSpec): string {
  const setting = task.variant ? `${task.setting}-${task.variant}` : task.setting;
  return `${setting} ${teamName(task.models)} ${poolKey(task.pool)} ${featureDirName(task.features)}`;
}

export interface RunDependencies {
  /** The sandbox backend by name (default: the registry's). */
  createBackend?: typeof createBackend;
}

/** Runs the benchmark; resolves with the process exit code. */
export async function runBenchmark(options: RunOptions, deps: RunDependencies = {}): Promise<number> {
  if (options.mix && options.models.length < 2) throw new UserError('--mix needs at least two models (e.g. --models gpt-5,claude --mix)');
  checkAgentSpecs(options.models, options.modelOptions);
  const plan = planRun(options);
  const tasks = selectShard(plan, options.shard);
  if (tasks.length === 0) {
    process.stderr.write('nothing to run: no task matches the given pools, features and subset\n');
    return 1;
  }
  if (options.dryRun) {
    for (const task of tasks) process.stdout.write(`${describeTask(task)}\n`);
    process.stdout.write(`${tasks.length} tasks${options.shard ? ` (shard ${options.shard.index}/${options.shard.count})` : ''}\n`);
    return 0;
  }
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const backend = await (deps.createBackend ?? createBackend)(options.backend.name, { ...options.backend, image: options.image, log });
  const gitProblem = options.git ? backend.gitUnsupported() : undefined;
  if (gitProblem) throw new UserError(gitProblem);
  await backend.prepareRun(options.name, [...new Map(tasks.map((t) => [t.pool.dir, t.pool])).values()]);
  const store = RunStore.open(options.runsDir, options.name, { create: true, exclusive: true });
  if (store.runStatus() === 'running') await removeLeftovers(store, options.name, backend, log);
  const testCache = storeTestCache(store);
  store.startRun({ ...options, plan: planIdentity(plan) });
  const bus = new MessageBus(store);
  const rows = tasks.map((task) => ({ task, row: store.ensureTask(task) }));
  const todo = rows.filter(({ row }) => options.force || row.status !== 'done');
  const skipped = rows.length - todo.length;

  const controller = new AbortController();
  const running = new Set<number>();
  const counts = {
    done: skipped,
    total: rows.length,
    passed: rows.filter(({ row }) => row.status === 'done' && row.both_passed === 1).length,
    errors: 0,
    running: 0,
    costUsd: store.agentCostUsd(),
  };
  const progress: Progress = createProgress(rows.length);
  if (skipped > 0) progress.log(`${skipped} of ${rows.length} tasks already finished in run ${options.name}: skipped (--force runs them again)`);
  progress.update(counts);

  const interrupt = installInterruptHandler(async (signal) => {
    controller.abort();
    // Taken now: tasks leave `running` as their containers disappear below.
    const interrupted = [...running];
    progress.log(`${signal}: stopping; removing sandboxes...`);
    await backend.removeOwn();
    await backend.removeLeftovers(options.name).catch(() => 0);
    for (const id of interrupted) store.markError(id, `interrupted by ${signal}`, 'interrupted');
    store.setRunStatus('interrupted');
    progress.stop();
    store.close();
    process.stderr.write(`run ${options.name} interrupted: ${counts.done}/${counts.total} tasks finished and stored; run the same command again to resume\n`);
  });

  let costLimitLogged = false;
  const overBudget = () => {
    if (options.maxCost === undefined || counts.costUsd < options.maxCost) return false;
    if (!costLimitLogged) progress.log(`cost limit reached ($${counts.costUsd.toFixed(2)} of --max-cost $${options.maxCost}): no new task starts; running ones finish`);
    costLimitLogged = true;
    return true;
  };

  const limit = pLimit(Math.max(1, options.concurrency));
  const runOne = async (task: TaskSpec, id: number) => {
    if (controller.signal.aborted || overBudget()) return;
    running.add(id);
    store.markRunning(id);
    counts.running++;
    progress.update(counts);
    const started = Date.now();
    const slot = backend.acquire();
    try {
      const result = await executeTask(task, {
        runName: options.name,
        taskId: id,
        backend,
        slot,
        limits: options.limits,
        testTimeoutMs: options.testTimeoutMs,
        signal: controller.signal,
        log: (line) => progress.log(line),
        createAgent: (spec) =>
          createAgent(spec, {
            maxSteps: options.maxSteps,
            model: options.modelOptions,
            log: (line) => progress.log(line),
            onModelCall: ({ agentId, model, usage }) => {
              store.recordModelCall(id, agentId, model, usage);
              counts.costUsd += usage.costUsd;
              progress.update(counts);
            },
          }),
        bus: task.setting === 'coop' && options.messaging ? bus : undefined,
        git: options.git,
        merge: options.merge,
        testCache,
      });
      if (controller.signal.aborted) return;
      writeTaskFiles(taskLogDir(store.dir, task), task, result, bus.conversation(id));
      store.saveResult(id, result);
      counts.done++;
      if (result.bothPassed) counts.passed++;
      const verdicts = result.evaluations.map((e) => `f${e.feature} ${e.passed ? 'pass' : 'fail'}`).join(', ');
      const where = backend.placeCount > 1 ? ` on ${slot.where}` : '';
      progress.log(`done  ${describeTask(task)}: ${result.bothPassed ? 'both pass' : 'not both'} (${[verdicts, mergeProgress(task.setting, result)].filter(Boolean).join('; ')}) ${Math.round((Date.now() - started) / 1000)}s${where}`);
    } catch (error) {
      if (controller.signal.aborted) return;
      store.markError(id, errorMessage(error));
      counts.done++;
      counts.errors++;
      progress.log(`error ${describeTask(task)}: ${errorMessage(error).split('\n')[0]}`);
      return;
    } finally {
      backend.release(slot);
      running.delete(id);
      counts.running--;
      progress.update(counts);
    }
    await options.afterTask?.(store, id).catch((error) => progress.log(`after ${describeTask(task)}: ${errorMessage(error).split('\n')[0]}`));
  };

  try {
    await Promise.all(todo.map(({ task, row }) => limit(() => runOne(task, row.id))));
  } finally {
    interrupt.dispose();
  }
  if (controller.signal.aborted) return interrupt.exitCode;
  progress.stop();
  const planned = new Set(rows.map(({ row }) => row.id));
  const unfinished = store.tasks().filter((t) => planned.has(t.id) && t.status !== 'done').length;
  store.setRunStatus(unfinished === 0 ? 'finished' : 'failed');
  process.stdout.write(`${formatSummary(options.name, summarize(store))}\n`);
  if (counts.costUsd > 0) process.stdout.write(`agents' model cost: $${counts.costUsd.toFixed(4)}\n`);
  if (unfinished > 0) process.stdout.write(`${unfinished} task(s) not finished: run the same command again to retry them\n`);
  process.stdout.write(`results: ${store.dir}\n`);
  store.close();
  return counts.errors > 0 || unfinished > 0 ? 1 : 0;
}

/**
 * The run's last process died mid-run (kill -9, a crash, a power cut): its unfinished tasks will run
 * again, and the sandboxes it left are removed first (we hold the run's lock: none is in use).
 */
async function removeLeftovers(store: RunStore, name: string, backend: SandboxBackend, log: (line: string) => void): Promise<void> {
  const stale = store.markStaleRunningInterrupted();
  const removed = await backend.removeLeftovers(name);
  log(`run ${name} was stopped without cleaning up: ${stale} unfinished task(s) will run again${removed ? `, ${removed} leftover sandbox(es) removed` : ''}`);
}

/**
 * First SIGINT/SIGTERM: graceful stop (the handler removes containers and records the run as
 * interrupted), then exit 130. A second signal exits at once.
 */
function installInterruptHandler(stop: (signal: NodeJS.Signals) => Promise<void>) {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    stop(signal)
      .catch((error) => process.stderr.write(`while stopping: ${errorMessage(error)}\n`))
      .finally(() => process.exit(130));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    exitCode: 130,
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
