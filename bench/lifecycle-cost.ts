// 5b. The engine's CPU per phase of an agent container's life, as a Coop pair of table 4 lives it:
// created, started, its first command (which opens the exec channel), each command after (through
// the channel), removed by force while it runs; with the channel's first server as the container's
// main process and, for comparison, opened by a `docker exec` (as agent containers did before). The
// local engine's dockerd and containerd sit in an accounting group for the measurement
// (cgroup-accounting.ts), so the shims and runc they start count too; one container at a time.
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { createContainer, DockerSandbox, type ContainerSpec } from '../harness/sandbox/docker/sandbox.ts';
import type { Engine } from '../harness/sandbox/docker/engine.ts';
import { containerLabels } from '../harness/sandbox/labels.ts';
import { DEFAULT_LIMITS } from '../harness/sandbox/types.ts';
import { WORKSPACE } from '../tasks/prompts.ts';
import { EngineInGroup, accountingUnavailable, enginePids, groupSeconds, removeAccounting } from './cgroup-accounting.ts';
import { STEPS } from './end-to-end.ts';
import { BENCH_RUN, type BenchFixture } from './fixture.ts';
import { median, type BenchTable } from './table.ts';

const CONTAINERS = 10;
/** Commands through the channel per container after the first (the first opens it). */
const COMMANDS = 10;
const TITLE = '5b. Engine CPU per phase of an agent container';
const PHASES = ['create', 'start', 'first command (opens the channel)', 'command through the channel', 'forced removal'] as const;

const selfSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/** Engine and harness CPU seconds of `operation`, divided by `times` (the operations it stands for). */
async function cost<T>(operation: () => Promise<T>, times = 1): Promise<{ value: T; engine: number; harness: number }> {
  const engine = groupSeconds('engine');
  const harness = selfSeconds();
  const value = await operation();
  return { value, engine: (groupSeconds('engine') - engine) / times, harness: (selfSeconds() - harness) / times };
}

/** How the channel's first server starts: as the container's main process (the default), or by a `docker exec` (as before). */
const VARIANTS: { name: string; entrypoint?: string[] }[] = [
  { name: 'server as main process' },
  { name: 'server by docker exec', entrypoint: ['tail', '-f', '/dev/null'] },
];

type Samples = Map<string, { engine: number; harness: number }[]>;

/** One container's phases, each alone, into `samples`. */
async function lifecycle(engine: Engine, spec: ContainerSpec, samples: Samples): Promise<void> {
  const record = (phase: (typeof PHASES)[number], c: { engine: number; harness: number }) => samples.get(phase)!.push(c);
  const command = ['bash', '-c', 'cat src/parser.js'];
  const options = { cwd: WORKSPACE, timeoutMs: 120_000, maxOutputBytes: 256 * 1024 };
  const created = DockerSandbox.containerSpec(spec);
  const container = await cost(() => createContainer(engine, created));
  record('create', container);
  const started = await cost(() => DockerSandbox.startCreated(container.value, created));
  record('start', started);
  const sandbox = started.value;
  try {
    record('first command (opens the channel)', await cost(() => sandbox.exec(command, options)));
    if (sandbox.execChannelOff) throw new Error(`the exec channel is off: ${sandbox.execChannelOff}`);
    record(
      'command through the channel',
      await cost(async () => {
        for (let c = 0; c < COMMANDS; c++) await sandbox.exec(command, options);
      }, COMMANDS),
    );
  } finally {
    record('forced removal', await cost(() => sandbox.remove()));
  }
}

export async function lifecycleCost(fixture: BenchFixture): Promise<BenchTable> {
  const unavailable = accountingUnavailable();
  if (unavailable) return { id: 'lifecycle_cost', title: TITLE, measures: 'not measured', columns: ['phase'], rows: [], notes: [unavailable] };
  const samples = VARIANTS.map((): Samples => new Map(PHASES.map((p) => [p, []])));
  const group = new EngineInGroup('engine', enginePids());
  const loadBefore = loadavg()[0];
  let backgroundMsPerS: number;
  try {
    const idle = groupSeconds('engine');
    await sleep(2000);
    backgroundMsPerS = ((groupSeconds('engine') - idle) * 1000) / 2;
    // Interleaved, each variant first in turn, so that the machine's load weighs on both alike.
    for (let i = 0; i < CONTAINERS; i++)
      for (let v = 0; v < VARIANTS.length; v++) {
        const at = (i + v) % VARIANTS.length;
        const spec = { image: fixture.image.id, labels: containerLabels(BENCH_RUN, 'agent'), limits: DEFAULT_LIMITS, entrypoint: VARIANTS[at]!.entrypoint };
        await lifecycle(fixture.image.engine, spec, samples[at]!);
      }
  } finally {
    group.restore();
    removeAccounting();
  }
  const medianOf = (s: Samples, phase: string, key: 'engine' | 'harness') => median(s.get(phase)!.map((x) => x[key])) * 1000;
  const leastOf = (s: Samples, phase: string) => Math.min(...s.get(phase)!.map((x) => x.engine)) * 1000;
  // A Coop agent of table 4: one container, its first command, then the rest of its steps and the snapshot and diff.
  const perContainer = (s: Samples, of: (s: Samples, phase: string) => number) =>
    PHASES.reduce((sum, p) => sum + of(s, p) * (p === 'command through the channel' ? STEPS + 1 : 1), 0) / 1000;
  return {
    id: 'lifecycle_cost',
    title: TITLE,
    measures: `${CONTAINERS} agent containers of the bench image per variant on the local engine, the variants interleaved, each phase alone: engine CPU ms (dockerd, containerd, the shims and runc they start, from a cpuacct group the daemons are moved into for the measurement, and back after) and this process's (the API client's). A command: \`bash -c 'cat src/parser.js'\` in the repository, as the bash tool runs it. Variants: the channel's first server as the container's main process on its stdin (the default), or opened by a \`docker exec\` by the first command (as before).`,
    columns: ['phase', ...VARIANTS.flatMap((v) => [`${v.name}: engine ms (median)`, 'engine ms (least)', 'harness ms (median)'])],
    rows: PHASES.map((p) => [
      p,
      ...samples.flatMap((s) => [medianOf(s, p, 'engine').toFixed(1), leastOf(s, p).toFixed(1), medianOf(s, p, 'harness').toFixed(1)]),
    ]),
    notes: [
      `Load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after; the engine spent ${backgroundMsPerS.toFixed(0)} ms/s in the 2 s before (other users of the engine count in every phase: the least is the cleaner figure).`,
      ...VARIANTS.map(
        (v, i) =>
          `${v.name}: an agent of table 4 (create, start, first command, ${STEPS + 1} commands through the channel, forced removal) costs the engine ${perContainer(samples[i]!, (s, p) => medianOf(s, p, 'engine')).toFixed(2)} CPU s (medians; least ${perContainer(samples[i]!, leastOf).toFixed(2)}), a Coop pair twice that.`,
      ),
    ],
  };
}
