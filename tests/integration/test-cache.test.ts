// The test result cache on real containers: a test run killed from outside (a stopped run removing
// its containers, as SIGINT does) is not a result, so the resumed task runs the tests again instead
// of being scored with the kill.
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { loadPool } from '../../tasks/pools.ts';
import { poolImage, type PoolImage } from '../../harness/sandbox/docker/images.ts';
import { engineAt } from '../../harness/sandbox/docker/engine.ts';
import { DEFAULT_LIMITS, type BackendSlot } from '../../harness/sandbox/types.ts';
import { createBackend } from '../../harness/sandbox/registry.ts';
import { cachedTestRun, runFeatureTests, FeatureTests, type TestRunOptions } from '../../harness/evaluation/run-tests.ts';
import type { TestRun } from '../../harness/evaluation/test-run.ts';
import { testCacheKey, type TestCache, type TestCacheKey } from '../../harness/evaluation/test-cache.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';
import { containersOf } from '../helpers/cli.ts';

const pool = loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1'));
const feature = pool.features[0]!;
const gold = readFileSync(feature.patchPath, 'utf8');
const RUN = 'test-cache-kill';

function memoryCache(): TestCache & { runs: TestRun[] } {
  const entries = new Map<string, TestRun>();
  const runs: TestRun[] = [];
  return {
    runs,
    get: (key: TestCacheKey) => entries.get(JSON.stringify(key)),
    put: (key: TestCacheKey, run: TestRun) => {
      runs.push(run);
      entries.set(JSON.stringify(key), run);
    },
  };
}

let image: PoolImage;
let slot: BackendSlot;
const options = (cache: TestCache): TestRunOptions => ({ slot, image, run: RUN, limits: DEFAULT_LIMITS, timeoutMs: 300_000, cache });

beforeAll(async () => {
  image = await poolImage(engineAt(), pool);
  slot = (await createBackend('docker', { log: () => undefined })).acquire();
});

describe('the test result cache', () => {
  it('does not keep a run whose container was killed from outside, and runs the tests again', async () => {
    const cache = memoryCache();
    const tests = await FeatureTests.start(feature, options(cache));
    const running = tests.run(gold);
    const [container] = await containersOf(RUN);
    await new Docker().getContainer(container!.Id).kill();
    const killed = await running;
    expect(killed).toMatchObject({ passed: false, exitCode: 137 });
    expect(cache.runs).toEqual([]);

    const again = await runFeatureTests(feature, gold, options(cache));
    expect(again).toMatchObject({ passed: true, exitCode: 0 });
    expect(again.cached).toBeUndefined();
    expect((await runFeatureTests(feature, gold, options(cache))).cached).toBe(true);
    expect(await containersOf(RUN)).toEqual([]);
  });

  it('ignores a killed run that an earlier version cached', async () => {
    const cache = memoryCache();
    cache.put(await testCacheKey(feature, gold, options(cache)), { passed: false, exitCode: 137, timedOut: false, output: '', durationMs: 4081 });
    expect(await cachedTestRun(feature, gold, options(cache))).toBeUndefined();
  });
});
