// 5. What bounds end-to-end throughput: the CPU each raw operation of a pair costs, measured on the
// second engine of scripts/second-engine.sh, whose daemon (dockerd, containerd, shims, runc) and
// containers sit in cpuacct cgroups of their own, so that nothing else on the machine is counted.
// "engine": the daemon's group; "containers": the containers' processes (runc's init inside them
// included); "harness": this process (dockerode, stream handling). Needs root and cgroup v1.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { engineAt, progressEnd, requireEngine, type Engine } from '../harness/sandbox/docker/engine.ts';
import { poolImage, type PoolImage } from '../harness/sandbox/docker/images.ts';
import { DockerSandbox } from '../harness/sandbox/docker/sandbox.ts';
import { DEFAULT_LIMITS } from '../harness/sandbox/types.ts';
import { containerLabels } from '../harness/sandbox/labels.ts';
import { runFeatureTests } from '../harness/evaluation/run-tests.ts';
import { createDockerBackend } from '../harness/sandbox/docker/backend.ts';
import { PROJECT_ROOT } from '../harness/paths.ts';
import { WORKSPACE } from '../tasks/prompts.ts';
import { MODEL_LATENCY_MS, STEPS } from './end-to-end.ts';
import { BENCH_RUN, type BenchFixture } from './fixture.ts';
import type { BenchTable } from './table.ts';

const run = promisify(execFile);
const SCRIPT = join(PROJECT_ROOT, 'scripts', 'second-engine.sh');
const NAME = 'coop-bench-docker2';
const ACCT = '/sys/fs/cgroup/cpuacct';
const CONCURRENCY = 16;

const cgroupSeconds = (group: string) => Number(readFileSync(join(ACCT, group, 'cpuacct.usage'), 'utf8')) / 1e9;
const selfSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

interface Cost {
  engine: number;
  containers: number;
  harness: number;
}

/** CPU seconds per repetition of `operation`, after one untimed warm-up. */
async function costOf(times: number, operation: () => Promise<unknown>): Promise<Cost> {
  await operation();
  const before = { engine: cgroupSeconds(NAME), containers: cgroupSeconds(`${NAME}-containers`), harness: selfSeconds() };
  for (let i = 0; i < times; i++) await operation();
  return {
    engine: (cgroupSeconds(NAME) - before.engine) / times,
    containers: (cgroupSeconds(`${NAME}-containers`) - before.containers) / times,
    harness: (selfSeconds() - before.harness) / times,
  };
}

/** The pool's image on the second engine, copied from the first (same id and tag) when its tag is missing (the same id under another tag is not enough: the image is found by tag). */
async function imageOn(engine: Engine, { pool, image }: BenchFixture): Promise<PoolImage> {
  if (
    !(await engine.docker
      .getImage(image.name)
      .inspect()
      .then(
        () => true,
        () => false,
      ))
  ) {
    await progressEnd(engine, await engine.docker.loadImage(await image.engine.docker.getImage(image.name).get()));
  }
  return poolImage(engine, pool, { image: image.name });
}

function unavailable(reason: string): BenchTable {
  return {
    id: 'cpu_costs',
    title: '5. CPU per raw operation of a pair (what bounds table 4)',
    measures: 'not measured',
    columns: ['operation'],
    rows: [],
    notes: [reason],
  };
}

export async function cpuCosts(fixture: BenchFixture): Promise<BenchTable> {
  if (process.getuid?.() !== 0 || !existsSync(ACCT)) return unavailable('needs root and cgroup v1 cpuacct (it starts a second dockerd in cgroups of its own)');
  const wasRunning = await requireEngine(engineAt(`unix:///var/run/${NAME}.sock`)).then(
    () => true,
    () => false,
  );
  const { stdout: host } = await run('bash', [SCRIPT, 'start']);
  try {
    const engine = await requireEngine(engineAt(host.trim()));
    const pid = readFileSync(`/var/run/${NAME}.pid`, 'utf8').trim();
    if (
      !readFileSync(join(ACCT, NAME, 'tasks'), 'utf8')
        .split('\n')
        .includes(pid)
    )
      return unavailable(`the engine at ${host.trim()} was started without cgroup accounting: stop it (bash scripts/second-engine.sh stop) and run again`);
    const image = await imageOn(engine, fixture);
    const spec = { image: image.id, labels: containerLabels(BENCH_RUN, 'agent'), limits: DEFAULT_LIMITS };
    const lifecycle = await costOf(10, async () => (await DockerSandbox.start(engine, spec)).remove());
    const sandbox = await DockerSandbox.start(engine, spec);
    const direct = new DockerSandbox(sandbox.container, { execChannel: false });
    const command = (through: DockerSandbox) => () =>
      through.exec(['bash', '-c', 'cat src/parser.js'], { cwd: WORKSPACE, timeoutMs: 120_000, maxOutputBytes: 256 * 1024 });
    let exec: Cost;
    let channel: Cost;
    try {
      // As the bash tool runs a command: by a docker exec of its own (the raw operation), and through
      // the container's exec channel (the harness's default path), in the same container.
      exec = await costOf(40, command(direct));
      channel = await costOf(40, command(sandbox));
    } finally {
      await sandbox.remove();
    }
    const feature = fixture.pool.features[0]!;
    const gold = readFileSync(feature.patchPath, 'utf8');
    const slot = (await createDockerBackend({ dockerHosts: [engine.host], log: () => undefined })).acquire();
    const test = await costOf(6, () => runFeatureTests(feature, gold, { slot, image, run: BENCH_RUN, limits: DEFAULT_LIMITS, timeoutMs: 300_000 }));

    // A Coop pair of table 4: two agent containers, each agent's steps plus the base snapshot and
    // the final diff as execs, and one test run per feature.
    const perPair = [
      { operation: 'agent container: create, start, remove', count: 2, cost: lifecycle },
      { operation: `docker exec (${STEPS} agent steps + snapshot + diff, per agent)`, count: 2 * (STEPS + 2), cost: exec },
      { operation: `test run: fresh container, runner, ${fixture.pool.repo} suite`, count: 2, cost: test },
    ];
    // The raw operations: what the engine and the containers spend; the harness column is the API client's share.
    const total = (c: Cost) => c.engine + c.containers;
    const ms = (s: number) => (s * 1000).toFixed(1);
    const pairSeconds = perPair.reduce((sum, p) => sum + p.count * total(p.cost), 0);
    const commands = perPair[1]!.count;
    const channelPairSeconds = pairSeconds + commands * (total(channel) - total(exec));
    const cores = cpus().length;
    const boundPerHour = (cores / pairSeconds) * 3600;
    const idealPerHour = (CONCURRENCY * 3600) / ((STEPS * MODEL_LATENCY_MS) / 1000);
    const execCores = 2 * CONCURRENCY * (1000 / MODEL_LATENCY_MS) * (exec.engine + exec.containers);
    return {
      id: 'cpu_costs',
      title: '5. CPU per raw operation of a pair (what bounds table 4)',
      measures: `CPU ms per operation on a second engine with its own cgroups (engine: dockerd, containerd, shims, runc; containers: processes in the containers, runc init included; harness: this process), and the CPU seconds one Coop pair of table 4 needs in raw operations alone.`,
      columns: ['operation', 'engine ms', 'containers ms', 'harness ms', 'per pair', 'engine+containers s per pair'],
      rows: [
        ...perPair.map((p) => [p.operation, ms(p.cost.engine), ms(p.cost.containers), ms(p.cost.harness), p.count, (p.count * total(p.cost)).toFixed(2)]),
        ['all raw operations of a pair', '', '', '', '', pairSeconds.toFixed(2)],
        [
          'the same command through the exec channel (not in the sum)',
          ms(channel.engine),
          ms(channel.containers),
          ms(channel.harness),
          commands,
          (commands * total(channel)).toFixed(2),
        ],
      ],
      notes: [
        `A command through the exec channel costs the engine and the container ${ms(total(channel))} ms against ${ms(total(exec))} ms by a docker exec (${(total(exec) / total(channel)).toFixed(1)}x less); with it in place of the docker execs a pair's operations cost ${channelPairSeconds.toFixed(2)} s.`,
        `On ${cores} cores these operations alone (a docker exec per command) allow at most ${boundPerHour.toFixed(0)} pairs per hour, ${((boundPerHour / idealPerHour) * 100).toFixed(0)}% of the ideal ${idealPerHour.toFixed(0)} at concurrency ${CONCURRENCY}, even with a harness that cost nothing and nothing else running.`,
        `At concurrency ${CONCURRENCY}, ${2 * CONCURRENCY} agents each step about once per ${MODEL_LATENCY_MS / 1000} s: their docker execs alone keep ${execCores.toFixed(2)} cores busy (runc exec, whatever the command).`,
      ],
    };
  } finally {
    if (!wasRunning) await run('bash', [SCRIPT, 'stop']);
  }
}
