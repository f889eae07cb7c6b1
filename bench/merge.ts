// Merge time per pair of gold feature patches: mergePatches (drop tests, apply, CooperBench's naive
// `git merge`, its union merge where that conflicts, the merged patch) against the raw git commands
// it runs, replayed one after another by a shell script in the same scratch folder.
// Each pair is measured five times, merge and replay in turn, after one untimed warm-up; the
// medians are compared.
import { execa } from 'execa';
import { chmod, cp, mkdtemp, readdir, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { mergePatches, type GitCommand, type MergeInput } from '../resolver/index.ts';
import { craftedCases } from '../tests/unit/resolver/crafted-conflicts.ts';
import { median, ms, ratio, type BenchTable } from './table.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const IDENTITY = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', '-c', 'commit.gpgsign=false'];
const RUNS = 5;
const TARGET = 1.2;

export interface BenchPool {
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

/** The shipped pools' gold patches, each pool's repo/ committed as the base. */
export async function shippedPools(scratch: string): Promise<BenchPool[]> {
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
    pools.push({
      name: crafted.name,
      repoDir,
      patches: [
        { name: 'ours', text: await patchOf(crafted.ours) },
        { name: 'theirs', text: await patchOf(crafted.theirs) },
      ],
    });
  }
  return pools;
}

const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * One merge, and what the raw replay needs: a shell script running its git commands in order with
 * their environment and input, and its scratch folder as the merge found it (no objects or indexes
 * yet; the attribute folders the merge wrote between commands already there).
 */
async function tracedMerge(input: MergeInput, work: string): Promise<{ commands: number; script: string; restore: () => Promise<void> }> {
  const commands: (GitCommand | { copy: [string, string] })[] = [];
  let scratchDir = '';
  const kept = path.join(work, 'kept-scratch');
  await mergePatches(input, {
    trace: {
      command: (command) => commands.push(command),
      copy: (from, to) => commands.push({ copy: [from, to] }),
      scratch: async (dir) => {
        scratchDir = dir;
        await cp(dir, kept, { recursive: true });
      },
    },
  });
  const lines = ['#!/bin/sh', 'set -e'];
  for (const [i, command] of commands.entries()) {
    if ('copy' in command) {
      lines.push(`cp ${command.copy.map(quote).join(' ')}`);
      continue;
    }
    const inputFile = path.join(work, `input-${i}`);
    await writeFile(inputFile, command.input ?? '');
    const env = Object.entries(command.env)
      .map(([k, v]) => `${k}=${quote(v)}`)
      .join(' ');
    // merge-tree exits 1 on conflicts, as it should.
    lines.push(`cd ${quote(command.cwd)} && env -i ${env} git ${command.args.map(quote).join(' ')} < ${quote(inputFile)} > /dev/null || [ $? -eq 1 ]`);
  }
  const script = path.join(work, 'replay.sh');
  await writeFile(script, lines.join('\n') + '\n');
  await chmod(script, 0o755);
  const restore = async () => {
    await rm(scratchDir, { recursive: true, force: true });
    await cp(kept, scratchDir, { recursive: true });
    for (const entry of await readdir(scratchDir)) {
      if (entry === 'objects') await rm(path.join(scratchDir, entry), { recursive: true, force: true }).then(() => mkdir(path.join(scratchDir, 'objects')));
      else if (/^index-/.test(entry)) await rm(path.join(scratchDir, entry), { force: true });
    }
  };
  return { commands: commands.filter((c) => !('copy' in c)).length, script, restore };
}

async function timed(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
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
    let totalMerge = 0;
    let totalRaw = 0;
    for (const pool of pools) {
      for (let i = 0; i < pool.patches.length; i++) {
        for (let j = i + 1; j < pool.patches.length; j++) {
          const input = { repoDir: pool.repoDir, baseRev: 'HEAD', patches: [pool.patches[i]!.text, pool.patches[j]!.text] };
          await mergePatches(input); // module loading, JIT and the base's listing: not one pair's cost
          const work = await mkdtemp(path.join(scratch, 'replay-'));
          const { commands, script, restore } = await tracedMerge(input, work);
          // In turn, so that the machine's load weighs on both alike.
          const mergeRuns: number[] = [];
          const rawRuns: number[] = [];
          for (let run = 0; run < RUNS; run++) {
            mergeRuns.push(await timed(() => mergePatches(input)));
            await restore();
            rawRuns.push(await timed(() => execa(script)));
          }
          const [mergeMs, rawMs] = [median(mergeRuns), median(rawRuns)];
          const result = await mergePatches(input);
          totalMerge += mergeMs;
          totalRaw += rawMs;
          rows.push([pool.name, `${pool.patches[i]!.name}+${pool.patches[j]!.name}`, result.status, commands, ms(mergeMs), ms(rawMs), ratio(mergeMs / rawMs)]);
        }
      }
    }
    const value = totalMerge / totalRaw;
    rows.push(['total', '', '', '', ms(totalMerge), ms(totalRaw), ratio(value)]);
    const { stdout: version } = await execa('git', ['--version']);
    return {
      id: 'merge_times',
      title: 'Merge stage: mergePatches vs the raw git commands it runs',
      measures: `Wall ms per pair of gold patches (${version.trim()}), median of ${RUNS}. merge: mergePatches (drop test files, apply each patch, CooperBench's naive git merge, its union merge where that conflicts, the merged patch). raw: the same git commands (and index copies), with the same environment and input, run one after another by a shell script.`,
      columns: ['pool', 'pair', 'status', 'git cmds', 'merge ms', 'raw ms', 'ratio'],
      rows,
      target: { text: `merge of a pair <= ${TARGET}x its raw git commands, over all pairs`, value, met: value <= TARGET },
      notes: [
        ...notes,
        'The merge runs some commands concurrently (each patch applied at once) and git through a small spawner process; the raw script runs them in sequence from /bin/sh.',
      ],
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
