// (4) End to end: `coop-bench run` (the real CLI, a separate process) on the shipped argkit pool in
// the Coop setting with messaging, every agent an OpenAI-compatible fake model that answers each call
// after a fixed 1 s and makes exactly 20 calls (15 reading steps, plan message, write, apply, status
// message, finish: every action through the real tools, containers and bus). Pairs per hour at
// concurrency 1, 4 and 16 against the ideal bound set by the model latency alone: with N pairs and
// concurrency c no schedule can finish before ceil(N / c) x 20 s.
import { execFile } from 'node:child_process';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { combinations } from '../tasks/plan.ts';
import { startFakeOpenAI, type ModelLimits } from '../tests/fakes/openai-server.ts';
import { scriptedAgents } from '../tests/helpers/scripted-agents.ts';
import { CLI } from '../tests/helpers/cli.ts';
import { busyCores, finishedChildrenCpu, machineCpu } from './cpu.ts';
import { EngineCpuWindow } from './engine-processes.ts';
import type { BenchFixture } from './fixture.ts';
import { type BenchTable } from './table.ts';

export const MODEL_LATENCY_MS = 1000;
export const STEPS = 20;
/** The fake models the benchmarks' teams run on (fake-a, fake-b, ...): the fake refuses a model it does not know, as the service does. */
export const FAKE_MODELS: Record<string, ModelLimits> = Object.fromEntries(
  ['a', 'b', 'c'].map((team) => [`fake-${team}`, { inputLimit: 128_000, maxOutput: 16_384 }]),
);
const TARGET = 0.9;
/**
 * Concurrency, and how many pairs (each under how many teams) are run at it: at least two waves
 * above 1. Concurrency 16 runs again with a `docker exec` per command (the exec channel off), to
 * compare in the same run. COOP_BENCH_E2E_LEVELS chooses some of them by name (levelName).
 */
export const LEVELS = [
  { concurrency: 1, pairs: 3, teams: 1, execChannel: true },
  { concurrency: 4, pairs: 8, teams: 1, execChannel: true },
  { concurrency: 16, pairs: 15, teams: 3, execChannel: true },
  { concurrency: 16, pairs: 15, teams: 3, execChannel: false },
];

const run = promisify(execFile);

export type Level = (typeof LEVELS)[number];

/** "16", or "16-docker-exec" for the level without the exec channel; also the run's name. */
export const levelName = (level: Level): string => `${level.concurrency}${level.execChannel ? '' : '-docker-exec'}`;

/** The levels COOP_BENCH_E2E_LEVELS names (e.g. `16` for a short run, `16,16-docker-exec`), in table order; unset: all. */
export function selectedLevels(env: NodeJS.ProcessEnv = process.env): Level[] {
  const names = (env.COOP_BENCH_E2E_LEVELS ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) return LEVELS;
  const known = LEVELS.map(levelName);
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length) throw new Error(`COOP_BENCH_E2E_LEVELS: unknown level ${unknown.join(', ')}; it takes a list of: ${known.join(', ')}`);
  return LEVELS.filter((level) => names.includes(levelName(level)));
}

/** How the breakdown (cpu-breakdown.ts) runs a level: the CLI in an accounting group, containers grouped by role. */
export interface LevelOptions {
  /** The command that runs the CLI's argv (default: the argv itself). */
  command?: (argv: string[]) => [string, string[]];
  env?: Record<string, string>;
  /** How often the engine's processes are sampled in /proc. */
  engineSampleMs?: number;
}

export interface LevelResult {
  concurrency: number;
  execChannel: boolean;
  tasks: number;
  done: number;
  passed: number;
  wallS: number;
  windowS: number;
  meanTaskS: number;
  callsPerAgent: number;
  meanTestS: number;
  busyCores: number;
  backgroundCores: number;
  harnessCpuPerPair: number;
  /** Engine CPU (dockerd, containerd, the shims' own, from /proc) per agent step, and per second in the 3 s before. */
  engineMsPerStep: number;
  /** CPU seconds a pair needed in this run: its containers (the run's own accounting, run.db), the harness and the engine's processes. */
  cpuPerPair: number;
  backgroundEngineMsPerS: number;
}

export async function runLevel(fixture: BenchFixture, url: string, runsDir: string, level: Level, options: LevelOptions = {}): Promise<LevelResult> {
  const { pool } = fixture;
  const pairs = combinations(
    pool.features.map((f) => f.id),
    2,
  ).slice(0, level.pairs);
  const subset = join(runsDir, `subset-c${level.concurrency}.json`);
  writeFileSync(subset, JSON.stringify({ name: `bench-c${level.concurrency}`, tasks: [{ repo: pool.repo, task_id: pool.taskId, pairs }] }));
  const models = Array.from({ length: level.teams }, (_, i) => `openai:fake-${String.fromCharCode(97 + i)}@${url}`);
  const name = `bench-e2e-c${levelName(level)}`;

  // What the machine does without us (other users of this machine), just before.
  const idleBefore = machineCpu();
  // Containers end in these windows: what their shims reap would count their processes' CPU (tests, agents' commands) as the engine's.
  const engineBefore = new EngineCpuWindow(undefined, options.engineSampleMs, false);
  await sleep(3000);
  const backgroundCores = busyCores(idleBefore, machineCpu(), cpus().length);
  const backgroundEngineMsPerS = (engineBefore.stop() * 1000) / 3;

  const cpuBefore = machineCpu();
  const childCpuBefore = finishedChildrenCpu();
  const engine = new EngineCpuWindow(undefined, options.engineSampleMs, false);
  const started = performance.now();
  const argv = [
    CLI,
    'run',
    '--models',
    models.join(','),
    '--context-window',
    '128000',
    '--setting',
    'coop',
    '--pools',
    join(pool.dir, '..', '..'),
    '--pool',
    pool.repo,
    '--subset',
    subset,
    '--max-steps',
    String(STEPS),
    '--concurrency',
    String(level.concurrency),
    '--name',
    name,
    '--runs-dir',
    runsDir,
  ];
  const [command, args] = options.command?.(['node', ...argv]) ?? ['node', argv];
  await run(command, args, {
    env: { ...process.env, ...options.env, OPENAI_API_KEY: 'bench-key', COOP_BENCH_EXEC_CHANNEL: level.execChannel ? 'on' : 'off' },
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`coop-bench run failed at concurrency ${level.concurrency}: ${error.stderr ?? ''}${error.stdout ?? ''}`);
  });
  const wallS = (performance.now() - started) / 1000;
  const engineS = engine.stop();
  const harnessCpu = finishedChildrenCpu() - childCpuBefore;
  const busy = busyCores(cpuBefore, machineCpu(), cpus().length);

  const db = new Database(join(runsDir, name, 'run.db'), { readonly: true });
  try {
    const tasks = db.prepare('SELECT status, both_passed, started_at, finished_at FROM tasks').all() as {
      status: string;
      both_passed: number | null;
      started_at: string;
      finished_at: string;
    }[];
    const times = tasks.map((t) => [Date.parse(t.started_at), Date.parse(t.finished_at)] as const);
    const windowS = (Math.max(...times.map((t) => t[1])) - Math.min(...times.map((t) => t[0]))) / 1000;
    const { calls, agents } = db.prepare('SELECT COUNT(*) AS calls, COUNT(DISTINCT task || agent) AS agents FROM model_calls').get() as {
      calls: number;
      agents: number;
    };
    // The run's own accounting of its containers' CPU (summed over the command; a lower bound: see container-cpu.ts).
    const containers = db.prepare('SELECT SUM(agent_s) + SUM(test_s) AS s FROM cpu_usage').get() as { s: number | null };
    const { meanTest } = db.prepare('SELECT AVG(duration_ms) AS meanTest FROM evaluations WHERE exit_code IS NOT NULL').get() as { meanTest: number | null };
    return {
      concurrency: level.concurrency,
      execChannel: level.execChannel,
      tasks: tasks.length,
      done: tasks.filter((t) => t.status === 'done').length,
      passed: tasks.filter((t) => t.both_passed === 1).length,
      wallS,
      windowS,
      meanTaskS: times.reduce((sum, [a, b]) => sum + (b - a), 0) / times.length / 1000,
      callsPerAgent: calls / agents,
      meanTestS: (meanTest ?? 0) / 1000,
      busyCores: busy,
      backgroundCores,
      harnessCpuPerPair: harnessCpu / tasks.length,
      engineMsPerStep: (engineS * 1000) / calls,
      cpuPerPair: ((containers.s ?? 0) + harnessCpu + engineS) / tasks.length,
      backgroundEngineMsPerS,
    };
  } finally {
    db.close();
  }
}

export async function endToEnd(fixture: BenchFixture): Promise<BenchTable> {
  const levels = selectedLevels();
  const runsDir = mkdtempSync(join(tmpdir(), 'coop-bench-bench-e2e-'));
  const server = await startFakeOpenAI({
    limits: FAKE_MODELS,
    handler: scriptedAgents(fixture.pool, 'openai', undefined, { steps: STEPS, delayMs: MODEL_LATENCY_MS }),
  });
  try {
    const results: LevelResult[] = [];
    for (const level of levels) results.push(await runLevel(fixture, server.url, runsDir, level));
    return endToEndTable(results, fixture.pool.repo, cpus().length);
  } finally {
    await server.close();
    rmSync(runsDir, { recursive: true, force: true });
  }
}

/** Table 4 from its levels' results on a machine of `cores` cores. */
export function endToEndTable(results: LevelResult[], repo: string, cores: number): BenchTable {
  const idealPairSeconds = (STEPS * MODEL_LATENCY_MS) / 1000;
  /** The shortest window this machine allows: the model latency's bound, or the CPU the pairs need over the cores, whichever is longer. */
  const achievableSeconds = (r: LevelResult) => Math.max(Math.ceil(r.tasks / r.concurrency) * idealPairSeconds, (r.tasks * boundCpuPerPair(r)) / cores);
  const rows = results.map((r) => {
    const idealS = Math.ceil(r.tasks / r.concurrency) * idealPairSeconds;
    const achievableS = achievableSeconds(r);
    const perHour = (seconds: number) => ((r.tasks / seconds) * 3600).toFixed(0);
    return [
      r.concurrency,
      r.execChannel ? 'channel' : 'docker exec',
      `${r.done}/${r.tasks}`,
      r.callsPerAgent.toFixed(1),
      r.meanTaskS.toFixed(1),
      r.meanTestS.toFixed(2),
      r.windowS.toFixed(1),
      r.wallS.toFixed(1),
      perHour(r.windowS),
      perHour(idealS),
      perHour((r.tasks * boundCpuPerPair(r)) / cores),
      perHour(achievableS),
      `${((idealS / r.windowS) * 100).toFixed(0)}%`,
      `${((achievableS / r.windowS) * 100).toFixed(0)}%`,
      `${((idealS / r.wallS) * 100).toFixed(0)}%`,
      `${r.busyCores.toFixed(2)} (${r.backgroundCores.toFixed(2)})`,
      r.harnessCpuPerPair.toFixed(2),
      `${r.engineMsPerStep.toFixed(0)} (${r.backgroundEngineMsPerS.toFixed(0)}/s)`,
      r.cpuPerPair.toFixed(2),
      machineCpuPerPair(r).toFixed(2),
    ];
  });
  const top = results.find((r) => r.concurrency === 16 && r.execChannel);
  const ofIdeal = (r: LevelResult) => (Math.ceil(r.tasks / r.concurrency) * idealPairSeconds) / r.windowS;
  const ofAchievable = (r: LevelResult) => achievableSeconds(r) / r.windowS;
  const withoutChannel = results.find((r) => r.concurrency === 16 && !r.execChannel);
  return {
    id: 'end_to_end',
    title: `4. End to end: pairs per hour, fake model (${MODEL_LATENCY_MS / 1000} s per call, ${STEPS} calls per agent), ${repo} Coop`,
    measures: `N pairs at concurrency c through \`coop-bench run\` (a separate process). ideal (latency bound): N / (ceil(N/c) x ${idealPairSeconds} s), the model latency alone. window: first task start to last task end (run.db); wall: the whole command, start-up included. busy cores: machine-wide average during the run (in brackets: the 3 s before it, other users of this machine). harness CPU: CPU seconds of the coop-bench process and its git children per pair. exec: agents' commands through the exec channel (the default) or a \`docker exec\` each (COOP_BENCH_EXEC_CHANNEL=off). engine CPU: dockerd, containerd and the shims' own CPU from /proc (not what the shims reap: runc, and the containers' processes, so a lower bound without runc's part of a docker exec; table 4b counts runc), per model call (one agent step) of the run; in brackets: ms per second in the 3 s before (other users of the engine). CPU s/pair: what a pair needed in this run, counted by process: its agent and test containers (the run's own accounting in run.db), the harness and the engine's processes. machine CPU s/pair: the machine's busy cores over the command, less those busy before it, per pair: start-up, runc and the kernel's work (zeroing and faulting in memory, slow on some virtual machines) included, which the counted figure misses. CPU bound: cores / the larger of the two per pair. achievable: the smaller of the ideal (model latency) and the CPU bound; of achievable: the run's pairs per hour against it.`,
    columns: [
      'c',
      'exec',
      'done/N',
      'calls/agent',
      'pair s',
      'test s',
      'window s',
      'wall s',
      'pairs/h',
      'latency bound/h',
      'CPU bound/h',
      'achievable/h',
      'of ideal',
      'of achievable',
      'of ideal (wall)',
      'busy cores (before)',
      'harness CPU s/pair',
      'engine CPU ms/step (before)',
      'CPU s/pair',
      'machine CPU s/pair',
    ],
    rows,
    // The target is held at concurrency 16 with the channel: not judged when COOP_BENCH_E2E_LEVELS left it out.
    ...(top && {
      target: {
        text: `pairs per hour >= ${TARGET * 100}% of the achievable bound at concurrency 16 (task window)`,
        value: ofAchievable(top),
        met: ofAchievable(top) >= TARGET,
      },
    }),
    notes: [
      ...(top
        ? [
            `At concurrency 16 a pair needed ${boundCpuPerPair(top).toFixed(2)} CPU s (${top.cpuPerPair.toFixed(2)} counted by process): ${cores} cores allow ${((cores * 3600) / boundCpuPerPair(top)).toFixed(0)} pairs/h, the model latency ${((top.tasks * 3600) / (Math.ceil(top.tasks / top.concurrency) * idealPairSeconds)).toFixed(0)}; the run reached ${(ofAchievable(top) * 100).toFixed(0)}% of the smaller. Engine CPU counts every user of the engine: on a shared machine the CPU bound is low.`,
          ]
        : []),
      ...(top && withoutChannel
        ? [
            `At concurrency 16: ${(ofIdeal(top) * 100).toFixed(0)}% of the ideal with the exec channel, ${(ofIdeal(withoutChannel) * 100).toFixed(0)}% with a docker exec per command; engine CPU ${top.engineMsPerStep.toFixed(0)} vs ${withoutChannel.engineMsPerStep.toFixed(0)} ms per step.`,
          ]
        : []),
      `${cores} cores; pairs pass or fail as their gold patches merge (argkit unions mostly fail the tests): the tests run either way, only time is measured here.`,
    ],
  };
}

/** What a pair cost the whole machine: its busy cores over the command, less what was busy before it. */
export function machineCpuPerPair(r: LevelResult): number {
  return (Math.max(0, r.busyCores - r.backgroundCores) * r.wallS) / r.tasks;
}

/**
 * The CPU a pair needs, for the CPU bound: counting by process misses runc and the kernel's own work,
 * so where the machine was busier than the processes counted, the machine's figure.
 */
function boundCpuPerPair(r: LevelResult): number {
  return Math.max(r.cpuPerPair, machineCpuPerPair(r));
}
