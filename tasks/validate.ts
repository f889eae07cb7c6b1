// `coop-bench pools validate`: is a pool fit to measure with? Gold patches apply; each feature's
// tests fail on the base and pass with its gold patch; the combined patch passes them all (gold and
// combined tested as the oracle submits them: test files dropped, as the evaluation drops agents'); the gold merge of every pair (naive clean,
// union outcome in both orders, whether the union breaks the build, so a maintainer sees which
// pairs only the LLM stage could rescue, and the structural merge's outcome); plus warnings about
// what silently weakens a pool.
import { readFileSync } from 'node:fs';
import type { Feature, Pool } from './types.ts';
import { poolKey } from './types.ts';
import { combinations } from './plan.ts';

/** One feature's tests on one patch. */
export interface TestVerdict {
  passed: boolean;
  /** Counts and cause, one line. */
  summary: string;
  output: string;
  /** Tests that passed, when the output says. */
  testsPassed?: number;
}

/** A stage's gold merge of a pair (the union in one order, the structural merge): a conflict, or every feature's verdict on the code (in pair order). */
export type UnionOutcome = { conflict: string } | { verdicts: TestVerdict[] };

/** How the gold patches of a pair merge, as the evaluation's cascade merges them. */
export interface GoldMerge {
  naiveClean: boolean;
  /** In the order of a run (the pair's first feature is agent 1); absent when the naive merge was clean. */
  union?: UnionOutcome;
  /** The other order. */
  unionReversed?: UnionOutcome;
  /** The structural merge (a probe); absent when the naive merge was clean. */
  structural?: UnionOutcome;
}

/** What validation needs from the later stages (containers, tests, merge), injected by the CLI. */
export interface PoolChecks {
  /** Why `patch` does not apply to the base, or undefined when it does. */
  applyError(patch: string): Promise<string | undefined>;
  runTests(feature: Feature, patch: string): Promise<TestVerdict>;
  goldMerge(features: [Feature, Feature], patches: [string, string]): Promise<GoldMerge>;
  /** A patch without its test files, as the evaluation tests an agent's patch. */
  codeOf(patch: string): string;
}

export interface PoolReport {
  pool: string;
  failures: string[];
  warnings: string[];
  /** conflict[i][j] for features in pool order. */
  conflictMatrix: boolean[][];
  lines: string[];
}

/** Paths a patch adds or modifies (`+++ b/<path>`), and whether it adds them (`--- /dev/null`). */
export function patchedPaths(patch: string): { path: string; added: boolean }[] {
  return [...patch.matchAll(/^--- (.+)\n\+\+\+ b\/(.+)$/gm)].map((m) => ({ path: m[2]!.trim(), added: m[1]!.trim() === '/dev/null' }));
}

/** No test of any feature passes: the code does not even build or import. */
const breaksBuild = (verdicts: TestVerdict[]): boolean => verdicts.every((v) => !v.passed && (v.testsPassed ?? 0) === 0);
const unionPasses = (outcome: UnionOutcome | undefined): boolean => !!outcome && 'verdicts' in outcome && outcome.verdicts.every((v) => v.passed);

function unionText(outcome: UnionOutcome | undefined): string {
  if (!outcome) return '-';
  if ('conflict' in outcome) return 'conflict';
  if (unionPasses(outcome)) return 'pass';
  return breaksBuild(outcome.verdicts) ? 'FAIL, build broken' : 'FAIL';
}

export async function validatePool(pool: Pool, checks: PoolChecks, log: (line: string) => void = () => undefined): Promise<PoolReport> {
  const report: PoolReport = { pool: poolKey(pool), failures: [], warnings: [], conflictMatrix: [], lines: [] };
  const fail = (line: string) => report.failures.push(line);
  const read = (path: string) => readFileSync(path, 'utf8');
  const gold = new Map(pool.features.map((f) => [f.id, read(f.patchPath)]));
  const combined = pool.combinedPatchPath ? read(pool.combinedPatchPath) : undefined;
  if (!combined) fail('no combined.patch: the Solo oracle and the compatibility check need one');

  const patches: [string, string][] = [
    ...pool.features.flatMap((f): [string, string][] => [
      [`feature${f.id}/feature.patch`, gold.get(f.id)!],
      [`feature${f.id}/tests.patch`, read(f.testsPatchPath)],
    ]),
    ...(combined ? [['combined.patch', combined] as [string, string]] : []),
  ];
  for (const [name, patch] of patches) {
    const error = await checks.applyError(patch);
    if (error) fail(`${name} does not apply to the base: ${error}`);
  }

  // Tested as the oracle submits them (harness/agents/oracle.ts) and as the evaluation tests an
  // agent's patch: without their test files (each feature's tests.patch brings the tests).
  const combinedCode = combined === undefined ? undefined : checks.codeOf(combined);
  const features = [...pool.features].sort((a, b) => a.id - b.id);
  const checked = await Promise.all(
    features.map(async (feature) => {
      const [onBase, withGold, withCombined] = await Promise.all([
        checks.runTests(feature, ''),
        checks.runTests(feature, checks.codeOf(gold.get(feature.id)!)),
        combinedCode === undefined ? undefined : checks.runTests(feature, combinedCode),
      ]);
      return { feature, onBase, withGold, withCombined };
    }),
  );
  for (const { feature, onBase, withGold, withCombined } of checked) {
    const name = `feature${feature.id}`;
    if (onBase.passed) fail(`${name}: its tests already pass on the base, so they cannot tell an implementation from none`);
    if (!withGold.passed) fail(`${name}: its tests fail with its own feature.patch (${withGold.summary})`);
    if (withCombined && !withCombined.passed) fail(`${name}: its tests fail with combined.patch (${withCombined.summary})`);
    const unrun = patchedPaths(read(feature.testsPatchPath)).filter((p) => !withGold.output.includes(p.path.split('/').pop()!));
    for (const { path, added } of unrun)
      report.warnings.push(`${name}: tests.patch ${added ? 'adds' : 'modifies'} ${path} but the runner's output never mentions it: is it run?`);
    log(
      `${name}: base ${onBase.passed ? 'PASS (bad)' : 'fail'}, gold ${withGold.passed ? 'pass' : 'FAIL'}, combined ${withCombined ? (withCombined.passed ? 'pass' : 'FAIL') : '-'}`,
    );
  }

  const ids = features.map((f) => f.id);
  report.conflictMatrix = ids.map(() => ids.map(() => false));
  const pairs = combinations(
    ids.map((_, i) => i),
    2,
  );
  const merges = await Promise.all(pairs.map(([i, j]) => checks.goldMerge([features[i]!, features[j]!], [gold.get(ids[i]!)!, gold.get(ids[j]!)!])));
  pairs.forEach(([i, j], k) => (report.conflictMatrix[i]![j] = report.conflictMatrix[j]![i] = !merges[k]!.naiveClean));
  const conflicting = pairs.filter(([i, j]) => report.conflictMatrix[i]![j]).length;
  report.lines.push(
    `naive-merge conflicts of gold patches (X = conflict): ${conflicting}/${pairs.length} pairs (${pairs.length ? Math.round((100 * conflicting) / pairs.length) : 0}%)`,
  );
  report.lines.push(['    ', ...ids.map((id) => `f${id}`.padStart(4))].join(''));
  ids.forEach((id, i) =>
    report.lines.push([`f${id}`.padEnd(4), ...ids.map((_, j) => (i === j ? '-' : report.conflictMatrix[i]![j] ? 'X' : '.').padStart(4))].join('')),
  );

  report.lines.push('gold merge per pair (union: agent 1 has the first feature, as in a run; other order: swapped):');
  const rows = pairs.map(([i, j], k) => {
    const merge = merges[k]!;
    return [
      `f${ids[i]}+f${ids[j]}`,
      merge.naiveClean ? 'clean' : 'conflict',
      unionText(merge.union),
      unionText(merge.unionReversed),
      unionText(merge.structural),
    ];
  });
  const header = ['pair', 'naive', 'union', 'union, other order', 'structural'];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  for (const row of [header, ...rows])
    report.lines.push(
      `  ${row
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join('  ')
        .trimEnd()}`,
    );
  const llmOnly = pairs.filter((_, k) => !merges[k]!.naiveClean && !unionPasses(merges[k]!.union)).map(([i, j]) => `f${ids[i]}+f${ids[j]}`);
  const orderDecides = pairs
    .filter((_, k) => merges[k]!.union && unionPasses(merges[k]!.union) !== unionPasses(merges[k]!.unionReversed))
    .map(([i, j]) => `f${ids[i]}+f${ids[j]}`);
  report.lines.push(`pairs only the LLM stage could rescue (naive conflicts, union fails): ${llmOnly.length ? llmOnly.join(', ') : 'none'}`);
  report.lines.push(`pairs whose union outcome depends on the order: ${orderDecides.length ? orderDecides.join(', ') : 'none'}`);
  const named = (keep: (merge: GoldMerge) => boolean) => pairs.filter((_, k) => keep(merges[k]!)).map(([i, j]) => `f${ids[i]}+f${ids[j]}`);
  const rescued = named((m) => !m.naiveClean && !unionPasses(m.union) && unionPasses(m.structural));
  // A structural conflict leaves the pair to the union; only structural code that fails is a loss.
  const lost = named((m) => !!m.structural && 'verdicts' in m.structural && unionPasses(m.union) && !unionPasses(m.structural));
  report.lines.push(`pairs the structural merge passes where the union fails: ${rescued.length ? rescued.join(', ') : 'none'}`);
  report.lines.push(`pairs the union passes and the structural merge's code fails: ${lost.length ? lost.join(', ') : 'none'}`);
  return report;
}
