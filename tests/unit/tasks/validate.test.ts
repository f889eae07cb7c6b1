// `pools validate`'s logic with scripted checks: combined.patch tested without its test files, as
// the Solo setting tests it; warnings that say whether tests.patch adds or modifies a file; lines in
// feature order; and the gold merge of every pair, with the pairs only the LLM stage could rescue.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPool } from '../../../tasks/pools.ts';
import { validatePool, type GoldMerge, type PoolChecks, type TestVerdict } from '../../../tasks/validate.ts';
import { dropTestFiles } from '../../../resolver/index.ts';
import type { Feature } from '../../../tasks/types.ts';

const codePatch = (id: number) => `diff --git a/src/f${id}.py b/src/f${id}.py\n--- a/src/f${id}.py\n+++ b/src/f${id}.py\n@@ -1 +1 @@\n-old\n+feature ${id}\n`;
const testsPatch = (id: number) =>
  id === 1
    ? `diff --git a/tests/test_f1.py b/tests/test_f1.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_f1.py\n@@ -0,0 +1 @@\n+def test(): pass\n`
    : `diff --git a/tests/test_all.py b/tests/test_all.py\n--- a/tests/test_all.py\n+++ b/tests/test_all.py\n@@ -1 +1,2 @@\n def test(): pass\n+def test_f${id}(): pass\n`;

/** A pool of three features whose combined.patch also edits the tests (as a real CooperBench task's does). */
function pool(): ReturnType<typeof loadPool> {
  const dir = join(mkdtempSync(join(tmpdir(), 'validate-')), 'demo_task', 'task1');
  for (const id of [1, 2, 3]) {
    mkdirSync(join(dir, `feature${id}`), { recursive: true });
    writeFileSync(join(dir, `feature${id}`, 'feature.md'), `Feature ${id}\n`);
    writeFileSync(join(dir, `feature${id}`, 'feature.patch'), codePatch(id));
    writeFileSync(join(dir, `feature${id}`, 'tests.patch'), testsPatch(id));
  }
  writeFileSync(join(dir, 'combined.patch'), [1, 2, 3].map((id) => codePatch(id) + testsPatch(id)).join(''));
  return loadPool(dir);
}

/** Like a runner: the tests patch first, then the code; test hunks applied twice do not apply. */
function runTests(feature: Feature, patch: string): Promise<TestVerdict> {
  if (patch.includes('+++ b/tests/')) return Promise.resolve({ passed: false, summary: 'error: patch failed: tests/test_all.py:1', output: '' });
  const passed = patch.includes(`+feature ${feature.id}`);
  // Later features finish first: the lines must still come out in feature order.
  return new Promise((resolve) =>
    setTimeout(
      () => resolve({ passed, summary: passed ? '1 passed' : '1 failed', output: `tests/test_f1.py ${passed ? 'ok' : 'FAILED'}` }),
      30 * (4 - feature.id),
    ),
  );
}

const verdicts = (...passed: (boolean | 'build')[]): TestVerdict[] =>
  passed.map((p) => ({ passed: p === true, summary: '', output: '', testsPassed: p === 'build' ? 0 : 1 }));
const merges: Record<string, GoldMerge> = {
  '1+2': { naiveClean: true },
  '1+3': {
    naiveClean: false,
    union: { verdicts: verdicts(true, true) },
    unionReversed: { verdicts: verdicts(true, false) },
    structural: { verdicts: verdicts(true, false) },
  },
  '2+3': {
    naiveClean: false,
    union: { verdicts: verdicts('build', 'build') },
    unionReversed: { conflict: 'a.py (CONFLICT (modify/delete))' },
    structural: { verdicts: verdicts(true, true) },
  },
};

const checks: PoolChecks = {
  applyError: async () => undefined,
  runTests,
  goldMerge: async ([a, b]) => merges[`${a.id}+${b.id}`]!,
  codeOf: (patch) => dropTestFiles(patch).patch,
};

describe('validatePool', () => {
  it('tests combined.patch without its test files, as the Solo setting does', async () => {
    const lines: string[] = [];
    const report = await validatePool(pool(), checks, (line) => lines.push(line));
    expect(report.failures).toEqual([]);
    expect(lines).toEqual([
      'feature1: base fail, gold pass, combined pass',
      'feature2: base fail, gold pass, combined pass',
      'feature3: base fail, gold pass, combined pass',
    ]);
  });

  it('would fail every feature with the test hunks left in (the bug it fixes)', async () => {
    const report = await validatePool(pool(), { ...checks, codeOf: (patch) => patch });
    expect(report.failures).toEqual([1, 2, 3].map((id) => `feature${id}: its tests fail with combined.patch (error: patch failed: tests/test_all.py:1)`));
  });

  it('says whether tests.patch adds or modifies a file the runner never mentions', async () => {
    const report = await validatePool(pool(), checks);
    expect(report.warnings).toEqual([
      "feature2: tests.patch modifies tests/test_all.py but the runner's output never mentions it: is it run?",
      "feature3: tests.patch modifies tests/test_all.py but the runner's output never mentions it: is it run?",
    ]);
    const added = await validatePool(pool(), { ...checks, runTests: async (f, p) => ({ ...(await runTests(f, p)), output: '' }) });
    expect(added.warnings[0]).toBe("feature1: tests.patch adds tests/test_f1.py but the runner's output never mentions it: is it run?");
  });

  it('shows the gold merge of every pair: naive, union in both orders, structural, a broken build, and who only the LLM stage could rescue', async () => {
    const report = await validatePool(pool(), checks);
    expect(report.conflictMatrix).toEqual([
      [false, false, true],
      [false, false, true],
      [true, true, false],
    ]);
    expect(report.lines.slice(-9)).toEqual([
      'gold merge per pair (union: agent 1 has the first feature, as in a run; other order: swapped):',
      '  pair   naive     union               union, other order  structural',
      '  f1+f2  clean     -                   -                   -',
      '  f1+f3  conflict  pass                FAIL                FAIL',
      '  f2+f3  conflict  FAIL, build broken  conflict            pass',
      'pairs only the LLM stage could rescue (naive conflicts, union fails): f2+f3',
      'pairs whose union outcome depends on the order: f1+f3',
      'pairs the structural merge passes where the union fails: f2+f3',
      "pairs the union passes and the structural merge's code fails: f1+f3",
    ]);
  });
});
