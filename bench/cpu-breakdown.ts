// 4b. Where the CPU of an end-to-end run goes: table 4's concurrency-16 level (exec channel), with
// every process group in a cpuacct group of its own (cgroup-accounting.ts): the test and agent
// containers (by role, COOP_BENCH_CGROUP_PARENT), the engine (dockerd and containerd moved in for the
// run, with the shims and runc they start), the coop-bench CLI with its git children, the fake
// model (a process of its own) and this process (which samples the engine in /proc once a second
// for table 4's own figure). Against the budget: the CPU per pair that 90% of the model-latency
// bound leaves on this machine's cores, and the ceiling the part no harness can avoid allows.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { once } from 'node:events';
import { LEVELS, MODEL_LATENCY_MS, STEPS, runLevel } from './end-to-end.ts';
import { machineCpu } from './cpu.ts';
import { ACCOUNTING, EngineInGroup, accountingUnavailable, enginePids, groupSeconds, inGroup, processSeconds, removeAccounting } from './cgroup-accounting.ts';
import type { BenchFixture } from './fixture.ts';
import type { BenchTable } from './table.ts';

const TARGET = 0.9;
const SAMPLE_MS = 1000;
const LEVEL = LEVELS.find((l) => l.concurrency === 16 && l.execChannel)!;
const GROUPS = ['test', 'agent', 'extract', 'engine', 'harness', 'model'] as const;
const TITLE = `4b. CPU per pair of an end-to-end run at concurrency ${LEVEL.concurrency}, by process group`;

const selfSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

function counters() {
  const { dockerd, containerd } = enginePids();
  return {
    groups: Object.fromEntries(GROUPS.map((g) => [g, groupSeconds(g)])) as Record<(typeof GROUPS)[number], number>,
    dockerd: processSeconds(dockerd),
    containerd: processSeconds(containerd),
    bench: selfSeconds(),
    machine: machineCpu().busy,
  };
}

/** The fake model server in its own process and accounting group; its URL, and how to stop it. */
async function startModel(poolDir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const [command, args] = inGroup('model', [process.execPath, ...process.execArgv, join(import.meta.dirname, 'fake-model-process.ts'), poolDir]);
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const [url] = (await Promise.race([once(createInterface({ input: child.stdout }), 'line'), once(child, 'exit')])) as [string];
  if (typeof url !== 'string') throw new Error('the fake model process exited before it served');
  return {
    url,
    stop: async () => {
      child.stdin.end();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

export async function cpuBreakdown(fixture: BenchFixture): Promise<BenchTable> {
  const unavailable = accountingUnavailable();
  if (unavailable) return { id: 'cpu_breakdown', title: TITLE, measures: 'not measured', columns: ['group'], rows: [], notes: [unavailable] };
  const runsDir = mkdtempSync(join(tmpdir(), 'coop-bench-bench-breakdown-'));
  const model = await startModel(fixture.pool.dir);
  const engine = new EngineInGroup('engine', enginePids());
  try {
    // Other users of the engine and the machine, just before.
    const idle = counters();
    await sleep(3000);
    const background = counters();
    const loadBefore = loadavg()[0];
    const result = await runLevel(fixture, model.url, runsDir, LEVEL, {
      command: (argv) => inGroup('harness', argv),
      env: { COOP_BENCH_CGROUP_PARENT: `/${ACCOUNTING}` },
      engineSampleMs: SAMPLE_MS,
    });
    const after = counters();
    const loadAfter = loadavg()[0];
    const n = result.tasks;
    const spent = (key: (typeof GROUPS)[number]) => after.groups[key] - background.groups[key];
    const engineS = spent('engine');
    const dockerd = after.dockerd - background.dockerd;
    const containerd = after.containerd - background.containerd;
    const bench = after.bench - background.bench;
    const measured = GROUPS.reduce((sum, g) => sum + spent(g), 0) + bench;
    const machine = after.machine - background.machine;
    const irreducible = spent('test') + spent('agent') + spent('extract') + engineS;
    const cores = cpus().length;
    const idealS = Math.ceil(n / LEVEL.concurrency) * ((STEPS * MODEL_LATENCY_MS) / 1000);
    const budget = (cores * idealS) / TARGET / n;
    const ceiling = Math.min(1, (cores * idealS) / irreducible);
    const coresFor = (perPair: number) => (perPair * n * TARGET) / idealS;
    const perPair = (s: number) => (s / n).toFixed(2);
    const share = (s: number) => `${((s / measured) * 100).toFixed(0)}%`;
    const row = (what: string, s: number) => [what, s.toFixed(1), perPair(s), share(s)];
    const engineBackgroundPerS = (background.groups.engine - idle.groups.engine) / 3;
    const machineBackgroundCores = (background.machine - idle.machine) / 3;
    return {
      id: 'cpu_breakdown',
      title: TITLE,
      measures: `${n} Coop pairs (${LEVEL.pairs} pairs x ${LEVEL.teams} teams) of table 4 through \`coop-bench run\`, exec channel on. CPU seconds from cgroup v1 cpuacct counters read before and after the run (containers by role under /${ACCOUNTING}; dockerd and containerd moved into a group for the run and back after, so the shims and runc they start count there); dockerd and containerd alone from /proc. The engine group also counts its work for other users of the engine (an upper bound). share: of all groups measured.`,
      columns: ['process group', 'CPU s', 'CPU s per pair', 'share'],
      rows: [
        row('test containers (the suites)', spent('test')),
        row('agent containers (commands, channel servers)', spent('agent')),
        ...(spent('extract') > 0 ? [row('base repository extraction container', spent('extract'))] : []),
        row('engine: dockerd, containerd, shims, runc', engineS),
        row('  of which dockerd', dockerd),
        row('  of which containerd', containerd),
        row('  of which shims and runc', engineS - dockerd - containerd),
        row('harness: coop-bench run and its git children', spent('harness')),
        row('fake model server (its own process)', spent('model')),
        row(`bench process (/proc engine sample every ${SAMPLE_MS / 1000} s, counters)`, bench),
        row('all measured groups', measured),
        ['whole machine busy (other users included)', machine.toFixed(1), perPair(machine), share(machine)],
      ],
      target: {
        text: `the run at ${(TARGET * 100).toFixed(0)}% of the model-latency bound (table 4's target) fits the CPU of ${cores} cores: measured CPU per pair <= ${budget.toFixed(2)} s`,
        value: measured / n,
        met: measured / n <= budget,
      },
      notes: [
        `Load average ${loadBefore.toFixed(1)} before the run, ${loadAfter.toFixed(1)} after; in the 3 s before: the machine ${machineBackgroundCores.toFixed(2)} busy cores, the engine ${(engineBackgroundPerS * 1000).toFixed(0)} ms/s (other users).`,
        `This run: ${n} pairs in a ${result.windowS.toFixed(1)} s window, ${((idealS / result.windowS) * 100).toFixed(0)}% of the ideal (${idealS} s); ${result.done}/${n} done.`,
        `Budget: at ${(TARGET * 100).toFixed(0)}% of the ideal, ${n} pairs take ${(idealS / TARGET).toFixed(1)} s, in which ${cores} cores give ${budget.toFixed(2)} CPU s per pair; measured ${(measured / n).toFixed(2)}: ${(TARGET * 100).toFixed(0)}% needs ${coresFor(measured / n).toFixed(1)} cores.`,
        `Ceiling: tests, agent containers and the engine (${(irreducible / n).toFixed(2)} CPU s per pair) are there whatever the harness costs; on ${cores} cores they allow at most ${(ceiling * 100).toFixed(0)}% of the ideal with a harness that cost nothing; ${(TARGET * 100).toFixed(0)}% needs ${coresFor(irreducible / n).toFixed(1)} cores for them alone.`,
      ],
    };
  } finally {
    engine.restore();
    await model.stop();
    const left = removeAccounting();
    rmSync(runsDir, { recursive: true, force: true });
    if (left.length) console.error(`cpu breakdown: groups still in use, left in place: ${left.join(', ')}`);
  }
}
