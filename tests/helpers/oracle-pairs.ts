// The oracle's per-pair results of a run, as backends must agree on them: for every Coop pair, the
// merge's status, whether both features pass, and each feature's verdict and exit code.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { queryRun } from './cli.ts';

export type OraclePairs = Record<string, { merge: string | null; bothPassed: boolean; features: string }>;

export function oraclePairs(runsDir: string, run: string): OraclePairs {
  const rows = queryRun<{ pool_dir: string; features: string; both_passed: number | null; merge: string | null; verdicts: string | null }>(
    runsDir,
    run,
    `SELECT t.pool_dir, t.features, t.both_passed, m.status AS merge,
            (SELECT group_concat(v, ' ') FROM (SELECT 'f' || e.feature || ' ' || (CASE e.passed WHEN 1 THEN 'pass' ELSE 'fail' END) || ' exit ' || coalesce(e.exit_code, 'none') AS v
                                               FROM evaluations e WHERE e.task = t.id ORDER BY e.feature)) AS verdicts
     FROM tasks t LEFT JOIN merges m ON m.task = t.id WHERE t.setting = 'coop' ORDER BY t.pool_dir, t.features`,
  );
  return Object.fromEntries(
    rows.map((row) => [
      `${basename(dirname(row.pool_dir))}/${basename(row.pool_dir)} ${(JSON.parse(row.features) as number[]).map((f) => `f${f}`).join('_')}`,
      { merge: row.merge, bothPassed: row.both_passed === 1, features: row.verdicts ?? '' },
    ]),
  );
}

const GOLDEN = join(import.meta.dirname, '..', 'golden', 'oracle-pairs.json');

/**
 * The golden file's results for the pairs a run has (tests/golden/oracle-pairs.json). With
 * UPDATE_GOLDEN set, the run's results replace those pairs in the file first; its other pairs stay.
 */
export function goldenPairs(pairs: OraclePairs): OraclePairs {
  const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as { about: string; pairs: OraclePairs };
  if (process.env.UPDATE_GOLDEN) {
    golden.pairs = Object.fromEntries(Object.entries({ ...golden.pairs, ...pairs }).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(GOLDEN, `${JSON.stringify(golden, null, 2)}\n`);
  }
  return Object.fromEntries(Object.keys(pairs).map((key) => [key, golden.pairs[key]!]));
}
