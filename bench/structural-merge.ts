// The structural merge's time per conflicting file, against the union merge's time in the same
// cascade: every pair of the shipped pools' gold patches (and of the generated pool of the unit
// tests), the cascade run with its probes and no tests, after one untimed warm-up per pair (grammar
// loading, JIT). Per file: the stage's own measure of parsing the three versions, merging and
// checking the result; per pair: the structural and union stages' wall time (each a git fold too).
import { execa } from 'execa';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { attemptOf, runCascade, type MergeInput, type StructuralFile } from '../resolver/index.ts';
import { BASE_TABLE, FEATURES, PAD } from '../tests/unit/resolver/structural-pool.ts';
import { shippedPools, type BenchPool } from './merge.ts';
import { median, ms, type BenchTable } from './table.ts';

const RUNS = 5;
const TARGET_MS = 50;
const IDENTITY = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', '-c', 'commit.gpgsign=false'];

/** The unit tests' generated pool (tests/unit/resolver/structural-pool.ts) as a bench pool. */
async function generatedPool(scratch: string): Promise<BenchPool> {
  const repoDir = await mkdtemp(path.join(scratch, 'generated-'));
  const git = async (...args: string[]) => (await execa('git', args, { cwd: repoDir, stripFinalNewline: false })).stdout;
  await mkdir(path.join(repoDir, 'src'));
  await writeFile(path.join(repoDir, 'src', 'pad.js'), PAD);
  await writeFile(path.join(repoDir, 'src', 'table.js'), BASE_TABLE);
  await git('init', '-q');
  await git('add', '-A');
  await git(...IDENTITY, 'commit', '-qm', 'base');
  const patches: BenchPool['patches'] = [];
  for (const feature of FEATURES) {
    await writeFile(path.join(repoDir, 'src', 'table.js'), feature.table);
    patches.push({ name: `f${feature.id}`, text: await git('diff') });
    await git('checkout', '-q', '--', '.');
  }
  return { name: 'generated (unit tests)', repoDir, patches };
}

export async function structuralTimes(): Promise<BenchTable> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'coop-bench-bench-structural-'));
  try {
    const pools = [...(await shippedPools(scratch)), await generatedPool(scratch)];
    const rows: (string | number)[][] = [];
    const perFile: number[] = [];
    let structuralTotal = 0;
    let unionTotal = 0;
    const outcomes = new Map<string, number>();
    for (const pool of pools) {
      for (let i = 0; i < pool.patches.length; i++) {
        for (let j = i + 1; j < pool.patches.length; j++) {
          const input: MergeInput = { repoDir: pool.repoDir, baseRev: 'HEAD', patches: [pool.patches[i]!.text, pool.patches[j]!.text] };
          const first = await runCascade(input, { probes: true });
          const structural = attemptOf(first.attempts, 'structural');
          if (!structural) continue; // the naive merge was clean
          const fileMs = new Map<string, number[]>();
          const stageMs: number[] = [];
          const unionMs: number[] = [];
          for (let run = 0; run < RUNS; run++) {
            const { attempts } = await runCascade(input, { probes: true });
            for (const file of (attemptOf(attempts, 'structural')?.details?.files ?? []) as StructuralFile[])
              fileMs.set(file.path, [...(fileMs.get(file.path) ?? []), file.ms]);
            stageMs.push(attemptOf(attempts, 'structural')!.durationMs);
            unionMs.push(attemptOf(attempts, 'union')?.durationMs ?? 0);
          }
          const files = (structural.details?.files ?? []) as StructuralFile[];
          const medians = files.map((f) => median(fileMs.get(f.path) ?? [0]));
          perFile.push(...medians);
          structuralTotal += median(stageMs);
          unionTotal += median(unionMs);
          for (const f of files) outcomes.set(f.outcome, (outcomes.get(f.outcome) ?? 0) + 1);
          rows.push([
            pool.name,
            `${pool.patches[i]!.name}+${pool.patches[j]!.name}`,
            structural.outcome,
            files.map((f) => `${f.outcome}${f.reason ? ` (${f.reason.slice(0, 60)})` : ''}`).join('; '),
            ms(Math.max(0, ...medians)),
            ms(median(stageMs)),
            ms(median(unionMs)),
          ]);
        }
      }
    }
    const worst = Math.max(0, ...perFile);
    rows.push(['total', `${perFile.length} files`, '', [...outcomes].map(([o, n]) => `${o} ${n}`).join(', '), ms(worst), ms(structuralTotal), ms(unionTotal)]);
    return {
      id: 'structural_merge_times',
      title: 'Structural merge: time per conflicting file, against the union in the same cascade',
      measures: `Wall ms, median of ${RUNS} cascades per naive-conflicting pair of gold patches (no tests). file ms: the structural stage's own time per conflicted file (parse base, ours and theirs, merge, parse and check the result), the slowest file of the pair. structural ms / union ms: each stage's wall time for the pair, its git fold included.`,
      columns: ['pool', 'pair', 'structural', 'files', 'file ms (max)', 'structural ms', 'union ms'],
      rows,
      target: { text: `structural merge <= ${TARGET_MS} ms per conflicting file (the slowest file)`, value: worst, met: worst <= TARGET_MS },
      notes: ['The first cascade of each pair is not timed: it loads the grammar (WebAssembly) and warms up the JIT.'],
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
