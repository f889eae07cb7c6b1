// (1b) The bash tool's command through the exec channel against a `docker exec` of its own, in the
// same container, interleaved: wall time per command, and the CPU each costs the Docker engine
// (dockerd, containerd, the shim and its runc, from /proc) and the container's own processes (its
// cpuacct cgroup: the channel's subshells and base64 encoders, runc's init for a docker exec).
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { DockerSandbox } from '../harness/sandbox/docker/sandbox.ts';
import { containerLabels } from '../harness/sandbox/labels.ts';
import { DEFAULT_LIMITS } from '../harness/sandbox/types.ts';
import { WORKSPACE } from '../tasks/prompts.ts';
import { EngineCpuWindow, engineVisible } from './engine-processes.ts';
import { COMMANDS } from './step-overhead.ts';
import { BENCH_RUN, type BenchFixture } from './fixture.ts';
import { median, ms, ratio, type BenchTable } from './table.ts';

const ROUNDS = 10;

const containerCpuSeconds = (id: string): number | undefined => {
  const file = `/sys/fs/cgroup/cpuacct/docker/${id}/cpuacct.usage`;
  return existsSync(file) ? Number(readFileSync(file, 'utf8')) / 1e9 : undefined;
};

interface PathCost {
  wallMs: number[];
  engineS: number;
  shimS: number;
  containerS: number | undefined;
  execs: number;
}

/** One round of every command through `sandbox`, as the bash tool runs it. */
async function round(sandbox: DockerSandbox, cost: PathCost): Promise<void> {
  const engine = new EngineCpuWindow();
  const shim = new EngineCpuWindow(sandbox.id);
  const container = containerCpuSeconds(sandbox.id);
  for (const command of COMMANDS) {
    const started = performance.now();
    const result = await sandbox.exec(['bash', '-c', command], { cwd: WORKSPACE, timeoutMs: 120_000, maxOutputBytes: 256 * 1024 });
    if (result.exitCode !== 0) throw new Error(`${command} failed in the benchmark: ${result.stderr}`);
    cost.wallMs.push(performance.now() - started);
  }
  cost.engineS += engine.stop();
  cost.shimS += shim.stop();
  const after = containerCpuSeconds(sandbox.id);
  cost.containerS = container === undefined || after === undefined ? undefined : (cost.containerS ?? 0) + after - container;
  cost.execs += COMMANDS.length;
}

export async function execPaths({ image }: BenchFixture): Promise<BenchTable> {
  const channel = await DockerSandbox.start(image.engine, { image: image.id, labels: containerLabels(BENCH_RUN, 'agent'), limits: DEFAULT_LIMITS });
  const direct = new DockerSandbox(channel.container, { execChannel: false });
  try {
    const costs = {
      channel: { wallMs: [], engineS: 0, shimS: 0, containerS: 0, execs: 0 } as PathCost,
      direct: { wallMs: [], engineS: 0, shimS: 0, containerS: 0, execs: 0 } as PathCost,
    };
    // A warm-up round each (the channel opens in it), then rounds in alternating order.
    await round(channel, { wallMs: [], engineS: 0, shimS: 0, containerS: 0, execs: 0 });
    await round(direct, { wallMs: [], engineS: 0, shimS: 0, containerS: 0, execs: 0 });
    for (let r = 0; r < ROUNDS; r++) {
      if (r % 2) await round(channel, costs.channel).then(() => round(direct, costs.direct));
      else await round(direct, costs.direct).then(() => round(channel, costs.channel));
    }
    if (channel.execChannelOff) throw new Error(`the exec channel was not used: ${channel.execChannelOff}`);
    const perExec = (seconds: number | undefined, cost: PathCost) => (seconds === undefined ? 'n/a' : ms((seconds * 1000) / cost.execs));
    const row = (name: string, cost: PathCost) => [
      name,
      ms(median(cost.wallMs)),
      perExec(cost.shimS, cost),
      perExec(cost.engineS - cost.shimS, cost),
      perExec(cost.containerS, cost),
      cost.execs,
    ];
    // /proc counts in 10 ms ticks: a channel that cost the shim less than one tick in all has no ratio.
    const shimRatio =
      costs.channel.shimS > 0
        ? `spends ${ratio(costs.direct.shimS / costs.channel.shimS)} as much CPU on a docker exec as on a command through the channel`
        : `spends ${perExec(costs.direct.shimS, costs.direct)} ms of CPU per docker exec, and less than one 10 ms tick of /proc on all ${costs.channel.execs} commands through the channel`;
    return {
      id: 'exec_paths',
      title: '1b. The bash tool through the exec channel vs a docker exec per command',
      measures: `Per command of table 1, ${ROUNDS} rounds each way in one container, interleaved (a warm-up round each not counted): median wall ms, and CPU ms per command of the Docker engine from /proc (the container's shim with the runc processes it reaps; dockerd and containerd) and of the container's processes (its cpuacct cgroup).`,
      columns: ['path', 'wall ms (median)', 'shim+runc CPU ms/cmd', 'dockerd+containerd CPU ms/cmd', 'container CPU ms/cmd', 'commands'],
      rows: [row('exec channel (default)', costs.channel), row('docker exec per command (COOP_BENCH_EXEC_CHANNEL=off)', costs.direct)],
      notes: [
        `The container's shim (with the runc it reaps) ${shimRatio}; that column is the container's own.`,
        engineVisible()
          ? 'dockerd+containerd are shared: that column includes whatever else used the engine meanwhile (any other user of this machine), an upper bound for both paths.'
          : 'The engine processes are not visible from here (engine columns are 0).',
        `Load average ${loadavg()[0].toFixed(2)} on this 2-core machine when done.`,
      ],
    };
  } finally {
    await channel.remove();
  }
}
