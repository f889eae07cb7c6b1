// The merge is CooperBench's, byte for byte: for every ordered pair of the shipped pools' gold
// patches, and for every other fixture with a base repository, coop-bench's merge gives the same
// status, the same merged tree and the same merged patch as upstream's procedure run with real git
// (tests/helpers/upstream-merge.ts).
import { execa } from 'execa';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mergePatches, runCascade } from '../../../resolver/index.ts';
import { SHIPPED_POOLS } from '../../../harness/paths.ts';
import { upstreamMerge } from '../../helpers/upstream-merge.ts';
import { craftedCases } from './crafted-conflicts.ts';
import { makeRepo, type FileSpec, type TestRepo } from './git-fixture.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(cleanups.map((c) => c()));
});

/** The merged tree of a patch: applied to the base in a scratch index. */
async function treeOf(repoDir: string, patch: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'fidelity-index-'));
  try {
    const env = { GIT_INDEX_FILE: path.join(dir, 'index') };
    await execa('git', ['read-tree', 'HEAD'], { cwd: repoDir, env });
    if (patch !== '') await execa('git', ['apply', '--cached', '-'], { cwd: repoDir, env, input: patch });
    return (await execa('git', ['write-tree'], { cwd: repoDir, env })).stdout.trim();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** coop-bench's merge of (patch1, patch2) against upstream's: status, tree and patch. */
async function expectUpstreamMerge(repoDir: string, patch1: string, patch2: string, label: string): Promise<string> {
  // One after the other: upstream's copy of the repository must not race with the objects our
  // merge writes into it (a file renamed away under `cp` fails the copy).
  const upstream = await upstreamMerge(repoDir, patch1, patch2);
  const ours = await mergePatches({ repoDir, baseRev: 'HEAD', patches: [patch1, patch2] });
  expect(ours.status, `${label}: ${ours.reason ?? ''}`).toBe(upstream.status);
  if (upstream.tree) {
    expect(await treeOf(repoDir, ours.patch), `${label}: merged tree`).toBe(upstream.tree);
    // The same text too, where git's diff prints no binary file (upstream's cannot carry one).
    if (!ours.patch.includes('GIT binary patch')) expect(ours.patch, `${label}: merged patch`).toBe(upstream.diff);
  }
  return upstream.status;
}

/** A shipped pool's base repository, made as its Dockerfile makes it (one commit; its settings). */
async function poolRepo(taskDir: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'fidelity-pool-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await cp(path.join(taskDir, 'repo'), dir, { recursive: true });
  const git = (...args: string[]) => execa('git', ['-c', 'user.name=pool', '-c', 'user.email=pool@example.invalid', ...args], { cwd: dir });
  await git('init', '-q');
  if (readFileSync(path.join(taskDir, 'Dockerfile'), 'utf8').includes('core.fileMode false')) await git('config', 'core.fileMode', 'false');
  await git('add', '-A');
  await git('commit', '-qm', 'base');
  return dir;
}

const shippedTasks = readdirSync(SHIPPED_POOLS).flatMap((pool) =>
  readdirSync(path.join(SHIPPED_POOLS, pool))
    .filter((t) => existsSync(path.join(SHIPPED_POOLS, pool, t, 'repo')))
    .map((t) => path.join(SHIPPED_POOLS, pool, t)),
);

describe.each(shippedTasks.map((dir) => ({ name: path.relative(SHIPPED_POOLS, dir), dir })))('shipped pool $name', ({ dir }) => {
  it("every ordered pair of gold patches merges exactly as upstream's procedure", async () => {
    const repo = await poolRepo(dir);
    const features = readdirSync(dir)
      .filter((f) => /^feature\d+$/.test(f))
      .sort();
    const gold = new Map(features.map((f) => [f, readFileSync(path.join(dir, f, 'feature.patch'), 'utf8')]));
    const statuses: string[] = [];
    for (const a of features)
      for (const b of features.filter((f) => f !== a)) statuses.push(await expectUpstreamMerge(repo, gold.get(a)!, gold.get(b)!, `${a}+${b}`));
    expect(statuses).toHaveLength(features.length * (features.length - 1));
    expect(statuses).toContain('union');
  }, 300_000);
});

interface Fixture {
  name: string;
  base: Record<string, FileSpec>;
  patch1: Record<string, FileSpec>;
  patch2: Record<string, FileSpec>;
  /** The repository's own configuration (upstream's git reads it too). */
  config?: Record<string, string>;
  /** What upstream does, as a check on the fixture itself. */
  expected: 'clean' | 'union' | 'conflict';
}

const lines = (n: number, prefix = 'line'): string => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}\n`).join('');
const conflicting = {
  base: { 'a.txt': lines(10) },
  patch1: { 'a.txt': lines(10).replace('line 5\n', 'five one\n') },
  patch2: { 'a.txt': lines(10).replace('line 5\n', 'five two\n') },
};

const fixtures: Fixture[] = [
  ...craftedCases.map((c): Fixture => ({
    name: `crafted: ${c.name}`,
    base: { [c.path]: c.base },
    patch1: { [c.path]: c.ours },
    patch2: { [c.path]: c.theirs },
    expected: 'union',
  })),
  {
    name: 'one patch renames a file, the other edits it (git detects the rename)',
    base: { 'pkg/util.py': lines(20, 'def f') },
    patch1: { 'pkg/util.py': null, 'pkg/helpers.py': lines(20, 'def f').replace('def f 2\n', 'def f two\n') },
    patch2: { 'pkg/util.py': lines(20, 'def f').replace('def f 18\n', 'def f eighteen\n') },
    expected: 'clean',
  },
  {
    name: 'the same rename on the other side',
    base: { 'pkg/util.py': lines(20, 'def f') },
    patch1: { 'pkg/util.py': lines(20, 'def f').replace('def f 18\n', 'def f eighteen\n') },
    patch2: { 'pkg/util.py': null, 'pkg/helpers.py': lines(20, 'def f') },
    expected: 'clean',
  },
  { name: 'delete vs modify', base: { 'a.py': 'x = 1\n' }, patch1: { 'a.py': null }, patch2: { 'a.py': 'x = 2\n' }, expected: 'conflict' },
  {
    name: 'binary file changed by both',
    base: { 'img.bin': Buffer.from([0, 1, 2, 3]) },
    patch1: { 'img.bin': Buffer.from([0, 1, 2, 4]) },
    patch2: { 'img.bin': Buffer.from([0, 9, 2, 3]) },
    expected: 'conflict',
  },
  { name: 'both add one file differently', base: { 'a.txt': 'a\n' }, patch1: { 'new.py': 'one\n' }, patch2: { 'new.py': 'two\n' }, expected: 'union' },
  { name: 'identical changes', base: { 'a.txt': lines(5) }, patch1: { 'a.txt': 'changed\n' }, patch2: { 'a.txt': 'changed\n' }, expected: 'clean' },
  { name: 'an empty patch', base: { 'a.txt': 'a\n' }, patch1: {}, patch2: { 'a.txt': 'b\n' }, expected: 'clean' },
  {
    name: 'CRLF lines',
    base: { 'w.txt': 'a\r\nb\r\nc\r\n' },
    patch1: { 'w.txt': 'a\r\nB1\r\nc\r\n' },
    patch2: { 'w.txt': 'a\r\nB2\r\nc\r\n' },
    expected: 'union',
  },
  {
    name: 'a repository .gitattributes without a final newline (the union line joins its last line)',
    ...conflicting,
    base: { ...conflicting.base, '.gitattributes': '*.dat binary' },
    expected: 'conflict',
  },
  {
    name: 'a folder .gitattributes that unsets merge (it wins over the root union line)',
    base: { 'sub/a.txt': lines(10), 'sub/.gitattributes': '*.txt -merge\n' },
    patch1: { 'sub/a.txt': lines(10).replace('line 5\n', 'five one\n') },
    patch2: { 'sub/a.txt': lines(10).replace('line 5\n', 'five two\n') },
    expected: 'conflict',
  },
  {
    name: "patch 1 changes .gitattributes (upstream's union merge refuses to overwrite its own edit)",
    ...conflicting,
    base: { ...conflicting.base, '.gitattributes': '*.png binary\n' },
    patch1: { ...conflicting.patch1, '.gitattributes': '*.png binary\n*.jpg binary\n' },
    expected: 'conflict',
  },
  {
    name: 'patch 2 (the checked-out side) changes .gitattributes',
    ...conflicting,
    base: { ...conflicting.base, '.gitattributes': '*.png binary\n' },
    patch2: { ...conflicting.patch2, '.gitattributes': '*.png binary\n*.jpg binary\n' },
    expected: 'union',
  },
  {
    name: 'a diff driver in .gitattributes (hunk headers of the merged patch)',
    base: { '.gitattributes': '*.py diff=python\n', 'm.py': `class A:\n    def run(self):\n${lines(12, '        x =')}` },
    patch1: { 'm.py': `class A:\n    def run(self):\n${lines(12, '        x =').replace('x = 9\n', 'x = nine\n')}` },
    patch2: { 'm.py': `class A:\n    def run(self):\n${lines(12, '        x =').replace('x = 3\n', 'x = three\n')}` },
    expected: 'clean',
  },
  {
    name: 'core.fileMode false: mode changes are not recorded (as git add does)',
    base: { 'run.sh': { content: 'echo 1\n', executable: false } },
    patch1: { 'run.sh': { content: 'echo 1\n', executable: true }, 'tool.sh': { content: 'echo t\n', executable: true } },
    patch2: { 'run.sh': 'echo 2\n' },
    config: { 'core.fileMode': 'false' },
    expected: 'clean',
  },
  {
    name: 'core.fileMode true: mode changes are kept',
    base: { 'run.sh': { content: 'echo 1\n', executable: false } },
    patch1: { 'run.sh': { content: 'echo 1\n', executable: true } },
    patch2: { 'run.sh': 'echo 2\n' },
    expected: 'clean',
  },
  { name: 'merge.conflictStyle diff3 in the repository (it changes the union)', ...conflicting, config: { 'merge.conflictStyle': 'diff3' }, expected: 'union' },
];

describe('fixtures with a base repository', () => {
  const repos: TestRepo[] = [];
  afterAll(async () => {
    await Promise.all(repos.map((r) => r.dispose()));
  });

  it.each(fixtures)('$name: both orders as upstream', async (fixture) => {
    const repo = await makeRepo(fixture.base);
    repos.push(repo);
    const [p1, p2] = [await repo.patch(fixture.patch1), await repo.patch(fixture.patch2)];
    for (const [key, value] of Object.entries(fixture.config ?? {})) await repo.git('config', key, value);
    expect(await expectUpstreamMerge(repo.dir, p1, p2, 'patch 1, patch 2')).toBe(fixture.expected);
    await expectUpstreamMerge(repo.dir, p2, p1, 'patch 2, patch 1');
  });

  it("the order probe builds exactly upstream's merge of the swapped patches", async () => {
    const crafted = craftedCases[1]!;
    const repo = await makeRepo({ [crafted.path]: crafted.base });
    repos.push(repo);
    const [p1, p2] = [await repo.patch({ [crafted.path]: crafted.ours }), await repo.patch({ [crafted.path]: crafted.theirs })];
    const { attempts } = await runCascade({ repoDir: repo.dir, baseRev: 'HEAD', patches: [p1, p2] }, { test: async () => ({ passed: false, verdict: null }) });
    const [forward, reversed] = [await upstreamMerge(repo.dir, p1, p2), await upstreamMerge(repo.dir, p2, p1)];
    // The structural probe runs beside them (its own attempt); the cascade is upstream's.
    expect(attempts.map((a) => a.stage).filter((stage) => stage !== 'structural')).toEqual(['naive', 'union', 'union-reversed', 'llm']);
    const patchOf = (stage: string) => attempts.find((a) => a.stage === stage)!.result!.patch;
    expect(patchOf('union')).toBe(forward.diff);
    expect(patchOf('union-reversed')).toBe(reversed.diff);
    expect(forward.diff).not.toBe(reversed.diff);
  });
});
