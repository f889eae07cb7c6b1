// Pass/fail counts from the output of the test tools CooperBench pools use. The runner's exit code
// decides success; counts and the cause of a failure are for people reading results.

export const TEST_FRAMEWORKS = ['pytest', 'go', 'cargo', 'jest', 'vitest', 'node:test'] as const;

export interface TestCounts {
  /** The runner, when its output says (counts imported from another harness may come without it). */
  framework?: (typeof TEST_FRAMEWORKS)[number];
  passed: number;
  failed: number;
}

const number = (text: string | undefined) => (text ? Number(text) : 0);

function lastMatch(output: string, pattern: RegExp): RegExpExecArray | undefined {
  let last: RegExpExecArray | undefined;
  for (const m of output.matchAll(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : pattern.flags + 'g'))) last = m as RegExpExecArray;
  return last;
}

type Parser = (output: string) => TestCounts | undefined;

const parsers: Parser[] = [
  // pytest: "==== 3 failed, 10 passed, 1 skipped in 0.12s ====" (also "1 error")
  (out) => {
    const line = lastMatch(out, /^=+ (.*\b(?:passed|failed|error|errors|no tests ran)\b.*) in [\d.]+s.*=+$/m);
    if (!line) return undefined;
    const count = (word: string) => number(new RegExp(`(\\d+) ${word}`).exec(line[1])?.[1]);
    return { framework: 'pytest', passed: count('passed'), failed: count('failed') + count('errors?') };
  },
  // cargo test: "test result: FAILED. 5 passed; 1 failed; 0 ignored" (one line per test binary)
  (out) => {
    const lines = [...out.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed/gm)];
    if (lines.length === 0) return undefined;
    return { framework: 'cargo', passed: lines.reduce((s, m) => s + Number(m[1]), 0), failed: lines.reduce((s, m) => s + Number(m[2]), 0) };
  },
  // jest: "Tests:       1 failed, 4 passed, 5 total"
  (out) => {
    const line = lastMatch(out, /^Tests:\s+(.*\d+ total)\s*$/m);
    if (!line) return undefined;
    return { framework: 'jest', passed: number(/(\d+) passed/.exec(line[1])?.[1]), failed: number(/(\d+) failed/.exec(line[1])?.[1]) };
  },
  // vitest: "      Tests  1 failed | 4 passed (5)"
  (out) => {
    const line = lastMatch(out, /^\s*Tests\s+(.*)\(\d+\)\s*$/m);
    if (!line) return undefined;
    return { framework: 'vitest', passed: number(/(\d+) passed/.exec(line[1])?.[1]), failed: number(/(\d+) failed/.exec(line[1])?.[1]) };
  },
  // node:test: TAP "# pass 5" / "# fail 1", or the spec reporter's "ℹ pass 5" / "ℹ fail 1"
  (out) => {
    const pass = lastMatch(out, /^(?:#|ℹ) pass (\d+)\s*$/m);
    const fail = lastMatch(out, /^(?:#|ℹ) fail (\d+)\s*$/m);
    if (!pass && !fail) return undefined;
    return { framework: 'node:test', passed: number(pass?.[1]), failed: number(fail?.[1]) };
  },
  // go test -v: one "--- PASS: Name" / "--- FAIL: Name" per test (subtests indented)
  (out) => {
    const passed = out.match(/^\s*--- PASS: /gm)?.length ?? 0;
    const failed = out.match(/^\s*--- FAIL: /gm)?.length ?? 0;
    if (passed + failed === 0) {
      return /^(?:FAIL|ok)\s+\S+/m.test(out) && /^FAIL\b/m.test(out) ? { framework: 'go', passed: 0, failed: 1 } : undefined;
    }
    return { framework: 'go', passed, failed };
  },
];

export function parseTestCounts(output: string): TestCounts | undefined {
  for (const parse of parsers) {
    const counts = parse(output);
    if (counts) return counts;
  }
  return undefined;
}

// Lines that name why a run failed, most specific first: code that does not import or compile,
// a patch that does not apply, then the first failing assertion.
const causePatterns: RegExp[] = [
  /^E\s+((?:ImportError|ModuleNotFoundError|SyntaxError|IndentationError|NameError)\b.*)$/m,
  /^((?:ImportError|ModuleNotFoundError|SyntaxError|IndentationError)\b.*)$/m,
  /^(?:#\s+)?(SyntaxError: .*)$/m,
  /^#\s+((?:ReferenceError|TypeError|Error \[ERR_[A-Z_]+\]): .*)$/m,
  /^(Error: Failed to apply .*)$/m,
  /^(error: patch failed: .*)$/m,
  /^(.*\.go:\d+:\d+: .*)$/m,
  /^(error(?:\[E\d+\])?: .*)$/m,
  /^E\s+(.+Error\b.*)$/m,
  /^FAILED (\S+.*)$/m,
  /^not ok \d+ - (.*)$/m,
  /^\s*--- FAIL: (\S+)/m,
  /^\s*✕ (.*)$/m,
];

/** One line saying why a failed run failed, when the output says it. */
export function failureCause(output: string): string | undefined {
  for (const pattern of causePatterns) {
    const m = pattern.exec(output);
    if (m) return m[1].trim().slice(0, 300);
  }
  return undefined;
}
