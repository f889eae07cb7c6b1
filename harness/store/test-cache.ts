// The test cache of harness/evaluation/test-cache.ts, kept in the run's own database: it travels with
// the run (a copied or merged run re-evaluates without running containers) and needs no cleanup.
// A damaged cache row is a miss: its tests run again and the row is written anew.
import { z } from 'zod';
import type { TestCache, TestCacheKey } from '../evaluation/test-cache.ts';
import type { TestRun } from '../evaluation/test-run.ts';
import { TEST_FRAMEWORKS } from '../evaluation/parse-results.ts';
import type { RunStore } from './run-store.ts';
import { sqlOf } from './database.ts';
import { json } from './columns.ts';

const testRun: z.ZodType<Omit<TestRun, 'cached'>> = z.object({
  passed: z.boolean(),
  exitCode: z.number().nullable(),
  timedOut: z.boolean(),
  counts: z.object({ framework: z.enum(TEST_FRAMEWORKS), passed: z.number(), failed: z.number() }).optional(),
  cause: z.string().optional(),
  output: z.string(),
  durationMs: z.number(),
});

/** `read: false` (--no-cache): every test runs again, its fresh result replacing the stored one. */
export function storeTestCache(store: RunStore, { read = true }: { read?: boolean } = {}): TestCache {
  const db = sqlOf(store);
  const select = db.prepare('SELECT result FROM test_cache WHERE image_id = ? AND tests_hash = ? AND patch_hash = ? AND settings = ?');
  const insert = db.prepare(
    `INSERT INTO test_cache (image_id, tests_hash, patch_hash, settings, result, created_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT DO UPDATE SET result = excluded.result, created_at = excluded.created_at`,
  );
  const keyOf = (key: TestCacheKey) => [key.imageId, key.testsHash, key.patchHash, key.settings];
  return {
    get(key) {
      if (!read) return undefined;
      const row = select.get(...keyOf(key)) as { result: unknown } | undefined;
      const parsed = row && json(testRun).safeParse(row.result);
      return parsed?.success ? parsed.data : undefined;
    },
    put(key, run) {
      const { cached: _, ...result } = run;
      insert.run(...keyOf(key), JSON.stringify(result), new Date().toISOString());
    },
  };
}

/** Results the run's test cache holds (what --force may reuse). */
export function testCacheSize(store: RunStore): number {
  return (sqlOf(store).prepare('SELECT COUNT(*) AS n FROM test_cache').get() as { n: number }).n;
}

export interface CacheCount {
  /** Feature evaluations of finished tasks... */
  total: number;
  /** ...of which the test cache answered. */
  cached: number;
}

/** Per finished task, how many of its feature evaluations came from the test cache. */
export function cachedEvaluationsByTask(store: RunStore): Map<number, CacheCount> {
  const rows = sqlOf(store)
    .prepare(
      `SELECT e.task, COUNT(*) AS total, SUM(e.cached) AS cached FROM evaluations e JOIN tasks t ON t.id = e.task WHERE t.status = 'done' GROUP BY e.task`,
    )
    .all() as { task: number; total: number; cached: number }[];
  return new Map(rows.map((r) => [r.task, { total: r.total, cached: r.cached }]));
}
