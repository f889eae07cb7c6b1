// The structural stage in the cascade, on real git: a probe recorded with its tests beside the
// paper's cascade, or a merge stage with --merge-cascade; and on a generated pool, every compatible
// pair passes both features' tests after it, true conflicts stay conflicts, and no pair that passes
// after the union fails after it.
import { execa } from 'execa';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptOf, cascadeRoles, runCascade, type MergeInput, type StructuralFile, type Tester } from '../../../../resolver/index.ts';
import { mergeCascadeOf } from '../../../../harness/commands/merge.ts';
import { makeRepo, type TestRepo } from '../git-fixture.ts';
import { BASE_TABLE, FEATURES, PAD, compatible } from '../structural-pool.ts';

let repo: TestRepo;
const patches = new Map<number, string>();
beforeAll(async () => {
  repo = await makeRepo({ 'src/table.js': BASE_TABLE, 'src/pad.js': PAD, 'package.json': '{ "type": "module" }\n', 'notes.txt': 'a\n' });
  for (const feature of FEATURES) patches.set(feature.id, await repo.patch({ 'src/table.js': feature.table }));
});
afterAll(() => repo.dispose());

const input = (...ids: number[]): MergeInput => ({ repoDir: repo.dir, baseRev: repo.base, patches: ids.map((id) => patches.get(id)!) });

/** Every feature's hidden test on a checkout of the base with the merged patch applied, as the pool's runner does. */
const testsOf =
  (ids: number[]): Tester<string> =>
  async (patch) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'structural-pool-'));
    try {
      await cp(repo.dir, dir, { recursive: true });
      await writeFile(path.join(dir, 'merged.patch'), patch);
      if (patch !== '') await execa('git', ['apply', 'merged.patch'], { cwd: dir });
      await mkdir(path.join(dir, 'tests'));
      for (const id of ids) await writeFile(path.join(dir, 'tests', `feature${id}.test.mjs`), FEATURES[id - 1]!.test);
      const run = await execa('node', ['--test', ...ids.map((id) => `tests/feature${id}.test.mjs`)], { cwd: dir, reject: false });
      return { passed: run.exitCode === 0, verdict: run.stdout.slice(-2000) };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

// Each case tests up to three merged checkouts with node --test.
describe('the structural stage in the cascade', { timeout: 120_000 }, () => {
  it('runs as a probe on a naive conflict: recorded with its tests and its files, never the result', async () => {
    const { merge, attempts } = await runCascade(input(1, 2), { test: testsOf([1, 2]) });
    expect(attempts.map((a) => a.stage)).toEqual(['naive', 'structural', 'union', 'union-reversed', 'llm']);
    const structural = attemptOf(attempts, 'structural')!;
    expect(structural).toMatchObject({ outcome: 'merged', final: false, tested: { passed: true } });
    expect(structural.details?.files as StructuralFile[]).toEqual([{ path: 'src/table.js', outcome: 'merged', ms: expect.any(Number) }]);
    expect(attemptOf(attempts, 'union')?.tested?.passed).toBe(false);
    expect(merge.status).toBe('union');
  });

  it('is the result with --merge-cascade naive,structural,union,llm when its tests pass (the union then does not run)', async () => {
    const { merge, attempts } = await runCascade(input(1, 2), { test: testsOf([1, 2]), cascade: ['naive', 'structural', 'union', 'llm'] });
    expect(attempts.map((a) => a.stage)).toEqual(['naive', 'structural']);
    expect(merge).toMatchObject({ status: 'structural', strategy: 'structural' });
    expect(merge.files.find((f) => f.path === 'src/table.js')?.outcome).toBe('structural');
  });

  it('leaves a file it cannot merge conflicted, saying why, and the cascade moves on', async () => {
    const { merge, attempts } = await runCascade(input(1, 4), { test: testsOf([1, 4]), cascade: ['naive', 'structural', 'union', 'llm'] });
    const structural = attemptOf(attempts, 'structural')!;
    expect(structural.outcome).toBe('conflict');
    expect(structural.reason).toMatch(/src\/table\.js \(structural merge: both patches add switch_case "2"/);
    expect(merge.status).toBe('union');
  });

  it('checks a cascade before it runs', () => {
    expect(() => cascadeRoles(['union', 'naive'])).toThrow(/starts with naive/);
    expect(() => cascadeRoles(['naive', 'union', 'structural'])).toThrow(/in this order/);
    expect(() => mergeCascadeOf('naive,magic')).toThrow(/unknown merge stage magic: the cascade may hold naive, structural, union, llm/);
    expect(mergeCascadeOf('naive, structural,union,llm')).toEqual(['naive', 'structural', 'union', 'llm']);
  });
});

describe('a generated pool with the usual shapes', () => {
  const pairs = FEATURES.flatMap((a) => FEATURES.filter((b) => b.id > a.id).map((b) => [a.id, b.id] as const));

  for (const [a, b] of pairs) {
    it(`f${a}+f${b}: ${compatible(a, b) ? 'both features pass after the structural merge' : 'a true conflict stays a conflict'}, and it loses no union pass`, async () => {
      const { attempts } = await runCascade(input(a, b), { test: testsOf([a, b]) });
      expect(attemptOf(attempts, 'naive')?.outcome).toBe('conflict');
      const structural = attemptOf(attempts, 'structural')!;
      if (compatible(a, b)) expect(structural).toMatchObject({ outcome: 'merged', tested: { passed: true } });
      else expect(structural.outcome).toBe('conflict');
      if (attemptOf(attempts, 'union')?.tested?.passed) expect(structural.tested?.passed).toBe(true);
    }, 120_000);
  }
});
