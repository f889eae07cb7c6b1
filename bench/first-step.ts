// Time to first step: from the start of `coop-bench run` (a separate process) to the first model call
// of its first task, one Coop pair at concurrency 1 on a warm engine (image built, base repository
// extracted, transforms cached by a first run that is not counted), against image preparation alone
// in a process of its own (image-ready.ts). What lies between is what `run` adds before an agent can
// step: loading the CLI, the plan, the live preflight (answered at once by the fake), the store, the
// agent containers' start and the agents' first prompt.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeOpenAI } from '../tests/fakes/openai-server.ts';
import { scriptedAgents } from '../tests/helpers/scripted-agents.ts';
import { CLI } from '../tests/helpers/cli.ts';
import { FAKE_MODELS, MODEL_LATENCY_MS } from './end-to-end.ts';
import { processCpu } from './cpu.ts';
import { currentBundle } from '../bin/bundle.js';
import type { BenchFixture } from './fixture.ts';
import { median, type BenchTable } from './table.ts';

const ROUNDS = 2;
const STEPS = 3;
const TARGET_S = 2;

/**
 * Runs a command to its end (or, with `stopWhen`, until it resolves: then SIGTERM); its wall time in
 * seconds from `started`, and with `stopWhen` the CPU it had spent by then.
 */
async function timed(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  started = performance.now(),
  stopWhen?: Promise<void>,
): Promise<{ seconds: number; cpuS: number }> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit') as Promise<[number | null]>;
  let stopped = false;
  let cpuS = NaN;
  void stopWhen?.then(() => {
    stopped = true;
    cpuS = processCpu(child.pid!);
    child.kill('SIGTERM');
  });
  const [code] = await exited;
  const seconds = (performance.now() - started) / 1000;
  // Stopped by us: coop-bench removes its containers and exits 130.
  if (code !== 0 && !(stopped && code === 130)) throw new Error(`${args.slice(0, 2).join(' ')} exited with ${code}: ${stderr.slice(-2000)}`);
  return { seconds, cpuS };
}

export async function firstStep(fixture: BenchFixture): Promise<BenchTable> {
  const { pool } = fixture;
  const runsDir = mkdtempSync(join(tmpdir(), 'coop-bench-bench-first-step-'));
  let firstCall: number | undefined;
  let called = () => undefined as void;
  const server = await startFakeOpenAI({
    limits: FAKE_MODELS,
    handler: scriptedAgents(
      pool,
      'openai',
      () => {
        firstCall ??= performance.now();
        called();
      },
      { steps: STEPS, delayMs: MODEL_LATENCY_MS },
    ),
  });
  const subset = join(runsDir, 'subset.json');
  writeFileSync(subset, JSON.stringify({ name: 'bench-first-step', tasks: [{ repo: pool.repo, task_id: pool.taskId, pairs: [[1, 2]] }] }));
  const runFor = (name: string, preflight: boolean) => [
    CLI,
    'run',
    ...['--models', `openai:fake-a@${server.url}`, '--context-window', '128000', '--setting', 'coop'],
    ...['--pools', join(pool.dir, '..', '..'), '--pool', pool.repo, '--subset', subset, '--max-steps', String(STEPS)],
    ...['--concurrency', '1', '--name', name, '--runs-dir', runsDir],
    ...(preflight ? [] : ['--no-preflight']),
  ];
  // Each run's moments on the way (harness/timeline.ts), for the default runs' breakdown.
  const timelines: Timeline[] = [];
  /** Seconds from the spawn of `run` to the first model call of its task; `whole`: the run goes on to its end (else it is stopped there). */
  const toFirstCall = async (name: string, preflight: boolean, whole = false) => {
    firstCall = undefined;
    const reached = new Promise<void>((resolve) => (called = resolve));
    const timeline = join(runsDir, `${name}.timeline`);
    const env = { ...process.env, OPENAI_API_KEY: 'bench-key', COOP_BENCH_TIMELINE: timeline };
    const started = performance.now();
    const { cpuS } = await timed('node', runFor(name, preflight), env, started, whole ? undefined : reached);
    if (firstCall === undefined) throw new Error(`run ${name} made no model call`);
    if (preflight && !whole && existsSync(timeline)) timelines.push(readTimeline(readFileSync(timeline, 'utf8')));
    return { s: (firstCall - started) / 1000, cpuS };
  };
  const imageReady = async () =>
    (await timed(process.execPath, [...process.execArgv, join(import.meta.dirname, 'image-ready.ts'), pool.dir], process.env)).seconds;
  try {
    // Not counted: builds what a warm engine has (image, base repository, tsx's transform cache).
    await toFirstCall('warm-up', true, true);
    const image: number[] = [];
    const run: FirstCall[] = [];
    const noPreflight: FirstCall[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      image.push(await imageReady());
      run.push(await toFirstCall(`round-${round}`, true));
      noPreflight.push(await toFirstCall(`round-${round}-no-preflight`, false));
    }
    return firstStepTable(pool.repo, image, run, noPreflight, timelines, currentBundle() !== undefined);
  } finally {
    await server.close();
    rmSync(runsDir, { recursive: true, force: true });
  }
}

/** One run's first model call: seconds from its spawn, and the CPU seconds its process had spent by then. */
export interface FirstCall {
  s: number;
  cpuS: number;
}

/** A run's moments: what, and seconds since its process started. */
export type Timeline = Map<string, number>;

/** COOP_BENCH_TIMELINE's lines ("<ms> <what>"). */
export function readTimeline(text: string): Timeline {
  const moments: Timeline = new Map();
  for (const line of text.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) moments.set(line.slice(space + 1), Number(line.slice(0, space)) / 1000);
  }
  return moments;
}

/** Each moment's median over the runs, in the order they came. */
function medianTimeline(timelines: Timeline[]): string {
  const names = [...new Set(timelines.flatMap((t) => [...t.keys()]))];
  const medians = names.map((name) => ({ name, s: median(timelines.flatMap((t) => (t.has(name) ? [t.get(name)!] : []))) }));
  return medians
    .sort((a, b) => a.s - b.s)
    .map(({ name, s }) => `${name} ${s.toFixed(2)}`)
    .join(', ');
}

/** The table from each round's seconds: image preparation, and the first call with and without the preflight; `timelines`: the default runs' moments; `bundled`: whether the CLI ran its bundle. */
export function firstStepTable(
  repo: string,
  image: number[],
  run: FirstCall[],
  noPreflight: FirstCall[],
  timelines: Timeline[] = [],
  bundled = true,
): BenchTable {
  const imageS = median(image);
  const row = (what: string, calls: FirstCall[]) => {
    const s = median(calls.map((call) => call.s));
    return [what, s.toFixed(2), median(calls.map((call) => call.cpuS)).toFixed(2), imageS.toFixed(2), (s - imageS).toFixed(2), `${(s / imageS).toFixed(2)}x`];
  };
  const runS = median(run.map((call) => call.s));
  const beyond = runS - imageS;
  return {
    id: 'first_step',
    title: 'Time to first step: `coop-bench run` to the first model call of its first task, warm engine',
    measures: `One Coop pair of ${repo} at concurrency 1, fake model (${MODEL_LATENCY_MS / 1000} s per call), median of ${run.length} rounds after a warm-up run (each round's runs are stopped at that call). first call: from the spawn of \`coop-bench run\` to the fake model receiving the task's first call. image: a process of its own that reaches the engine and finds the pool's image (built: a warm engine), spawn to exit, interleaved.`,
    columns: ['run', 'first call s', 'run CPU s', 'image s', 'beyond image s', 'ratio'],
    rows: [row('default (live preflight)', run), row('--no-preflight', noPreflight)],
    target: { text: `first model call at most ${TARGET_S} s beyond image preparation`, value: beyond, met: beyond <= TARGET_S },
    notes: [
      `The fake answers the live preflight at once; a real model adds its two round trips (all models' preflights run at once).`,
      bundled
        ? 'The CLI ran its prebuilt bundle (dist/, current).'
        : 'The CLI ran its TypeScript sources through tsx (dist/ absent or older than the sources: `npm run build` makes it).',
      `run CPU s: user + system CPU of the \`run\` process (and its finished children) by its first call, from /proc: the figure to compare under load, where wall times stretch.`,
      `Rounds: first call ${run.map((call) => call.s.toFixed(2)).join(', ')} s (CPU ${run.map((call) => call.cpuS.toFixed(2)).join(', ')} s); image ${image.map((s) => s.toFixed(2)).join(', ')} s.`,
      ...(timelines.length
        ? [
            `Where the time goes (default runs, median s from the start of the run's process, harness/timeline.ts): ${medianTimeline(timelines)}; first call ${runS.toFixed(2)} (from the spawn).`,
          ]
        : []),
    ],
  };
}
