// `coop-bench play`: a Coop task in which one seat (or both) is a person working in a browser page.
// The person's seat is an agent of the task pipeline (harness/play/seat.ts): its container, merge,
// hidden tests, judges and stored run are an agent run's; only its steps come from the page.
import { Command, InvalidArgumentError, Option } from 'commander';
import { runBenchmark, planRun, type RunOptions } from '../run/run-benchmark.ts';
import { DEFAULT_AGENT_CONFIG, loadAgentConfig } from '../agents/config/agent-config.ts';
import { SHIPPED_POOLS } from '../paths.ts';
import { addContainerOptions, addModelOptions, containerLimits, list, modelOptions, numberList, positiveInt } from './options.ts';
import { addMergeStageOptions, mergeStageOptions } from './merge.ts';
import { judgeTask } from '../run/judge-tasks.ts';
import { createModel } from '../models/index.ts';
import { writeReport } from '../run/write-report.ts';
import { HUMAN_SPEC, Seat } from '../play/seat.ts';
import { startPlayServer } from '../play/server.ts';
import { UserError } from '../errors.ts';
import { backendNames, DEFAULT_BACKEND } from '../sandbox/registry.ts';
import { processIO } from '../run/task-runner.ts';

function seatList(value: string): number[] {
  const seats = numberList(value);
  if (seats.some((s) => s < 1)) throw new InvalidArgumentError('seats are numbered from 1 (seat i implements the i-th of --features)');
  return [...new Set(seats)];
}

/** `play-20261129-081500`: each session its own run unless --name resumes one. */
function sessionName(now = new Date()): string {
  return `play-${now.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}`;
}

export function playCommand(): Command {
  const command = new Command('play')
    .description(
      'a Coop task with a person in one seat (or both): a terminal in their own container, the feature and a chat with the partner, in a local web page',
    )
    .requiredOption('--task <id>', 'the task id', positiveInt)
    .requiredOption('--features <i,j>', 'the feature pair; seat i implements the i-th', numberList)
    .option('--seat <n>', "the person's seat(s): 1, 2, or 1,2 for two people (one page each)", seatList, [1])
    .option('--partner <spec>', 'model spec of the other seat: gpt-5, claude, openai:<model>, ..., or oracle/noop for a dry run')
    .option('--pools <dir>', 'dataset folder in the CooperBench layout', SHIPPED_POOLS)
    .option('--pool <names>', 'the pool, when several have this task id (repo folder name, e.g. argkit_task)', list)
    .option('--judge-model <spec>', 'model of the LLM judges (the deterministic judges always run)')
    .option('--agent-config <file>', "the partner agent's configuration", DEFAULT_AGENT_CONFIG)
    .option('--max-steps <n>', "the partner's model turns", positiveInt)
    .option('--name <name>', 'run name (default: play-<date>-<time>); a run with the same name resumes')
    .option('--runs-dir <dir>', 'where runs are stored', 'runs')
    .option('--image <name>', 'use this image instead of building')
    .addOption(new Option('--backend <name>', 'where sandboxes run (play: docker only)').choices(backendNames()).default(DEFAULT_BACKEND))
    .option('--no-preflight', "skip the live preflight of the partner's model");
  addModelOptions(addMergeStageOptions(addContainerOptions(command)));
  return command.action(async (o) => {
    // The person's terminal is a shell attached through the local engine and the page is served on
    // 127.0.0.1 of the same machine: a cluster's pod would need its exec stream relayed to the page.
    if (o.backend !== 'docker')
      throw new UserError(
        `play runs on the local Docker engine only (the person's terminal attaches to their container through it); drop --backend ${o.backend}, or use \`coop-bench run --backend ${o.backend}\` for agent-only runs`,
      );
    const features: number[] = o.features;
    if (features.length !== 2) throw new UserError('--features takes a pair, e.g. --features 1,2');
    const seats: number[] = o.seat;
    if (seats.some((s) => s > features.length)) throw new UserError(`--seat ${seats.join(',')}: a pair has seats 1 and 2`);
    const team = features.map((_, i) => (seats.includes(i + 1) ? HUMAN_SPEC : o.partner));
    if (team.includes(undefined)) throw new UserError('name the model of the other seat with --partner (e.g. --partner claude, or oracle for a dry run)');
    if (o.partner === HUMAN_SPEC) throw new UserError(`--partner ${HUMAN_SPEC}: a second person takes a seat with --seat 1,2`);
    const options: RunOptions = {
      name: o.name ?? sessionName(),
      runsDir: o.runsDir,
      poolsDir: o.pools,
      models: [...new Set(team as string[])],
      teams: [team as string[]],
      settings: ['coop'],
      pools: o.pool,
      taskIds: [o.task],
      features,
      agents: 2,
      mix: false,
      messaging: true,
      git: false,
      agentConfig: loadAgentConfig(o.agentConfig, { stepLimit: o.maxSteps }),
      concurrency: 1,
      backend: { name: 'docker', dockerHosts: [] },
      maxTasks: 1,
      force: false,
      noCache: false,
      oracleInContainer: false,
      dryRun: false,
      preflight: o.preflight,
      image: o.image,
      limits: containerLimits(o),
      testTimeoutMs: o.testTimeout * 1000,
      modelOptions: modelOptions(o),
      merge: mergeStageOptions(o),
    };
    const plan = planRun(options, processIO.log);
    if (plan.size === 0)
      throw new UserError(`no task ${o.task} with features ${features.join(',')} under ${o.pools}${o.pool ? ` in ${o.pool.join(', ')}` : ''}`);
    if (plan.size > 1) throw new UserError(`task ${o.task} is in ${plan.size} pools: name one with --pool`);

    const people = new Map(seats.map((s) => [`agent${s}`, new Seat(`agent${s}`)]));
    const server = await startPlayServer([...people.values()]);
    for (const [agentId, seat] of people) processIO.log(`seat ${agentId.slice('agent'.length)} (${agentId}): open ${server.url(seat)}`);
    const judgeModel = o.judgeModel === undefined ? undefined : createModel(o.judgeModel, modelOptions(o));
    try {
      process.exitCode = await runBenchmark(
        { ...options, afterTask: (store, taskId) => judgeTask(store, taskId, { model: judgeModel }).then(() => undefined) },
        { seats: { spec: HUMAN_SPEC, agent: (agentId) => people.get(agentId)!.agent() } },
      );
    } finally {
      await server.close();
    }
    const { path } = writeReport({ runsDir: options.runsDir, name: options.name, format: 'html' });
    process.stdout.write(`report: ${path}\n`);
  });
}
