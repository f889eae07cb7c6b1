// `coop-bench pools validate`: is a pool fit to measure with? Gold patches apply; each feature's
// tests fail on the base and pass with its gold patch; the combined patch passes them all; plus the
// naive-merge conflict matrix of all pairs and warnings about what silently weakens a pool.
import { readFileSync } from 'node:fs';
import type { Feature, Pool } from './types.ts';
import { poolKey } from './types.ts';
import { combinations } from './plan.ts';

/** What validation needs from the later stages (containers, tests, merge), injected by the CLI. */
export interface PoolChecks {
  /** Why `patch` does not apply to the base, or undefined when it does. */
  applyError(patch: string): Promise<string | undefined>;
  runTests(feature: Feature, patch: string): Promise<{ passed: boolean; summary: string; output: string }>;
  /** Naive merge of two gold patches: true when it conflicts. */
  conflicts(patchA: string, patchB: string): Promise<boolean>;
}

export interface PoolReport {
  pool: string;
  failures: string[];
  warnings: string[];
  /** conflict[i][j] for features in pool order. */
  conflictMatrix: boolean[][];
  lines: string[];
}

/** Paths a patch adds or modifies (`+++ b/<path>`). */
export function patchedPaths(patch: string): string[] {
  return [...patch.matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1].trim());
}

export async function validatePool(pool: Pool, checks: PoolChecks, log: (line: string) => void = () => undefined): Promise<PoolReport> {
  const report: PoolReport = { pool: poolKey(pool), failures: [], warnings: [], conflictMatrix: [], lines: [] };
  const fail = (line: string) => report.failures.push(line);
  const read = (path: string) => readFileSync(path, 'utf8');
  const gold = new Map(pool.features.map((f) => [f.id, read(f.patchPath)]));
  const combined = pool.combinedPatchPath ? read(pool.combinedPatchPath) : undefined;
  if (!combined) fail('no combined.patch: the Solo oracle and the compatibility check need one');

  const patches: [string, string][] = [
    ...pool.features.flatMap((f): [string, string][] => [[`feature${f.id}/feature.patch`, gold.get(f.id)!], [`feature${f.id}/tests.patch`, read(f.testsPatchPath)]]),
    ...(combined ? [['combined.patch', combined] as [string, string]] : []),
  ];
  for (const [name, patch] of patches) {
    const error = await checks.applyError(patch);
    if (error) fail(`${name} does not apply to the base: ${error}`);
  }

  await Promise.all(
    pool.features.map(async (feature) => {
      const [onBase, withGold, withCombined] = await Promise.all([
        checks.runTests(feature, ''),
        checks.runTests(feature, gold.get(feature.id)!),
        combined ? checks.runTests(feature, combined) : undefined,
      ]);
      const name = `feature${feature.id}`;
      if (onBase.passed) fail(`${name}: its tests already pass on the base, so they cannot tell an implementation from none`);
      if (!withGold.passed) fail(`${name}: its tests fail with its own feature.patch (${withGold.summary})`);
      if (withCombined && !withCombined.passed) fail(`${name}: its tests fail with combined.patch (${withCombined.summary})`);
      const unrun = patchedPaths(read(feature.testsPatchPath)).filter((p) => !withGold.output.includes(p.split('/').pop()!));
      if (unrun.length) report.warnings.push(`${name}: tests.patch adds ${unrun.join(', ')} but the runner's output never mentions it: is it run?`);
      log(`${name}: base ${onBase.passed ? 'PASS (bad)' : 'fail'}, gold ${withGold.passed ? 'pass' : 'FAIL'}, combined ${withCombined ? (withCombined.passed ? 'pass' : 'FAIL') : '-'}`);
    }),
  );

  const ids = pool.features.map((f) => f.id);
  report.conflictMatrix = ids.map(() => ids.map(() => false));
  const pairs = combinations(ids.map((_, i) => i), 2);
  for (const [i, j] of pairs) {
    const conflict = await checks.conflicts(gold.get(ids[i])!, gold.get(ids[j])!);
    report.conflictMatrix[i][j] = report.conflictMatrix[j][i] = conflict;
  }
  const conflicting = pairs.filter(([i, j]) => report.conflictMatrix[i][j]).length;
  report.lines.push(`naive-merge conflicts of gold patches (X = conflict): ${conflicting}/${pairs.length} pairs (${pairs.length ? Math.round((100 * conflicting) / pairs.length) : 0}%)`);
  report.lines.push(['    ', ...ids.map((id) => `f${id}`.padStart(4))].join(''));
  ids.forEach((id, i) => report.lines.push([`f${id}`.padEnd(4), ...ids.map((_, j) => (i === j ? '-' : report.conflictMatrix[i][j] ? 'X' : '.').padStart(4))].join('')));
  return report;
}
