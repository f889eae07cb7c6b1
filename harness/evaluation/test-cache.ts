// Test results cached by everything that decides them: the image (by id: its repository, runner and
// toolchain), the feature's tests patch, the code under test, and the limits the runner ran under.
// A result is only ever reused for byte-identical inputs, so it cannot be stale.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Feature } from '../../tasks/types.ts';
import type { TestRun, TestSettings } from './test-run.ts';

export interface TestCacheKey {
  imageId: string;
  testsHash: string;
  patchHash: string;
  /** Container limits, time limit and output bound, as JSON. */
  settings: string;
}

export interface TestCache {
  get(key: TestCacheKey): TestRun | undefined;
  put(key: TestCacheKey, run: TestRun): void;
}

export const sha256 = (content: string | Buffer): string => createHash('sha256').update(content).digest('hex');

export async function testCacheKey(feature: Feature, patch: string, options: TestSettings): Promise<TestCacheKey> {
  return {
    imageId: options.image.id,
    testsHash: sha256(await readFile(feature.testsPatchPath)),
    patchHash: sha256(patch),
    settings: JSON.stringify({ limits: options.limits, timeoutMs: options.timeoutMs, maxOutputBytes: options.maxOutputBytes ?? null }),
  };
}
