// The oracle's per-pair results of a run, as backends must agree on them: for every Coop pair, the
// merge's status, whether both features pass, and each feature's verdict and exit code.
import { basename, dirname } from 'node:path';
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
