// `coop-bench run`: plan the tasks, skip the finished ones, run the rest N at a time, store each
// result as it finishes, and stop cleanly on SIGINT/SIGTERM.
import { createHash } from 'node:crypto';
import type { Setting, TaskSpec } from '../../tasks/types.ts';
import { featureDirName, poolKey, taskKey, teamName } from '../../tasks/types.ts';
import { discoverPools } from '../../tasks/pools.ts';
import { loadSubset } from '../../tasks/subset.ts';
import { planTasks, shardSize, shardTasks, subsetPoolsMissing, type Plan, type Shard } from '../../tasks/plan.ts';
import { checkAgentSpecs, createAgent, parseAgentSpec, type AgentSpec } from '../agents/registry.ts';
import type { Agent } from '../agents/types.ts';
import { shortHash, type AgentConfig } from '../agents/config/agent-config.ts';
import { findContextWindows, type ModelOptions } from '../models/index.ts';
import { runPreflight } from './preflight.ts';
import type { ContainerLimits, SandboxBackend } from '../sandbox/types.ts';
import { createBackend, type BackendChoice } from '../sandbox/registry.ts';
import { RunStore, checkRunName } from '../store/run-store.ts';
import { cachedEvaluationsByTask, storeTestCache, testCacheSize } from '../store/test-cache.ts';
import { testVerdicts } from './cache-marks.ts';
import { cacheSummaryLine, totalCount } from '../../reports/cache-count.ts';
import { storageFailure } from '../store/storage-errors.ts';
import { taskLogDir, writeTaskFiles } from '../store/log-tree.ts';
import { MessageBus } from '../messaging/bus.ts';
import { activeConditions, conditionsLabel, type RunConditions } from '../messaging/conditions.ts';
import type { MergeStageOptions } from '../evaluation/evaluate.ts';
import { executeTask } from './execute-task.ts';
import { storeProbeAnswer } from './probes.ts';
import { probeCostUsd, probeTally } from '../store/probes.ts';
import { processIO, runTasks, type RunIO, type RunnerTask, type TaskStages } from './task-runner.ts';
import { formatSummary, mergeProgress, summarize } from './summary.ts';
import { cpuLine, cpuSpent } from './cpu-summary.ts';
import { recordCpuUsage, runCpuUsage } from '../store/cpu-usage.ts';
import { UserError, errorMessage, type RunStopError } from '../errors.ts';
import { modelConfigurationFailure, taskErrorKind } from './error-kind.ts';
import { mark } from '../timeline.ts';

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
  /** The teams to run, each a model per seat (`coop-bench play`); default: from `models` and `mix`. */
  teams?: string[][];
  /** Mixed teams of different models, in every order, instead of self-play. */
  mix: boolean;
  messaging: boolean;
  git: boolean;
  /** Coop conditions: --bandwidth, --latency, --visibility (absent: today's Coop). */
  conditions?: RunConditions;
  /** --probe every=K: each model agent of a Coop task answers a belief probe every K steps. */
  probe?: { every: number };
  /** The LLM agents' configuration (prompts, tools, limits), --max-steps already applied. */
  agentConfig: AgentConfig;
  /** Stop starting new tasks once the agents' model calls have cost this much (USD). */
  maxCost?: number;
  concurrency: number;
  /** --backend and its options (Docker engines to spread the tasks over, a Kubernetes namespace). */
  backend: BackendChoice;
  /** This machine's share of the plan, when several machines run it. */
  shard?: Shard;
  /** The largest plan this command makes: a larger one is refused before any task is made. */
  maxTasks: number;
  force: boolean;
  /** Run every test even when the run's test cache holds its result (fresh results still replace cached ones). */
  noCache: boolean;
  /** The oracle applies its gold patch in an agent container, as an agent would (checks the agent machinery). */
  oracleInContainer: boolean;
  dryRun: boolean;
  /** The live preflight (preflight.ts) before anything is built; default true (`--no-preflight`: false). */
  preflight?: boolean;
  image?: string;
  limits: ContainerLimits;
  testTimeoutMs: number;
  modelOptions: ModelOptions;
  /** Run an agent CLI on a model it does not run fully (`CliDefinition.degradedOn`), marked degraded. */
  allowDegradedCliModel?: boolean;
  merge: MergeStageOptions;
  /** Called after each task is stored (e.g. the judges); its failure never loses the task. */
  afterTask?: (store: RunStore, taskId: number) => Promise<void>;
}

/** Coop ablations and conditions that change what agents can do: part of a task's identity. */
export function variantOf(options: Pick<RunOptions, 'messaging' | 'git' | 'conditions'>): string {
  return [options.messaging ? '' : 'no-messaging', options.git ? 'git' : '', conditionsLabel(options.conditions ?? {})].filter(Boolean).join('+');
}

/** Conditions on messages need messages; looking at a partner's work needs the MCP server an agent CLI reaches it through. */
function checkConditions(options: RunOptions, agents: readonly AgentSpec[]): void {
  const { bandwidth, latency, visibility } = activeConditions(options.conditions ?? {});
  if (!options.messaging && (bandwidth || latency !== undefined)) {
    throw new UserError('--bandwidth and --latency shape the messages agents send: drop them, or drop --no-messaging');
  }
  if (!options.messaging && visibility && agents.some((agent) => agent.kind === 'cli')) {
    throw new UserError('agent CLIs reach --visibility through the message server: drop --no-messaging, or --visibility');
  }
}

/** --probe needs Coop, the probe's question, and a model agent to ask: only the built-in LLM agent is probed. */
function checkProbe(options: RunOptions, agents: readonly AgentSpec[], log: (line: string) => void): void {
  if (!options.probe) return;
  if (!options.settings.includes('coop'))
    throw new UserError('--probe asks Coop agents about their partners: run Coop (--setting coop or both), or drop --probe');
  if (!options.agentConfig.probe)
    throw new UserError(
      `the agent configuration ${options.agentConfig.source} has no probe_template, which --probe asks: add one (see the shipped default.json), or drop --probe`,
    );
  const unprobed = [...new Set(agents.filter((agent) => agent.kind !== 'loop').map((agent) => agent.spec))];
  if (unprobed.length === new Set(agents.map((agent) => agent.spec)).size)
    throw new UserError(
      `--probe asks the built-in model agent, and ${unprobed.join(', ')} ${unprobed.length === 1 ? 'is' : 'are'} not one (agent CLIs, oracle and noop are not probed): add a model such as gpt-5 or claude, or drop --probe`,
    );
  if (unprobed.length > 0)
    log(`warning: --probe: ${unprobed.join(', ')} ${unprobed.length === 1 ? 'is' : 'are'} not probed (only the built-in model agent is)`);
}

/** Self-play teams, or with --mix every ordered pair of different models. A model given twice counts once. */
export function teamsOf(models: string[], mix: boolean): string[][] {
  const distinct = [...new Set(models)];
  if (!mix) return distinct.map((m) => [m]);
  return distinct.flatMap((a) => distinct.filter((b) => b !== a).map((b) => [a, b]));
}

/** The plan of a run; a subset naming pools that are not there is a warning on `log`. */
export function planRun(options: RunOptions, log: (line: string) => void): Plan {
  checkRunName(options.name);
  const pools = discoverPools(options.poolsDir);
  const subset = options.subset ? loadSubset(options.subset, options.poolsDir) : undefined;
  if (subset) {
    const missing = subsetPoolsMissing(subset, pools);
    if (missing.length)
      log(
        `warning: subset ${subset.name} names ${missing.length} pool(s) not under ${options.poolsDir}, skipped: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''}`,
      );
  }
  return planTasks(pools, {
    pools: options.pools,
    taskIds: options.taskIds,
    features: options.features,
    subset,
    teams: options.teams ?? teamsOf(options.models, options.mix),
    settings: options.settings,
    agents: options.agents,
    variant: variantOf(options),
  });
}

/**
 * What identifies a plan whatever machine made it: its size and a hash of its task keys in order
 * (one per line). Stored with the run's options, so that merge-runs only combines shards of one plan.
 */
export function planIdentity(plan: Plan): { tasks: number; hash: string } {
  const hash = createHash('sha256');
  let tasks = 0;
  for (const task of plan.tasks()) hash.update(`${tasks++ ? '\n' : ''}${taskKey(task)}`);
  return { tasks, hash: hash.digest('hex') };
}

/** Refuses a plan over --max-tasks before any task is made; says how many tasks it would have. */
export function checkPlanSize(plan: Plan, options: Pick<RunOptions, 'maxTasks' | 'shard'>): void {
  if (plan.size <= options.maxTasks) return;
  const share = options.shard
    ? ` (${shardSize(plan.size, options.shard).toLocaleString('en')} of them in shard ${options.shard.index}/${options.shard.count})`
    : '';
  throw new UserError(
    `this command would plan ${plan.size.toLocaleString('en')} tasks${share}, more than --max-tasks ${options.maxTasks.toLocaleString('en')}: narrow it (--pool, --task, --features, --subset, --setting, --agents, fewer --models) or pass --max-tasks ${plan.size} to plan them all`,
  );
}

function* mapIterable<T, U>(items: Iterable<T>, f: (item: T) => U): Generator<U> {
  for (const item of items) yield f(item);
}

export function describeTask(task: TaskSpec): string {
  const setting = task.variant ? `${task.setting}-${task.variant}` : task.setting;
  return `${setting} ${teamName(task.models)} ${poolKey(task.pool)} ${featureDirName(task.features)}`;
}

export interface RunDependencies {
  /** The sandbox backend by name (default: the registry's). */
  createBackend?: typeof createBackend;
  /** Where results and progress go (default: stdout, and stderr with a bar on a terminal). */
  io?: RunIO;
  /**
   * Seats the caller fills with agents of its own (`coop-bench play`: a person): `spec` in
   * `models` names them; it is no model, so it is never checked, preflighted or priced.
   */
  seats?: { spec: string; agent(agentId: string): Agent };
}

/** Runs the benchmark; resolves with the process exit code. */
export async function runBenchmark(options: RunOptions, deps: RunDependencies = {}): Promise<number> {
  mark('run command loaded');
  if (options.mix && options.models.length < 2) throw new UserError('--mix needs at least two models (e.g. --models gpt-5,claude --mix)');
  // Each spec is parsed here, once: everything below reads the parsed value.
  const seatSpec = deps.seats?.spec;
  const parsed = options.models.filter((spec) => spec !== seatSpec).map(parseAgentSpec);
  checkConditions(options, parsed);
  // Before anything is built: a retired model, or one an agent CLI does not know, stops here.
  const agentModels = [
    ...checkAgentSpecs(parsed, options.modelOptions, { allowDegradedCliModel: options.allowDegradedCliModel }),
    ...(seatSpec && options.models.includes(seatSpec) ? [{ spec: seatSpec }] : []),
  ];
  const io = deps.io ?? processIO;
  const log = (line: string) => io.log(line);
  checkProbe(options, parsed, log);
  const plan = planRun(options, log);
  checkPlanSize(plan, options);
  const size = options.shard ? shardSize(plan.size, options.shard) : plan.size;
  if (size === 0) {
    log('nothing to run: no task matches the given pools, features and subset');
    return 1;
  }
  const share = options.shard ? ` (shard ${options.shard.index}/${options.shard.count})` : '';
  if (options.dryRun) {
    // The count first (computed, not listed): `--dry-run | head` shows it.
    io.out(`${size.toLocaleString('en')} task${size === 1 ? '' : 's'}${share}\n`);
    await io.list(mapIterable(shardTasks(plan, options.shard), describeTask));
    return 0;
  }
  // An agent compacts ahead of its model's window: every window is known before anything starts.
  const found = await findContextWindows(
    parsed.flatMap((agent) => (agent.kind === 'loop' ? [agent.model] : [])),
    options.modelOptions,
  );
  const agents = parsed.map((agent) => (agent.kind === 'loop' ? { ...agent, model: found.find((m) => m.spec === agent.spec)! } : agent));
  const agentOf = new Map(agents.map((agent) => [agent.spec, agent]));
  const { modelOptions } = options;
  // The pools' files are read here (a bad pool stops the run before any model is called)...
  const tasks = [...shardTasks(plan, options.shard)];
  // ...then what the backend cannot run (creating it builds and starts nothing)...
  const backend = await (deps.createBackend ?? createBackend)(options.backend.name, { ...options.backend, image: options.image, log });
  const gitProblem = options.git ? backend.gitUnsupported() : undefined;
  if (gitProblem) throw new UserError(gitProblem);
  const cliProblem = agents.some((agent) => agent.kind === 'cli') ? backend.cliAgentsUnsupported?.() : undefined;
  if (cliProblem) throw new UserError(cliProblem);
  mark('backend loaded');
  // ...then a key, model or request shape the service refuses, before any image or container.
  if (options.preflight !== false) await runPreflight(agents, modelOptions, log);
  mark('preflight answered');
  await backend.prepareRun(options.name, [...new Map(tasks.map((t) => [t.pool.dir, t.pool])).values()]);
  const store = RunStore.open(options.runsDir, options.name, { create: true, exclusive: true });
  if (store.runStatus() === 'running') await removeLeftovers(store, options.name, backend, log);
  const config = options.agentConfig;
  if (!options.force) refuseOtherAgentConfig(store, config);
  const testCache = storeTestCache(store, { read: !options.noCache });
  const { agentConfig: _, afterTask: __, preflight: ___, ...stored } = options;
  store.startRun({
    ...stored,
    // The windows found on the servers, by spec, recorded with the options as run.db has always held them.
    modelOptions: {
      ...modelOptions,
      contextWindows: Object.fromEntries(found.flatMap((m) => (m.contextWindow === undefined ? [] : [[m.spec, m.contextWindow]]))),
    },
    agentModels,
    maxSteps: config.stepLimit,
    agentConfig: config.source,
    agentConfigHash: config.hash,
    plan: planIdentity(plan),
  });
  const bus = new MessageBus(store);
  // Models known to take what this configuration sends (error-kind.ts): answered in this run, now or before.
  const answered = new Set(store.modelsAnsweredUnder(config.hash));
  const conditions = activeConditions(options.conditions ?? {});
  const rows = tasks.map((task) => ({ task, row: store.ensureTask(task) }));
  for (const { task, row } of rows) if (task.setting === 'coop') store.setConditions(row.id, conditions);
  const todo = rows.filter(({ row }) => options.force || row.status !== 'done');
  const skipped = rows.length - todo.length;

  log(`run ${options.name}: ${rows.length} tasks${share}`);
  if (skipped > 0) log(`${skipped} of ${rows.length} tasks already finished in run ${options.name}: skipped (--force runs them again)`);
  const cachedResults = options.noCache ? 0 : testCacheSize(store);
  if (cachedResults > 0)
    log(
      `the test cache of run ${options.name} holds ${cachedResults} result(s): tests of unchanged image, tests and code are not run again but reused (marked "cached"); --no-cache runs every test`,
    );

  const stages: TaskStages<RunnerTask & { task: TaskSpec }> = {
    finished: 'done',
    start: ({ id }) => store.markRunning(id, config.hash),
    async execute({ id, task }, { slot, signal, log: taskLog, spent }) {
      const result = await executeTask(task, {
        runName: options.name,
        taskId: id,
        backend,
        slot,
        limits: options.limits,
        testTimeoutMs: options.testTimeoutMs,
        signal,
        log: taskLog,
        agentsInSandboxes: options.oracleInContainer,
        createAgent: (spec, agentId) =>
          spec === seatSpec
            ? deps.seats!.agent(agentId)
            : createAgent(agentOf.get(spec)!, {
                config,
                model: modelOptions,
                log: taskLog,
                onModelCall: ({ agentId, model, usage, stopReason }) => {
                  store.recordModelCall(id, agentId, model, usage, stopReason);
                  answered.add(model);
                  spent(usage.costUsd);
                },
              }),
        recordStep: (agentId, step) => {
          // The task's result holds every step too: a step the store cannot take now is not lost.
          try {
            store.recordStep(id, agentId, step);
          } catch (error) {
            if (!signal.aborted) taskLog(`step ${step.index} of ${agentId} in ${describeTask(task)} not stored yet: ${errorMessage(error)}`);
          }
        },
        bus: task.setting === 'coop' && options.messaging ? bus : undefined,
        git: options.git,
        conditions: task.setting === 'coop' ? conditions : undefined,
        probe:
          task.setting === 'coop' && options.probe
            ? {
                every: options.probe.every,
                record: (agentId, answer, partnersThen) => {
                  try {
                    storeProbeAnswer(store, id, agentId, answer, partnersThen);
                  } catch (error) {
                    if (!signal.aborted) taskLog(`${agentId}'s belief probe after step ${answer.step} not stored: ${errorMessage(error)}`);
                  }
                  if ('usage' in answer) spent(answer.usage.costUsd);
                },
              }
            : undefined,
        merge: options.merge,
        testCache,
      });
      if (signal.aborted) return { bothPassed: false, detail: '' };
      writeTaskFiles(taskLogDir(store.dir, task), task, result, bus.conversation(id));
      store.saveResult(id, result);
      return { bothPassed: result.bothPassed, detail: [testVerdicts(result.evaluations), mergeProgress(task.setting, result)].filter(Boolean).join('; ') };
    },
    failed({ id }, error) {
      const kind = taskErrorKind(error, (cause) => backend.isInfrastructureError(cause));
      store.markError(id, errorMessage(error), kind);
      return kind === 'pool' ? ' [pool: not scored; fix the pool, then run again]' : ` [${kind}: not scored; run again to retry]`;
    },
    // The run folder cannot take writes (a full disk...), or the model service refuses the key or
    // the model: every task would fail the same way, so the run stops as on Ctrl-C, its finished
    // tasks kept, and says why in one line.
    fatal: (error) => storageFailure(error, store.dir) ?? modelConfigurationFailure(error, answered),
    after: options.afterTask ? ({ id }) => options.afterTask!(store, id) : undefined,
    interrupted(running, signal, counts) {
      for (const { id } of running) store.markError(id, `interrupted by ${signal}`, 'interrupted');
      store.setRunStatus('interrupted');
      log(`run ${options.name} interrupted: ${counts.done}/${counts.total} tasks finished and stored; run the same command again to resume`);
    },
  };
  mark('run stored');
  const cpuBefore = { harness: process.cpuUsage(), sandboxes: backend.cpuUsage?.() };
  const { counts, interrupted, stopped } = await runTasks(
    todo.map(({ task, row }) => ({ id: row.id, label: describeTask(task), task })),
    stages,
    {
      run: options.name,
      backend,
      concurrency: options.concurrency,
      maxCost: options.maxCost,
      io,
      skipped: { done: skipped, passed: rows.filter(({ row }) => row.status === 'done' && row.both_passed === 1).length },
      costUsd: store.agentCostUsd() + probeCostUsd(store),
      close: () => store.close(),
    },
  );
  if (stopped) {
    // A failed write is rolled back, so these few bytes may still fit; if not, resuming marks the tasks.
    try {
      store.setRunStatus('interrupted');
      for (const { id } of stopped.stranded) store.markError(id, `stopped: ${stopped.error.message}`, 'interrupted');
    } catch {
      // The store stays as the last committed write left it.
    }
    try {
      store.close();
    } catch {
      // Clearing its open marker did not fit even after the WAL was emptied (docs/reliability.md, known limits).
    }
    throw new UserError(
      `run ${options.name} stopped: ${stopped.error.message}: ${(stopped.error as RunStopError).remedy} and run the same command again to resume; ${counts.done} of ${counts.total} tasks are finished and stored`,
    );
  }
  if (interrupted) return 130;
  if (cpuBefore.sandboxes) recordCpuUsage(store, cpuSpent(cpuBefore.sandboxes, backend.cpuUsage!(), cpuBefore.harness, counts.done - skipped));
  const planned = new Set(rows.map(({ row }) => row.id));
  const unfinished = store.tasks().filter((t) => planned.has(t.id) && t.status !== 'done').length;
  store.setRunStatus(unfinished === 0 ? 'finished' : 'failed');
  io.out(`${formatSummary(options.name, summarize(store), agentModels)}\n${cacheSummaryLine(totalCount(cachedEvaluationsByTask(store).values()))}\n`);
  const cpu = runCpuUsage(store);
  if (cpu) io.out(`${cpuLine(cpu)}\n`);
  if (counts.costUsd > 0) io.out(`agents' model cost: $${counts.costUsd.toFixed(4)}\n`);
  if (options.probe) {
    const p = probeTally(store);
    io.out(`belief probes: ${p.answered} answered, ${p.unparsable} unparsable, ${p.failed} failed; $${p.costUsd.toFixed(4)} of the cost\n`);
  }
  if (unfinished > 0) io.out(`${unfinished} task(s) not finished: run the same command again to retry them\n`);
  io.out(`results: ${store.dir}\n`);
  store.close();
  return counts.errors > 0 || unfinished > 0 ? 1 : 0;
}

/**
 * Results of different agent configurations must not be pooled in one run without the user
 * choosing so: a resumed run keeps the configuration its finished tasks ran with.
 */
function refuseOtherAgentConfig(store: RunStore, config: AgentConfig): void {
  const other = store.tasks().filter((t) => t.status === 'done' && t.agent_config !== null && t.agent_config !== config.hash);
  if (other.length === 0) return;
  throw new UserError(
    `run ${store.name} has ${other.length} finished task(s) made with agent configuration ${shortHash(other[0]!.agent_config!)}, not with this one (${shortHash(config.hash)}, ${config.source}): use another --name, the same configuration, or --force to run the tasks again with this one`,
  );
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
