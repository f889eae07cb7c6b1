// 5b. The engine's CPU per phase of an agent container's life, as a Coop pair of table 4 lives it:
// created, started, its first command (which opens the exec channel: one `docker exec`), each
// command after (through the channel), removed by force while it runs. The local engine's dockerd
// and containerd sit in an accounting group for the measurement (cgroup-accounting.ts), so the
// shims and runc they start count too; one container at a time, each phase alone.
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { createContainer, DockerSandbox } from '../harness/sandbox/docker/sandbox.ts';
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

export async function lifecycleCost(fixture: BenchFixture): Promise<BenchTable> {
  const unavailable = accountingUnavailable();
  if (unavailable) return { id: 'lifecycle_cost', title: TITLE, measures: 'not measured', columns: ['phase'], rows: [], notes: [unavailable] };
  const { engine } = fixture.image;
  const spec = { image: fixture.image.id, labels: containerLabels(BENCH_RUN, 'agent'), limits: DEFAULT_LIMITS };
  const command = ['bash', '-c', 'cat src/parser.js'];
  const options = { cwd: WORKSPACE, timeoutMs: 120_000, maxOutputBytes: 256 * 1024 };
  const samples = new Map<string, { engine: number; harness: number }[]>(PHASES.map((p) => [p, []]));
  const record = (phase: (typeof PHASES)[number], c: { engine: number; harness: number }) => samples.get(phase)!.push(c);
  const group = new EngineInGroup('engine', enginePids());
  const loadBefore = loadavg()[0];
  let backgroundMsPerS: number;
  try {
    const idle = groupSeconds('engine');
    await sleep(2000);
    backgroundMsPerS = ((groupSeconds('engine') - idle) * 1000) / 2;
    for (let i = 0; i < CONTAINERS; i++) {
      const created = await cost(() => createContainer(engine, spec));
      record('create', created);
      const sandbox = new DockerSandbox(created.value);
      try {
        record('start', await cost(() => created.value.start()));
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
  } finally {
    group.restore();
    removeAccounting();
  }
  const medianOf = (phase: string, key: 'engine' | 'harness') => median(samples.get(phase)!.map((s) => s[key])) * 1000;
  const leastOf = (phase: string) => Math.min(...samples.get(phase)!.map((s) => s.engine)) * 1000;
  // A Coop agent of table 4: one container, its first command, then the rest of its steps and the snapshot and diff.
  const perContainer = PHASES.reduce((sum, p) => sum + medianOf(p, 'engine') * (p === 'command through the channel' ? STEPS + 1 : 1), 0);
  return {
    id: 'lifecycle_cost',
    title: TITLE,
    measures: `${CONTAINERS} agent containers of the bench image on the local engine, one after another, each phase alone: engine CPU (dockerd, containerd, the shims and runc they start, from a cpuacct group the daemons are moved into for the measurement, and back after) and this process's CPU (the API client). A command: \`${command.join(' ')}\` in the repository, as the bash tool runs it.`,
    columns: ['phase', 'engine ms (median)', 'engine ms (least)', 'harness ms (median)'],
    rows: PHASES.map((p) => [p, medianOf(p, 'engine').toFixed(1), leastOf(p).toFixed(1), medianOf(p, 'harness').toFixed(1)]),
    notes: [
      `Load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after; the engine spent ${backgroundMsPerS.toFixed(0)} ms/s in the 2 s before (other users of the engine count in every phase: the least is the cleaner figure).`,
      `An agent of table 4 (create, start, first command, ${STEPS + 1} commands through the channel, forced removal): ${(perContainer / 1000).toFixed(2)} engine CPU s per container (medians), ${((2 * perContainer) / 1000).toFixed(2)} per Coop pair.`,
    ],
  };
}
