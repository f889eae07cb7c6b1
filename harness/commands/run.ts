import { Command, InvalidArgumentError, Option } from 'commander';
import type { Setting } from '../../tasks/types.ts';
import { runBenchmark } from '../run/run-benchmark.ts';
import { DEFAULT_AGENT_CONFIG, loadAgentConfig } from '../agents/config/agent-config.ts';
import { SHIPPED_POOLS } from '../paths.ts';
import {
  addContainerOptions,
  addBackendOptions,
  addModelOptions,
  containerLimits,
  backendChoice,
  list,
  modelOptions,
  numberList,
  positiveInt,
  positiveNumber,
} from './options.ts';
import { DEFAULT_MAX_TASKS, parseShard } from '../../tasks/plan.ts';
import { CONDITIONS, ConditionError } from '../messaging/conditions.ts';
import { addMergeStageOptions, mergeStageOptions } from './merge.ts';
import { parseProbeOption } from '../run/probes.ts';
import { createModel, type ModelOptions } from '../models/index.ts';
import { agentSpecForms } from '../agents/registry.ts';
import type { RunStore } from '../store/run-store.ts';

/** --judge: label each task once it is stored; the judge model is checked before any task starts. */
function judgeAfterTask(spec: string | undefined, options: ModelOptions) {
  const model = spec === undefined ? undefined : createModel(spec, options);
  // The judges are loaded with the first task to judge: a run without --judge never loads them.
  return async (store: RunStore, taskId: number) => {
    const { judgeTask } = await import('../run/judge-tasks.ts');
    await judgeTask(store, taskId, { model });
  };
}

function settings(value: string): Setting[] {
  if (value === 'both') return ['coop', 'solo'];
  if (value === 'coop' || value === 'solo') return [value];
  throw new InvalidArgumentError('use coop, solo or both');
}

function agentCount(value: string): number {
  const n = Number(value);
  if (![2, 3, 4].includes(n)) throw new InvalidArgumentError('use 2, 3 or 4');
  return n;
}

/** The default run name is the models: running the same command again resumes the same run. */
function defaultName(models: string[]): string {
  return (
    models
      .join('+')
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^[._-]+/, '')
      .slice(0, 100) || 'run'
  );
}

export function runCommand(): Command {
  const command = new Command('run')
    .description('run feature pairs with agents in containers, merge their patches and run the hidden tests')
    .requiredOption('--models <list>', `model specs, comma-separated: ${agentSpecForms().join(', ')}`, list)
    .addOption(new Option('--setting <setting>', 'coop, solo or both').default(['coop', 'solo'], 'both').argParser(settings))
    .option('--pools <dir>', 'dataset folder in the CooperBench layout', SHIPPED_POOLS)
    .option('--pool <names>', 'only these pools (repo folder names, e.g. argkit_task)', list)
    .option('--task <ids>', 'only these task ids', numberList)
    .option('--features <ids>', 'only this pair (or tuple, with --agents) of features, e.g. 1,2', numberList)
    .option('--subset <name|file>', 'CooperBench subset JSON (a file, or a name under <pools>/subsets/)')
    .option('--agents <n>', 'agents per Coop task: 2, or 3-4 for the scaling experiment', agentCount, 2)
    .option('--mix', 'mixed teams of the given models, in both orders, instead of self-play', false)
    .option('--no-messaging', 'Coop without the message tool (the "no comm" ablation)')
    .option('--git', "agents can fetch each other's published branches (read-only; still no network)", false)
    .option(
      '--agent-config <file>',
      "the LLM agents' configuration: prompt templates, tools, limits, compaction (JSON; see the shipped one)",
      DEFAULT_AGENT_CONFIG,
    )
    .option('--max-steps <n>', 'model turns per agent (default: step_limit of the agent configuration, 100)', positiveInt)
    .option('--max-cost <usd>', 'stop starting new tasks once agents have spent this much', positiveNumber)
    .option('--judge', 'judge each Coop task as it finishes (deterministic detectors; LLM judges too with --judge-model)', false)
    .option('--judge-model <spec>', 'model of the LLM judges, as for --models')
    .option('--concurrency <n>', 'tasks run at the same time (over all Docker engines)', positiveInt, 2)
    .option('--max-tasks <n>', 'refuse a plan of more tasks than this (the count is printed without making them)', positiveInt, DEFAULT_MAX_TASKS)
    .option('--shard <i/n>', "run only this machine's share of the tasks (the i-th of n); combine the shards with merge-runs", parseShard)
    .option('--name <name>', 'run name (default: the models); a run with the same name resumes')
    .option('--runs-dir <dir>', 'where runs are stored', 'runs')
    .option('--image <name>', 'use this image for every pool instead of building')
    .option(
      '--force',
      'run tasks again even if finished (test results cached in the run are reused for unchanged image, tests and code: add --no-cache to run every test)',
      false,
    )
    .option('--no-cache', "run every test again instead of reusing the run's cached results (fresh results replace them)")
    .option(
      '--oracle-in-container',
      'the oracle applies its gold patch inside an agent container, as an agent would, to check the agent machinery (default: on this machine against the base repository, no agent container; same patches)',
      false,
    )
    .option(
      '--no-preflight',
      'skip the live preflight: a tool call, its result and a second turn sent to each model before anything is built (well under $0.01 a model)',
    )
    .option(
      '--allow-degraded-cli-model',
      'run an agent CLI on a model it does not run with its full tool set (Codex: one its bundled catalogue does not list, or one it sends in Responses Lite form), marked degraded in the summary and report',
      false,
    )
    .option(
      '--probe <every=K>',
      'Coop: every K steps each model agent (not agent CLIs or the oracle) answers, outside its conversation, which files and functions its partners change and whether they will conflict; scored in the report',
      (value: string) => {
        try {
          return parseProbeOption(value);
        } catch (error) {
          throw new InvalidArgumentError((error as Error).message);
        }
      },
    )
    .option('--dry-run', 'print the tasks that would run and stop', false);
  for (const condition of CONDITIONS) {
    command.option(`--${condition.key} <${condition.usage}>`, condition.help, (value: string) => {
      try {
        return condition.parse(value);
      } catch (error) {
        if (error instanceof ConditionError) throw new InvalidArgumentError(error.message);
        throw error;
      }
    });
  }
  addModelOptions(addMergeStageOptions(addContainerOptions(addBackendOptions(command))));
  return command.action(async (o) => {
    process.exitCode = await runBenchmark({
      name: o.name ?? defaultName(o.models),
      runsDir: o.runsDir,
      poolsDir: o.pools,
      models: o.models,
      settings: o.setting,
      pools: o.pool,
      taskIds: o.task,
      features: o.features,
      subset: o.subset,
      agents: o.agents,
      mix: o.mix,
      messaging: o.messaging,
      git: o.git,
      conditions: Object.fromEntries(CONDITIONS.flatMap((c) => (o[c.key] === undefined ? [] : [[c.key, o[c.key]]]))),
      probe: o.probe,
      agentConfig: loadAgentConfig(o.agentConfig, { stepLimit: o.maxSteps }),
      maxCost: o.maxCost,
      concurrency: o.concurrency,
      backend: backendChoice(o),
      shard: o.shard,
      maxTasks: o.maxTasks,
      force: o.force,
      noCache: !o.cache,
      oracleInContainer: o.oracleInContainer,
      dryRun: o.dryRun,
      preflight: o.preflight,
      image: o.image,
      limits: containerLimits(o),
      testTimeoutMs: o.testTimeout * 1000,
      modelOptions: modelOptions(o),
      allowDegradedCliModel: o.allowDegradedCliModel,
      merge: mergeStageOptions(o),
      afterTask: o.judge || o.judgeModel ? judgeAfterTask(o.judgeModel, modelOptions(o)) : undefined,
    });
  });
}
