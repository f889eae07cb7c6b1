import { execa } from 'execa';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mergePatches, MergeSetupError } from '../../../resolver/index.ts';
import { craftedCases, overlapCase, signatureCase } from './crafted-conflicts.ts';
import { gitMergeFile, makeRepo, type TestRepo } from './git-fixture.ts';

const repos: TestRepo[] = [];
async function repo(files: Parameters<typeof makeRepo>[0]): Promise<TestRepo> {
  const made = await makeRepo(files);
  repos.push(made);
  return made;
}
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.dispose()));
});

const lines = (n: number, prefix = 'line'): string => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}\n`).join('');

describe('naive merge', () => {
  it('merges edits far apart cleanly, as a patch git apply accepts', async () => {
    const base = lines(30);
    const ours = base.replace('line 3\n', 'line three\n');
    const theirs = base.replace('line 27\n', 'line twenty-seven\n').replace(/\n$/, ''); // also drops the final newline
    const r = await repo({ 'a.txt': base, 'other.txt': 'x\n' });
    const result = await mergePatches({
      repoDir: r.dir,
      baseRev: r.base,
      patches: [await r.patch({ 'a.txt': ours }), await r.patch({ 'a.txt': theirs, 'only2.txt': 'new\n' })],
    });

    expect(result.status).toBe('clean');
    expect(result.strategy).toBe('naive');
    expect(result.conflictRegions).toEqual([]);
    expect(result.files).toEqual([
      { path: 'a.txt', touchedBy: [0, 1], naiveConflicts: 0, outcome: 'merged' },
      { path: 'only2.txt', touchedBy: [1], naiveConflicts: 0, outcome: 'one_side' },
    ]);
    expect(result.patch.startsWith('diff --git a/a.txt b/a.txt\n')).toBe(true);
    const direct = await gitMergeFile(ours, base, theirs);
    expect(direct.exitCode).toBe(0);
    const applied = await r.applied(result.patch, ['a.txt', 'only2.txt', 'other.txt']);
    expect(applied['a.txt']!.equals(direct.content)).toBe(true);
    expect(applied['only2.txt']!.toString()).toBe('new\n');
    expect(applied['other.txt']!.toString()).toBe('x\n');
  });

  it('takes the version of a file touched by one patch, and identical changes once', async () => {
    const r = await repo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'gone.txt': 'bye\n' });
    const result = await mergePatches({
      repoDir: r.dir,
      baseRev: 'HEAD',
      patches: [await r.patch({ 'a.txt': 'A\n', 'gone.txt': null }), await r.patch({ 'a.txt': 'A\n', 'b.txt': 'B\n' })],
    });
    expect(result.status).toBe('clean');
    expect(result.files.map((f) => [f.path, f.outcome])).toEqual([
      ['a.txt', 'identical'],
      ['b.txt', 'one_side'],
      ['gone.txt', 'one_side'],
    ]);
    const applied = await r.applied(result.patch, ['a.txt', 'b.txt', 'gone.txt']);
    expect(applied).toEqual({ 'a.txt': Buffer.from('A\n'), 'b.txt': Buffer.from('B\n'), 'gone.txt': null });
  });

  it('returns an empty patch when both agents changed nothing', async () => {
    const r = await repo({ 'a.txt': 'a\n' });
    const result = await mergePatches({ repoDir: r.dir, baseRev: 'HEAD', patches: ['', ''] });
    expect(result).toMatchObject({ status: 'clean', strategy: 'naive', patch: '', files: [] });
  });

  it('keeps a mode change of one side with a content change of the other', async () => {
    const r = await repo({ 'run.sh': { content: 'echo 1\n', executable: false } });
    const result = await mergePatches({
      repoDir: r.dir,
      baseRev: 'HEAD',
      patches: [await r.patch({ 'run.sh': { content: 'echo 1\n', executable: true } }), await r.patch({ 'run.sh': 'echo 2\n' })],
    });
    expect(result.status).toBe('clean');
    expect(result.patch).toContain('new mode 100755');
    expect(result.patch).toContain('+echo 2');
  });
});

describe.each(craftedCases)('crafted conflict: $name', (crafted) => {
  it("conflicts naively, and the union keeps both sides, patch 2's first (upstream checks out agent2)", async () => {
    const r = await repo({ [crafted.path]: crafted.base });
    const input = {
      repoDir: r.dir,
      baseRev: r.base,
      patches: [await r.patch({ [crafted.path]: crafted.ours }), await r.patch({ [crafted.path]: crafted.theirs })],
    };
    const result = await mergePatches(input);

    expect(result.status).toBe('union');
    expect(result.strategy).toBe('union');
    expect(result.conflictRegions.length).toBeGreaterThan(0);
    expect(result.files).toEqual([{ path: crafted.path, touchedBy: [0, 1], naiveConflicts: result.conflictRegions.length, outcome: 'union' }]);
    const merged = (await r.applied(result.patch, [crafted.path]))[crafted.path]!.toString();
    for (const region of result.conflictRegions) {
      const [, second, first] = /^<<<<<<< patch_2\n([\s\S]*?)=======\n([\s\S]*?)>>>>>>> patch_1\n$/.exec(region.marked)!;
      // The region and its context are a contiguous piece of the naive merge; the union writes
      // the checked-out side (patch 2) first, then patch 1.
      expect(merged).toContain(region.before + second! + first! + region.after);
      expect(region.before.split('\n').length - 1).toBeLessThanOrEqual(5);
      expect(region.after.split('\n').length - 1).toBeLessThanOrEqual(5);
    }
    expect(result.timingsMs.union).toBeGreaterThanOrEqual(0);
  });
});

describe('conflict regions', () => {
  it('take the configured number of context lines', async () => {
    const r = await repo({ [overlapCase.path]: overlapCase.base });
    const patches = [await r.patch({ [overlapCase.path]: overlapCase.ours }), await r.patch({ [overlapCase.path]: overlapCase.theirs })];
    const result = await mergePatches({ repoDir: r.dir, baseRev: 'HEAD', patches }, { contextLines: 2 });
    expect(result.conflictRegions).toEqual([
      {
        path: 'settings.py',
        before: 'HOST = "localhost"\nPORT = 8080\n',
        marked: '<<<<<<< patch_2\nTIMEOUT = 10\n=======\nTIMEOUT = 60\n>>>>>>> patch_1\n',
        after: 'RETRIES = 3\nVERBOSE = False\n',
        startLine: 4,
      },
    ]);
  });
});

describe('renames', () => {
  // Not "deleted by patch_1, modified by patch_2": git merge detects the rename.
  it('a rename in one patch and an edit in the other merge cleanly, as git merge does', async () => {
    const base = lines(20, 'def f');
    const r = await repo({ 'pkg/util.py': base });
    const renamed = await r.patch({ 'pkg/util.py': null, 'pkg/helpers.py': base.replace('def f 2\n', 'def f two\n') });
    const edited = await r.patch({ 'pkg/util.py': base.replace('def f 18\n', 'def f eighteen\n') });
    expect(renamed).toContain('rename from pkg/util.py');
    for (const patches of [
      [renamed, edited],
      [edited, renamed],
    ]) {
      const result = await mergePatches({ repoDir: r.dir, baseRev: 'HEAD', patches });
      expect(result.status, result.reason).toBe('clean');
      const merged = await r.applied(result.patch, ['pkg/util.py', 'pkg/helpers.py']);
      expect(merged['pkg/util.py']).toBeNull();
      expect(merged['pkg/helpers.py']!.toString()).toBe(base.replace('def f 2\n', 'def f two\n').replace('def f 18\n', 'def f eighteen\n'));
    }
  });
});

describe('cases union cannot handle', () => {
  it('delete vs modify is a conflict with a reason', async () => {
    const r = await repo({ 'a.py': 'x = 1\n' });
    const result = await mergePatches({
      repoDir: r.dir,
      baseRev: 'HEAD',
      patches: [await r.patch({ 'a.py': null }), await r.patch({ 'a.py': 'x = 2\n' })],
    });
    expect(result).toMatchObject({ status: 'conflict', patch: '' });
    expect(result.strategy).toBeUndefined();
    const why = 'CONFLICT (modify/delete): a.py deleted in patch_1 and modified in patch_2. Version patch_2 of a.py left in tree.';
    expect(result.reason).toBe(`1 file(s) cannot be merged: a.py (${why})`);
    expect(result.files[0]).toMatchObject({ outcome: 'conflict', conflictReason: why });
  });

  it('a binary file changed by both is a conflict', async () => {
    const r = await repo({ 'img.bin': Buffer.from([0, 1, 2, 3]) });
    const result = await mergePatches({
      repoDir: r.dir,
      baseRev: 'HEAD',
      patches: [await r.patch({ 'img.bin': Buffer.from([0, 1, 2, 4]) }), await r.patch({ 'img.bin': Buffer.from([0, 9, 2, 3]) })],
    });
    expect(result.status).toBe('conflict');
    expect(result.reason).toContain('Cannot merge binary files: img.bin (patch_2 vs. patch_1)');
  });

  it('a binary file changed by one patch merges and round-trips through git apply', async () => {
    const r = await repo({ 'img.bin': Buffer.from([0, 1, 2, 3]), 'a.txt': 'a\n' });
    const result = await mergePatches({
      repoDir: r.dir,
      baseRev: 'HEAD',
      patches: [await r.patch({ 'img.bin': Buffer.from([0, 1, 2, 4, 255]) }), await r.patch({ 'a.txt': 'b\n' })],
    });
    expect(result.status).toBe('clean');
    expect(result.patch).toContain('GIT binary patch');
    expect((await r.applied(result.patch, ['img.bin']))['img.bin']).toEqual(Buffer.from([0, 1, 2, 4, 255]));
  });

  it('a mode-only conflict (both add the file with different modes) is a conflict', async () => {
    const r = await repo({ 'a.txt': 'a\n' });
    const result = await mergePatches({
      repoDir: r.dir,
      baseRev: 'HEAD',
      patches: [await r.patch({ 'tool.sh': { content: 'echo\n', executable: true } }), await r.patch({ 'tool.sh': { content: 'echo\n', executable: false } })],
    });
    expect(result.status).toBe('conflict');
    expect(result.reason).toContain('tool.sh (CONFLICT (add/add): Merge conflict in tool.sh)');
  });

  it('a symlink changed by both is a conflict', async () => {
    const r = await repo({ link: { symlinkTo: 'a' } });
    const result = await mergePatches({
      repoDir: r.dir,
      baseRev: 'HEAD',
      patches: [await r.patch({ link: { symlinkTo: 'b' } }), await r.patch({ link: { symlinkTo: 'c' } })],
    });
    expect(result.status).toBe('conflict');
    expect(result.reason).toContain('link (CONFLICT (content): Merge conflict in link)');
  });

  it('a file added where the other patch adds a directory is a conflict', async () => {
    const r = await repo({ 'a.txt': 'a\n' });
    const result = await mergePatches({
      repoDir: r.dir,
      baseRev: 'HEAD',
      patches: [await r.patch({ lib: 'file\n' }), await r.patch({ 'lib/x.py': 'x\n' })],
    });
    expect(result.status).toBe('conflict');
    expect(result.reason).toContain('lib~patch_1 (CONFLICT (file/directory): directory in the way of lib from patch_1; moving it to lib~patch_1 instead.)');
  });

  it('both adding the same new file differently merges against an empty base', async () => {
    const r = await repo({ 'a.txt': 'a\n' });
    const result = await mergePatches({
      repoDir: r.dir,
      baseRev: 'HEAD',
      patches: [await r.patch({ 'new.py': 'one\n' }), await r.patch({ 'new.py': 'two\n' })],
    });
    expect(result.status).toBe('union');
    expect((await r.applied(result.patch, ['new.py']))['new.py']!.toString()).toBe('two\none\n');
  });
});

describe('inputs', () => {
  it('drops test files from each patch and reports them', async () => {
    const r = await repo({ 'src/a.py': 'a = 1\n', 'tests/test_a.py': 'def test(): pass\n' });
    const p1 = await r.patch({ 'src/a.py': 'a = 2\n', 'tests/test_a.py': 'def test(): assert False\n', 'src/a.test.js': 'x\n' });
    const p2 = await r.patch({ 'test_b.py': 'x\n', 'pkg/b_test.go': 'package b\n' });
    const result = await mergePatches({ repoDir: r.dir, baseRev: 'HEAD', patches: [p1, p2] });
    expect(result.droppedTestFiles).toEqual([
      ['src/a.test.js', 'tests/test_a.py'],
      ['pkg/b_test.go', 'test_b.py'],
    ]);
    expect(result.status).toBe('clean');
    expect(result.files.map((f) => f.path)).toEqual(['src/a.py']);
    expect(result.patch).not.toContain('test');
  });

  it("a patch that does not apply makes the merge missing_input, with git's reason", async () => {
    const r = await repo({ 'a.txt': 'a\n' });
    const good = await r.patch({ 'a.txt': 'b\n' });
    const stale = good.replace('-a\n', '-not in the base\n');
    const result = await mergePatches({ repoDir: r.dir, baseRev: 'HEAD', patches: [good, stale] });
    expect(result).toMatchObject({ status: 'missing_input', patch: '' });
    expect(result.strategy).toBeUndefined();
    expect(result.reason).toMatch(/^patch 2 does not apply to HEAD: error: patch failed: a\.txt:1/);
    expect(result.reason!.length).toBeLessThan(500);

    const garbage = await mergePatches({ repoDir: r.dir, baseRev: 'HEAD', patches: ['this is not a patch\n', good] });
    expect(garbage.status).toBe('missing_input');
    expect(garbage.reason).toContain('patch 1 does not apply');
  });

  it('an empty patch applies trivially', async () => {
    const r = await repo({ 'a.txt': 'a\n' });
    const result = await mergePatches({ repoDir: r.dir, baseRev: 'HEAD', patches: ['', await r.patch({ 'a.txt': 'b\n' })] });
    expect(result.status).toBe('clean');
    expect(result.files).toEqual([{ path: 'a.txt', touchedBy: [1], naiveConflicts: 0, outcome: 'one_side' }]);
  });

  it('rejects a directory that is not a repository and an unknown base revision', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'resolver-test-norepo-'));
    try {
      await expect(mergePatches({ repoDir: dir, baseRev: 'HEAD', patches: ['', ''] })).rejects.toThrow(/is not a git repository/);
    } finally {
      await rm(dir, { recursive: true });
    }
    const r = await repo({ 'a.txt': 'a\n' });
    const error = await mergePatches({ repoDir: r.dir, baseRev: 'no-such-rev', patches: ['', ''] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MergeSetupError);
    expect((error as Error).message).toBe("unknown base revision 'no-such-rev'");
  });

  it('never passes patch content through a shell', async () => {
    const r = await repo({ 'a.txt': 'a\n' });
    const marker = path.join(r.dir, 'pwned');
    const evil = `$(touch ${marker})\n\`touch ${marker}\`; touch ${marker}\n`;
    const result = await mergePatches({ repoDir: r.dir, baseRev: 'HEAD', patches: [evil, ''] });
    expect(result.status).toBe('missing_input');
    await expect(readFile(marker)).rejects.toThrow();
  });
});

describe('more than two patches', () => {
  it("folds as upstream does for two: patch k's branch gets the merge of patches 1..k-1", async () => {
    const base = lines(30);
    const r = await repo({ 'a.txt': base });
    const patches = [
      await r.patch({ 'a.txt': base.replace('line 2\n', 'two\n') }),
      await r.patch({ 'a.txt': base.replace('line 15\n', 'fifteen\n') }),
      await r.patch({ 'a.txt': base.replace('line 2\n', 'TWO\n') }),
    ];
    const result = await mergePatches({ repoDir: r.dir, baseRev: 'HEAD', patches });
    expect(result.status).toBe('union');
    expect(result.files).toEqual([{ path: 'a.txt', touchedBy: [0, 1, 2], naiveConflicts: 1, outcome: 'union' }]);
    expect(result.conflictRegions[0]!.marked).toBe('<<<<<<< patch_3\nTWO\n=======\ntwo\n>>>>>>> patch_1+2\n');
    const merged = (await r.applied(result.patch, ['a.txt']))['a.txt']!.toString();
    expect(merged).toContain('line 1\nTWO\ntwo\nline 3\n');
    expect(merged).toContain('fifteen\n');
  });

  it('a single patch is applied with its test files dropped (the Solo setting)', async () => {
    const r = await repo({ 'a.txt': 'a\n' });
    const result = await mergePatches({ repoDir: r.dir, baseRev: 'HEAD', patches: [await r.patch({ 'a.txt': 'b\n', 'tests/t.py': 'x\n' })] });
    expect(result).toMatchObject({ status: 'clean', droppedTestFiles: [['tests/t.py']] });
    expect(result.patch).toContain('+b');
  });
});

describe('side effects', () => {
  it('never writes to the repository and removes its temporary files', async () => {
    const r = await repo({ [signatureCase.path]: signatureCase.base });
    const patches = [await r.patch({ [signatureCase.path]: signatureCase.ours }), await r.patch({ [signatureCase.path]: signatureCase.theirs })];
    const snapshot = async (): Promise<string> =>
      (await execa('find', ['.git', '-type', 'f', '-newer', '.git/HEAD'], { cwd: r.dir })).stdout +
      (await execa('find', ['.git/objects', '-type', 'f'], { cwd: r.dir })).stdout +
      (await readFile(path.join(r.dir, '.git', 'index'))).toString('base64');
    const before = await snapshot();
    const scratchRoot = await mkdtemp(path.join(tmpdir(), 'resolver-test-tmp-'));
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = scratchRoot;
    try {
      expect((await mergePatches({ repoDir: r.dir, baseRev: 'HEAD', patches })).status).toBe('union');
      expect((await mergePatches({ repoDir: r.dir, baseRev: 'HEAD', patches: ['garbage\n', ''] })).status).toBe('missing_input');
      expect(await readdir(scratchRoot)).toEqual([]);
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
      await rm(scratchRoot, { recursive: true, force: true });
    }
    expect(await snapshot()).toBe(before);
    expect((await execa('git', ['status', '--porcelain'], { cwd: r.dir })).stdout).toBe('');
  });

  it("is not swayed by the user's git configuration", async () => {
    const r = await repo({ [signatureCase.path]: signatureCase.base });
    const patches = [
      await r.patch({ [signatureCase.path]: signatureCase.ours, 'notes.txt': 'trailing space   \n' }),
      await r.patch({ [signatureCase.path]: signatureCase.theirs }),
    ];
    for (const [key, value] of [
      ['diff.noprefix', 'true'],
      ['diff.context', '0'],
      ['apply.whitespace', 'error'],
      ['merge.conflictStyle', 'diff3'],
    ]) {
      await r.git('config', key, value!);
    }
    const globalConfig = path.join(r.dir, '.git', 'test-global-config');
    await writeFile(globalConfig, '[merge]\n\tconflictStyle = diff3\n');
    const savedGlobal = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = globalConfig;
    try {
      const result = await mergePatches({ repoDir: r.dir, baseRev: 'HEAD', patches });
      expect(result.status).toBe('union');
      expect(result.conflictRegions[0]!.marked).not.toContain('|||||||');
      expect(result.patch).toContain('diff --git a/tabulate/table.py b/tabulate/table.py');
      await r.git('config', '--unset', 'apply.whitespace');
      const applied = await r.applied(result.patch, ['notes.txt']);
      expect(applied['notes.txt']!.toString()).toBe('trailing space   \n');
    } finally {
      if (savedGlobal === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = savedGlobal;
    }
  });
});
