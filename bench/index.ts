// `npm run bench`: every benchmark in turn, each printed as a table when it is done, then all of them
// with the machine they ran on in bench/results.json. One run; ratios are from this run only.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { removeLabelledContainers } from '../harness/sandbox/docker/containers.ts';
import { PROJECT_ROOT } from '../harness/paths.ts';
import { BENCH_RUN, benchFixture, type BenchFixture } from './fixture.ts';
import { stepOverhead } from './step-overhead.ts';
import { execPaths } from './exec-paths.ts';
import { evaluationOverhead } from './evaluation.ts';
import { messageLatency } from './messaging.ts';
import { mergeTimes } from './merge.ts';
import { structuralTimes } from './structural-merge.ts';
import { endToEnd } from './end-to-end.ts';
import { firstStep } from './first-step.ts';
import { cpuCosts } from './cpu-costs.ts';
import { cpuBreakdown } from './cpu-breakdown.ts';
import { lifecycleCost } from './lifecycle-cost.ts';
import { realisticEvaluation } from './realistic-evaluation.ts';
import { formatTable, type BenchTable } from './table.ts';
import { memoryYardstick } from './cpu.ts';

const BENCHMARKS: Record<string, (fixture: BenchFixture) => Promise<BenchTable | BenchTable[]>> = {
  steps: stepOverhead,
  exec: execPaths,
  eval: evaluationOverhead,
  messages: messageLatency,
  merge: mergeTimes,
  structural: structuralTimes,
  'first-step': firstStep,
  e2e: endToEnd,
  breakdown: cpuBreakdown,
  cpu: cpuCosts,
  lifecycle: lifecycleCost,
  realistic: realisticEvaluation,
};

function selected(argv: string[]): string[] {
  const at = argv.indexOf('--only');
  if (at < 0) return Object.keys(BENCHMARKS);
  const names = (argv[at + 1] ?? '').split(',').filter(Boolean);
  const unknown = names.filter((n) => !(n in BENCHMARKS));
  if (names.length === 0 || unknown.length) throw new Error(`--only takes a list of: ${Object.keys(BENCHMARKS).join(', ')}`);
  return names;
}

const quiet = (command: string, args: string[]) => {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
};

async function main(): Promise<void> {
  const names = selected(process.argv.slice(2));
  const fixture = await benchFixture();
  const engine = fixture.image.engine;
  await removeLabelledContainers([engine], BENCH_RUN);
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? null,
    memoryGiB: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    docker: (await engine.docker.version()).Version,
    commit: quiet('git', ['-C', PROJECT_ROOT, 'rev-parse', '--short', 'HEAD']),
    memory: memoryYardstick(),
  };
  console.log(
    `coop-bench benchmarks on ${machine.cpus} cores (${machine.cpuModel}), Docker ${machine.docker}, node ${machine.node}; load average ${loadavg()[0].toFixed(2)}; writing ${machine.memory.mib} MiB of fresh memory took ${machine.memory.cpuS.toFixed(2)} CPU s (compare CPU figures only between runs where it is alike)\n`,
  );
  const results: (BenchTable & { startedAt: string; seconds: number; loadBefore: number; loadAfter: number })[] = [];
  try {
    for (const name of names) {
      const startedAt = new Date().toISOString();
      const loadBefore = loadavg()[0];
      const started = performance.now();
      const tables = [await BENCHMARKS[name]!(fixture)].flat();
      const seconds = Math.round((performance.now() - started) / 1000);
      for (const table of tables) {
        const loadAfter = loadavg()[0];
        results.push({ ...table, startedAt, seconds, loadBefore, loadAfter });
        // More runnable work than cores: other work on the machine shared them, and times stretched.
        const underLoad = Math.max(loadBefore, loadAfter) > machine.cpus;
        const loadNote = `${underLoad ? 'UNDER LOAD: ' : ''}load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after, ${machine.cpus} cores${underLoad ? ": these figures are not a quiet machine's" : ''}`;
        console.log(`${formatTable(table)}\n${loadNote}\n`);
      }
    }
  } finally {
    await removeLabelledContainers([engine], BENCH_RUN);
  }
  const file = join(PROJECT_ROOT, 'bench', 'results.json');
  writeFileSync(file, `${JSON.stringify({ finishedAt: new Date().toISOString(), machine, benchmarks: results }, null, 2)}\n`);
  const targets = results.filter((r) => r.target);
  console.log(`targets met: ${targets.filter((r) => r.target!.met).length} of ${targets.length}; results in ${file}`);
}

await main();
