// (1) Per agent step: the harness's step against a raw exec of the same command in the same container.
// The harness step is the real LlmAgent loop (mailbox read on the SQLite bus, model call accounting
// in run.db, argument validation, the bash tool through DockerSandbox.exec, trajectory) driven by an
// in-process model that answers at once, so the step holds no model latency: it is measured from
// the model's answer to the next model call. The raw exec runs the same `bash -c <command>` in the
// same container, through the Docker API (dockerode: exec create, start with demultiplexed streams,
// inspect for the exit code) and through the CLI (`docker exec`), interleaved with the agent's steps.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { LlmAgent } from '../harness/agents/llm-agent.ts';
import { loadAgentConfig } from '../harness/agents/config/agent-config.ts';
import { Trajectory } from '../harness/agents/trajectory.ts';
import type { CompletionRequest, Model, ModelResponse } from '../harness/models/types.ts';
import { DockerSandbox } from '../harness/sandbox/docker/sandbox.ts';
import { containerLabels } from '../harness/sandbox/labels.ts';
import { DEFAULT_LIMITS } from '../harness/sandbox/types.ts';
import { isEngineError } from '../harness/sandbox/docker/engine.ts';
import { MessageBus } from '../harness/messaging/bus.ts';
import { RunStore } from '../harness/store/run-store.ts';
import { WORKSPACE } from '../tasks/prompts.ts';
import { BENCH_RUN, type BenchFixture } from './fixture.ts';
import { median, ms, percentile, ratio, type BenchTable } from './table.ts';

export const COMMANDS = ['ls -la', 'git status --short', 'cat src/parser.js', 'grep -rn "function" src | head -40', "sed -n '1,60p' src/index.js"];
const ROUNDS = 12;
const TARGET = 1.2;

const run = promisify(execFile);

/** A raw exec through the API: create, start (hijacked, demultiplexed), inspect. */
async function apiExec(container: Docker.Container, command: string): Promise<number> {
  const exec = await container.exec({ Cmd: ['bash', '-c', command], AttachStdout: true, AttachStderr: true, WorkingDir: WORKSPACE });
  const stream = await exec.start({ hijack: true, stdin: false });
  const sink = new PassThrough();
  sink.resume();
  container.modem.demuxStream(stream, sink, sink);
  await new Promise((resolve) => stream.on('end', resolve));
  return (await exec.inspect()).ExitCode ?? -1;
}

const timed = async (action: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await action();
  return performance.now() - started;
};

/** Answers each call with the next command, after timing the raw execs of that command. */
class BenchModel implements Model {
  readonly spec = 'bench';
  readonly id = 'bench';
  readonly contextWindow = 1_000_000;
  readonly stepMs: number[] = [];
  readonly apiMs: number[] = [];
  readonly cliMs: number[] = [];
  private answeredAt?: number;
  private call = 0;

  constructor(private readonly container: Docker.Container) {}

  async complete(_request: CompletionRequest): Promise<ModelResponse> {
    const enteredAt = performance.now();
    if (this.answeredAt !== undefined) this.stepMs.push(enteredAt - this.answeredAt);
    const k = this.call++;
    const usage = { inputTokens: 1000, outputTokens: 50, costUsd: 0, latencyMs: 0 };
    if (k >= COMMANDS.length * ROUNDS) return { content: '', toolCalls: [{ id: `c${k}`, name: 'finish', arguments: '{"summary":"done"}' }], usage };
    const command = COMMANDS[k % COMMANDS.length]!;
    // Alternate the order so that neither raw path always runs right after the harness's.
    const api = () => timed(() => apiExec(this.container, command)).then((t) => this.apiMs.push(t));
    const cli = () =>
      timed(() => run('docker', ['exec', '-w', WORKSPACE, this.container.id, 'bash', '-c', command], { maxBuffer: 64 * 1024 * 1024 })).then((t) =>
        this.cliMs.push(t),
      );
    if (k % 2) await cli().then(api);
    else await api().then(cli);
    this.answeredAt = performance.now();
    return { content: '', toolCalls: [{ id: `c${k}`, name: 'bash', arguments: JSON.stringify({ command }) }], usage };
  }
}

export async function stepOverhead({ pool, image }: BenchFixture): Promise<BenchTable> {
  const dir = mkdtempSync(join(tmpdir(), 'coop-bench-bench-steps-'));
  const store = RunStore.open(dir, 'steps', { create: true });
  const taskId = store.ensureTask({ pool, features: [1, 2], setting: 'coop', models: ['bench', 'bench'], variant: '' }).id;
  const mailbox = new MessageBus(store).mailbox(taskId, 'agent1', ['agent2']);
  const sandbox = await DockerSandbox.start(image.engine, { image: image.id, labels: containerLabels(BENCH_RUN, 'agent'), limits: DEFAULT_LIMITS });
  try {
    const model = new BenchModel(sandbox.container);
    const agent = new LlmAgent('bench', model, {
      config: loadAgentConfig(undefined, { stepLimit: COMMANDS.length * ROUNDS + 1 }),
      onModelCall: ({ agentId, model: id, usage }) => store.recordModelCall(taskId, agentId, id, usage),
    });
    await agent.run({
      agentId: 'agent1',
      sandbox,
      pool,
      features: [pool.features[0]!],
      partners: ['agent2'],
      trajectory: new Trajectory(),
      signal: new AbortController().signal,
      isInfrastructureError: isEngineError,
      mailbox,
    });
    // The first round warms up connections and caches in the container; it is not counted.
    const counted = (values: number[]) => values.slice(COMMANDS.length);
    const step = counted(model.stepMs);
    const api = counted(model.apiMs);
    const cli = counted(model.cliMs);
    const byCommand = (values: number[], c: number) => values.filter((_, i) => i % COMMANDS.length === c);
    const rows = COMMANDS.map((command, c) => {
      const [h, a, l] = [median(byCommand(step, c)), median(byCommand(api, c)), median(byCommand(cli, c))];
      return [command, ms(h), ms(a), ms(l), ratio(h / a), ratio(h / l)];
    });
    const [h, a, l] = [median(step), median(api), median(cli)];
    rows.push(['all steps (median)', ms(h), ms(a), ms(l), ratio(h / a), ratio(h / l)]);
    rows.push([
      'all steps (p90)',
      ms(percentile(step, 90)),
      ms(percentile(api, 90)),
      ms(percentile(cli, 90)),
      ratio(percentile(step, 90) / percentile(api, 90)),
      ratio(percentile(step, 90) / percentile(cli, 90)),
    ]);
    const worst = Math.max(h / a, h / l);
    return {
      id: 'step_overhead',
      title: '1. Per agent step: harness step vs raw docker exec of the same command',
      measures: `Median ms per step over ${ROUNDS - 1} rounds of ${COMMANDS.length} commands (first round is warm-up). harness: LlmAgent step without model latency (bus read, run.db accounting, bash tool via DockerSandbox.exec, through the exec channel). raw API: dockerode exec create/start/inspect. raw CLI: \`docker exec\`.`,
      columns: ['command', 'harness ms', 'raw API ms', 'raw CLI ms', 'vs API', 'vs CLI'],
      rows,
      target: { text: `median harness step <= ${TARGET}x the raw exec (the stricter of API and CLI)`, value: worst, met: worst <= TARGET },
      notes: [
        `The harness runs the command through its container's exec channel (no exec of its own; table 1b compares the two paths), wrapped in \`timeout -s KILL <s>\` in a process group of its own, and keeps head and tail of the output.`,
        `Steps ran while ${loadavg()[0].toFixed(2)} was the 1-minute load average of this 2-core machine (other work shares it).`,
      ],
    };
  } finally {
    await sandbox.remove();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
