import { describe, expect, it } from 'vitest';
import { dropTestFiles, isTestPath } from '../../../resolver/index.ts';
import { splitPatch } from '../../../resolver/patch-sections.ts';

describe('isTestPath', () => {
  it.each([
    'tests/test_table.py',
    'pkg/tests/helpers.py',
    'test_x.py',
    'pkg/test_x.py',
    'a/b_test.py',
    'test/a.js',
    'src/test/Foo.java',
    'app/tests.py',
    'src/parser.test.ts',
    'src/parser.spec.js',
    'x.test.d.ts',
    'router/mux_test.go',
  ])('%s is a test file', (file) => expect(isTestPath(file)).toBe(true));

  it.each(['src/table.py', 'src/testing.py', 'src/contest.py', 'latest/a.py', 'docs/test.md', 'src/attestation.js', 'src/spec.js', 'testdata.go'])(
    '%s is not',
    (file) => expect(isTestPath(file)).toBe(false),
  );
});

const srcSection = `diff --git a/src/a.py b/src/a.py
index 1111111..2222222 100644
--- a/src/a.py
+++ b/src/a.py
@@ -1,3 +1,3 @@
 x = 1
--- y = 2
+++ y = 3
 z = 4
`;
const testSection = `diff --git a/tests/test_a.py b/tests/test_a.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/tests/test_a.py
@@ -0,0 +1 @@
+def test(): pass
`;
const binaryTestSection = `diff --git a/test/fixture.bin b/test/fixture.bin
new file mode 100644
index 0000000000000000000000000000000000000000..4444444444444444444444444444444444444444
GIT binary patch
literal 4
LcmZQzWMT#Y01f~L

literal 0
HcmV?d00001

`;
const quotedSection = `diff --git "a/src/na\\303\\257ve file.py" "b/src/na\\303\\257ve file.py"
index 1111111..2222222 100644
--- "a/src/na\\303\\257ve file.py"
+++ "b/src/na\\303\\257ve file.py"
@@ -1 +1 @@
-a
+b
`;
const renameSection = `diff --git a/src/old.py b/tests/test_old.py
similarity index 100%
rename from src/old.py
rename to tests/test_old.py
`;

describe('splitPatch', () => {
  it('splits by file, losslessly, following hunk counts (a removed "-- y" line is not a header)', () => {
    const patch = `preamble\n${srcSection}${testSection}${binaryTestSection}${quotedSection}${renameSection}`;
    const { preamble, sections } = splitPatch(patch);
    expect(preamble).toBe('preamble\n');
    expect(sections.map((s) => s.paths)).toEqual([
      ['src/a.py'],
      ['tests/test_a.py'],
      ['test/fixture.bin'],
      ['src/naïve file.py'],
      ['src/old.py', 'tests/test_old.py'],
    ]);
    expect(preamble + sections.map((s) => s.text).join('')).toBe(patch);
  });

  it('handles plain `diff -u` output with timestamps', () => {
    const patch =
      '--- a/src/x.c\t2024-01-01 00:00:00\n+++ b/src/x.c\t2024-01-02 00:00:00\n@@ -1 +1 @@\n-a\n+b\n--- a/tests/y.c\n+++ b/tests/y.c\n@@ -1 +1 @@\n-a\n+b\n';
    expect(splitPatch(patch).sections.map((s) => s.paths)).toEqual([['src/x.c'], ['tests/y.c']]);
  });
});

describe('dropTestFiles', () => {
  it('drops test sections (also binary and renamed into tests) and keeps the rest byte for byte', () => {
    const result = dropTestFiles(srcSection + testSection + binaryTestSection + quotedSection + renameSection);
    expect(result.patch).toBe(srcSection + quotedSection);
    expect(result.dropped).toEqual(['tests/test_a.py', 'test/fixture.bin', 'src/old.py', 'tests/test_old.py']);
  });

  it('returns the patch unchanged when nothing is dropped, and empty when everything is', () => {
    expect(dropTestFiles(srcSection)).toEqual({ patch: srcSection, dropped: [] });
    expect(dropTestFiles(`some text\n${testSection}`)).toEqual({ patch: '', dropped: ['tests/test_a.py'] });
    expect(dropTestFiles('')).toEqual({ patch: '', dropped: [] });
  });
});
