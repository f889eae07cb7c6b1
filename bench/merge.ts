// Merge time per pair of gold feature patches: mergePatches (drop tests, apply, merge-file, union,
// output patch) against a bare `git merge-file` over the same files (the files both patches touch,
// plus `--union` where they conflict: the merge-file work the pipeline itself does).
// One run, each pair measured once after one untimed warm-up; no target (part of `npm run bench`:
// it shows what the merge costs inside the evaluation of table 2).
import { execa } from 'execa';
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { mergePatches } from '../resolver/index.ts';
import { mergeFileArgs, PAPER_LABELS } from '../resolver/merge-file.ts';
import { craftedCases } from '../tests/unit/resolver/crafted-conflicts.ts';
import { ms, ratio, type BenchTable } from './table.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const IDENTITY = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', '-c', 'commit.gpgsign=false'];

interface BenchPool {
  name: string;
  /** A git repository whose HEAD is the base. */
  repoDir: string;
  patches: { name: string; text: string }[];
}

const git = async (cwd: string, ...args: string[]): Promise<string> => (await execa('git', args, { cwd, stripFinalNewline: false })).stdout;

async function gitRepoOf(sourceDir: string, scratch: string): Promise<string> {
  const dir = await mkdtemp(path.join(scratch, 'repo-'));
  await cp(sourceDir, dir, { recursive: true });
  await git(dir, 'init', '-q');
  await git(dir, 'add', '-A');
  await git(dir, ...IDENTITY, 'commit', '-qm', 'base');
  return dir;
}

async function shippedPools(scratch: string): Promise<BenchPool[]> {
  const pools: BenchPool[] = [];
  const poolsDir = path.join(root, 'feature-pools');
  for (const pool of (await readdir(poolsDir).catch(() => [])).sort()) {
    for (const task of (await readdir(path.join(poolsDir, pool)).catch(() => [])).filter((t) => /^task/.test(t)).sort()) {
      const taskDir = path.join(poolsDir, pool, task);
      if (!(await stat(path.join(taskDir, 'repo')).catch(() => undefined))?.isDirectory()) continue;
      const features = (await readdir(taskDir)).filter((f) => /^feature\d+$/.test(f)).sort((a, b) => Number(a.slice(7)) - Number(b.slice(7)));
      const patches: BenchPool['patches'] = [];
      for (const feature of features) {
        const text = await readFile(path.join(taskDir, feature, 'feature.patch'), 'utf8').catch(() => undefined);
        if (text !== undefined) patches.push({ name: `f${feature.slice(7)}`, text });
      }
      if (patches.length >= 2) pools.push({ name: `${pool}/${task}`, repoDir: await gitRepoOf(path.join(taskDir, 'repo'), scratch), patches });
    }
  }
  return pools;
}

/** Fallback without pools: each crafted conflict as a pool of its two versions. */
async function craftedPools(scratch: string): Promise<BenchPool[]> {
  const pools: BenchPool[] = [];
  for (const crafted of craftedCases) {
    const source = await mkdtemp(path.join(scratch, 'crafted-'));
    await mkdir(path.dirname(path.join(source, crafted.path)), { recursive: true });
    await writeFile(path.join(source, crafted.path), crafted.base);
    const repoDir = await gitRepoOf(source, scratch);
    const patchOf = async (content: string): Promise<string> => {
      await writeFile(path.join(repoDir, crafted.path), content);
      const text = await git(repoDir, 'diff');
      await git(repoDir, 'checkout', '-q', '--', '.');
      return text;
    };
    pools.push({ name: crafted.name, repoDir, patches: [{ name: 'ours', text: await patchOf(crafted.ours) }, { name: 'theirs', text: await patchOf(crafted.theirs) }] });
  }
  return pools;
}

/** The files a patch changes, with their content after applying it (null: deleted); empty if it does not apply. */
async function appliedFiles(repoDir: string, patch: string, scratch: string): Promise<Map<string, Buffer | null>> {
  const patchFile = path.join(scratch, 'bench.patch');
  await writeFile(patchFile, patch);
  if ((await execa('git', ['apply', patchFile], { cwd: repoDir, reject: false })).exitCode !== 0) return new Map();
  const names = (await git(repoDir, 'status', '--porcelain', '-z', '--untracked-files=all')).split('\0').filter(Boolean).map((entry) => entry.slice(3));
  const files = new Map<string, Buffer | null>();
  for (const name of names) files.set(name, await readFile(path.join(repoDir, name)).catch(() => null));
  await git(repoDir, 'reset', '-q', '--hard');
  await git(repoDir, 'clean', '-fdq');
  return files;
}

/** Bare `git merge-file` (and `--union` where it conflicts) over the files both patches changed. */
async function bareMergeFile(repoDir: string, ours: Map<string, Buffer | null>, theirs: Map<string, Buffer | null>, scratch: string): Promise<{ files: number; ms: number }> {
  const dir = await mkdtemp(path.join(scratch, 'bare-'));
  const both = [...ours.keys()].filter((name) => theirs.has(name) && ours.get(name) && theirs.get(name));
  let ms = 0;
  for (const [i, name] of both.entries()) {
    const base = await execa('git', ['show', `HEAD:${name}`], { cwd: repoDir, encoding: 'buffer', stripFinalNewline: false, reject: false });
    const files: [string, string, string] = [path.join(dir, `${i}.ours`), path.join(dir, `${i}.base`), path.join(dir, `${i}.theirs`)];
    await writeFile(files[0], ours.get(name)!);
    await writeFile(files[1], base.exitCode === 0 ? Buffer.from(base.stdout as Uint8Array) : Buffer.alloc(0));
    await writeFile(files[2], theirs.get(name)!);
    const started = performance.now();
    const naive = await execa('git', mergeFileArgs(PAPER_LABELS, files), { cwd: dir, encoding: 'buffer', reject: false });
    if (naive.exitCode !== 0) await execa('git', mergeFileArgs(PAPER_LABELS, files, true), { cwd: dir, encoding: 'buffer', reject: false });
    ms += performance.now() - started;
  }
  return { files: both.length, ms };
}

export async function mergeTimes(): Promise<BenchTable> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'coop-bench-bench-merge-'));
  try {
    let pools = await shippedPools(scratch);
    const notes: string[] = [];
    if (pools.length === 0) {
      notes.push('no feature pools with a repo/ folder found: crafted inputs');
      pools = await craftedPools(scratch);
    }
    const rows: (string | number)[][] = [];
    let warmedUp = false;
    let totalMerge = 0;
    let totalBare = 0;
    for (const pool of pools) {
      const applied: Map<string, Buffer | null>[] = [];
      for (const patch of pool.patches) applied.push(await appliedFiles(pool.repoDir, patch.text, scratch)); // one worktree: in turn
      for (let i = 0; i < pool.patches.length; i++) {
        for (let j = i + 1; j < pool.patches.length; j++) {
          const input = { repoDir: pool.repoDir, baseRev: 'HEAD', patches: [pool.patches[i]!.text, pool.patches[j]!.text] };
          if (!warmedUp) {
            await mergePatches(input); // module loading and JIT, not merge cost
            warmedUp = true;
          }
          const started = performance.now();
          const result = await mergePatches(input);
          const mergeMs = performance.now() - started;
          const bare = await bareMergeFile(pool.repoDir, applied[i]!, applied[j]!, scratch);
          totalMerge += mergeMs;
          totalBare += bare.ms;
          const conflicts = result.files.reduce((sum, f) => sum + f.naiveConflicts, 0);
          const t = result.timingsMs;
          rows.push([pool.name, `${pool.patches[i]!.name}+${pool.patches[j]!.name}`, result.status, bare.files, conflicts, ms(mergeMs), ms(t.apply ?? 0), ms(t.naive ?? 0), ms(t.union ?? 0), ms(bare.ms), bare.ms > 0 ? ratio(mergeMs / bare.ms) : '-']);
        }
      }
    }
    rows.push(['total', '', '', '', '', ms(totalMerge), '', '', '', ms(totalBare), totalBare > 0 ? ratio(totalMerge / totalBare) : '-']);
    const { stdout: version } = await execa('git', ['--version']);
    return {
      id: 'merge_times',
      title: 'Merge stage: mergePatches vs bare git merge-file (part of table 2\'s merge column)',
      measures: `Wall ms per pair of gold patches (${version.trim()}). merge: mergePatches (drop tests, apply, naive, union, output patch; apply/naive/union are its stages). bare: git merge-file on the files both patches change, plus --union where it conflicted, inputs prepared beforehand.`,
      columns: ['pool', 'pair', 'status', 'files', 'confl', 'merge ms', 'apply', 'naive', 'union', 'bare ms', 'ratio'],
      rows,
      notes: [...notes, 'mergePatches works on git objects (apply to an index, write trees, diff) so that it never touches a worktree; bare merge-file gets its three files ready-made. In an evaluation the merge runs while the test containers start (table 2).'],
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
