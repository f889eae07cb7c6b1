// How a task's features' tests are spread over sandboxes. Test suites are CPU-bound: running more
// of them at once than the place has cores makes each slower and none sooner, and every sandbox
// costs the engine a start. So on a place whose sandboxes share cores (a Docker engine), a task
// whose tests start while others' are running takes one sandbox and runs its features one after
// another (CooperBench's one container per pair), and a task that has the cores to itself (alone,
// or the last of a run) spreads its features over as many sandboxes as there are cores for it.
// A cluster gives each sandbox cores of its own: one per feature. docs/performance.md measures it.
import type { Feature } from '../../tasks/types.ts';
import type { BackendSlot } from '../sandbox/types.ts';
import { FeatureTests, cachedTestRun, keptTestRun, sandboxSpec, type TestRun, type TestRunOptions } from './run-tests.ts';
import { readFile } from 'node:fs/promises';

/** `features` in `width` groups of consecutive features, sizes differing by one at most. */
export function splitFeatures<T>(features: T[], width: number): T[][] {
  const groups = Math.max(1, Math.min(features.length, Math.floor(width)));
  const out: T[][] = [];
  for (let g = 0, at = 0; g < groups; g++) {
    const size = Math.ceil((features.length - at) / (groups - g));
    out.push(features.slice(at, at + size));
    at += size;
  }
  return out;
}

/** How many sandboxes a task's tests use: the cores per task testing on the place (this one included). */
export function testWidth(features: number, cores: number | undefined, testing: number): number {
  if (cores === undefined) return features;
  return Math.max(1, Math.min(features, Math.floor(cores / Math.max(1, testing))));
}

/**
 * Tasks under evaluation, per place (`where`: the cores are the place's, whatever slot object or
 * wrapper of one a task holds).
 */
const testing = new Map<string, number>();

/** Counts a task as testing on its place until `done` is called; returns its share of the cores. */
export async function enterTesting(slot: BackendSlot, features: number): Promise<{ width: number; done(): void }> {
  const cores = slot.startTestSequence && slot.sharedCores ? await slot.sharedCores() : undefined;
  const now = (testing.get(slot.where) ?? 0) + 1;
  testing.set(slot.where, now);
  let counted = true;
  return {
    width: testWidth(features, cores, now),
    done() {
      if (!counted) return;
      counted = false;
      const others = (testing.get(slot.where) ?? 1) - 1;
      if (others > 0) testing.set(slot.where, others);
      else testing.delete(slot.where);
    },
  };
}

/** A sandbox started for some of a task's features, waiting for the code to test. */
export interface StartedTests {
  /** Each feature's result on `patch`: from the cache, or run here (then cached); the sandbox is removed. */
  run(patch: string): Promise<TestRun[]>;
  /** Removes (or hands back) the sandbox without running anything. */
  discard(): Promise<void>;
}

/** A sandbox for `features`, started now: one after another in one sandbox, or one feature's alone. */
export async function startTests(features: Feature[], options: TestRunOptions): Promise<StartedTests> {
  const { slot } = options;
  if (features.length === 1 && !slot.startTestSequence) {
    const tests = await FeatureTests.start(features[0]!, options);
    return {
      async run(patch) {
        const cached = await cachedTestRun(features[0]!, patch, options);
        if (cached) await tests.discard();
        return [cached ?? (await tests.run(patch))];
      },
      discard: () => tests.discard(),
    };
  }
  if (!slot.startTestSequence) throw new Error('this backend runs one feature per test sandbox');
  const pending = await slot.startTestSequence(sandboxSpec(options));
  return {
    async run(patch) {
      const cached = await Promise.all(features.map((feature) => cachedTestRun(feature, patch, options)));
      const fresh = features.filter((_, i) => !cached[i]);
      if (fresh.length === 0) {
        await pending.discard();
        return cached as TestRun[];
      }
      const raws = await pending.run(await Promise.all(fresh.map((feature) => readFile(feature.testsPatchPath))), patch);
      const runs = await Promise.all(fresh.map((feature, i) => keptTestRun(feature, patch, options, raws[i]!)));
      return cached.map((hit) => hit ?? runs.shift()!);
    },
    discard: () => pending.discard(),
  };
}
