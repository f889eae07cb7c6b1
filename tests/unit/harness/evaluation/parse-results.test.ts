import { describe, expect, it } from 'vitest';
import { failureCause, parseTestCounts } from '../../../../harness/evaluation/parse-results.ts';

describe('test counts from each tool', () => {
  it('pytest', () => {
    expect(parseTestCounts('tests/test_a.py ..F\n==== 1 failed, 10 passed, 2 skipped in 0.31s ====\n')).toEqual({ framework: 'pytest', passed: 10, failed: 1 });
    expect(parseTestCounts('=================== 12 passed in 0.05s ===================')).toEqual({ framework: 'pytest', passed: 12, failed: 0 });
    expect(parseTestCounts('!!!! Interrupted: 1 error during collection !!!!\n=========== 1 error in 0.20s ===========')).toEqual({
      framework: 'pytest',
      passed: 0,
      failed: 1,
    });
  });

  it('go test -v', () => {
    const out =
      '=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n    --- FAIL: TestB/sub (0.00s)\n--- FAIL: TestB (0.00s)\nFAIL\nFAIL\tgithub.com/go-chi/chi/v5\t0.01s\n';
    expect(parseTestCounts(out)).toEqual({ framework: 'go', passed: 1, failed: 2 });
  });

  it('cargo test, summed over test binaries', () => {
    const out = 'test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured\n\ntest result: FAILED. 1 passed; 2 failed; 0 ignored\n';
    expect(parseTestCounts(out)).toEqual({ framework: 'cargo', passed: 4, failed: 2 });
  });

  it('jest and vitest', () => {
    expect(parseTestCounts('Test Suites: 1 failed, 1 total\nTests:       1 failed, 4 passed, 5 total\n')).toEqual({ framework: 'jest', passed: 4, failed: 1 });
    expect(parseTestCounts(' Test Files  1 failed (1)\n      Tests  2 failed | 7 passed (9)\n')).toEqual({ framework: 'vitest', passed: 7, failed: 2 });
  });

  it('node:test, TAP and spec reporters', () => {
    expect(parseTestCounts('ok 1 - a\nnot ok 2 - b\n1..2\n# tests 2\n# suites 0\n# pass 1\n# fail 1\n# cancelled 0\n')).toEqual({
      framework: 'node:test',
      passed: 1,
      failed: 1,
    });
    expect(parseTestCounts('ℹ tests 3\nℹ pass 3\nℹ fail 0\n')).toEqual({ framework: 'node:test', passed: 3, failed: 0 });
  });

  it('nothing recognisable', () => {
    expect(parseTestCounts('Error: Failed to apply feature patch\n')).toBeUndefined();
  });
});

describe('the cause of a failure', () => {
  it('names code that does not import before failing assertions', () => {
    const out = 'E   ImportError: cannot import name register_filter from outlines.prompts\nFAILED tests/test_x.py::test_a - AssertionError\n';
    expect(failureCause(out)).toBe('ImportError: cannot import name register_filter from outlines.prompts');
  });

  it("names node's import failure printed as TAP diagnostics", () => {
    const out =
      "TAP version 13\n# file:///workspace/repo/src/parser.js:155\n# SyntaxError: Identifier 'name' has already been declared\nnot ok 1 - /workspace/repo/test/x.test.js\n";
    expect(failureCause(out)).toBe("SyntaxError: Identifier 'name' has already been declared");
  });

  it('names a patch that does not apply', () => {
    expect(failureCause('Applying feature patch...\nError: Failed to apply feature patch.\n')).toBe('Error: Failed to apply feature patch.');
  });

  it('names the first failing test', () => {
    expect(failureCause('FAILED tests/test_align.py::test_center - assert 1 == 2\n')).toBe('tests/test_align.py::test_center - assert 1 == 2');
    expect(failureCause('not ok 3 - parses --no-color\n')).toBe('parses --no-color');
  });
});
