// The test cache of harness/evaluation/test-cache.ts, kept in the run's own database: it travels with
// the run (a copied or merged run re-evaluates without running containers) and needs no cleanup.
// A damaged cache row is a miss: its tests run again and the row is written anew.
import { z } from 'zod';
import type { TestCache, TestCacheKey } from '../evaluation/test-cache.ts';
import type { TestRun } from '../evaluation/run-tests.ts';
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

export function storeTestCache(store: RunStore): TestCache {
  const db = sqlOf(store);
  const select = db.prepare('SELECT result FROM test_cache WHERE image_id = ? AND tests_hash = ? AND patch_hash = ? AND settings = ?');
  const insert = db.prepare(
    `INSERT INTO test_cache (image_id, tests_hash, patch_hash, settings, result, created_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT DO UPDATE SET result = excluded.result, created_at = excluded.created_at`,
  );
  const keyOf = (key: TestCacheKey) => [key.imageId, key.testsHash, key.patchHash, key.settings];
  return {
    get(key) {
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
