// Where and when a task's features' tests run. Test suites are CPU-bound: running more of them at
// once than the place has cores makes each slower and none sooner, and every sandbox costs the
// engine a start. So on a place whose sandboxes share cores (a Docker engine), every feature run
// takes one of the place's cores, first come first served across the tasks testing there, and runs
// in a sandbox its task holds. A core that ends a run goes on with its task's next feature in the
// same sandbox (CooperBench's one container per pair: the runner resets the repository), and when
// the task has no feature left, to the next task waiting. So a task alone (the last of a run)
// spreads its features over the free cores, tasks testing at once never run more suites than
// cores, and no core waits while a task's merge runs or its last feature ends. A cluster gives
// each sandbox cores of its own: one sandbox per feature, all at once. docs/performance.md measures it.
import pLimit, { type LimitFunction } from 'p-limit';
import { readFile } from 'node:fs/promises';
import type { Feature } from '../../tasks/types.ts';
import type { BackendSlot, TestSequence } from '../sandbox/types.ts';
import { FeatureTests, cachedTestRun, keptTestRun, sandboxSpec, type TestRunOptions } from './run-tests.ts';
import type { TestRun } from './test-run.ts';

/** A task's tests on the code its merge produces, in feature order. */
export interface TaskTests {
  /** Each feature's result on `patch`: from the cache, or run now (then cached). The first patch gets the sandboxes started ahead. */
  run(patch: string): Promise<TestRun[]>;
  /** Hands back the sandboxes started ahead that no run used. */
  close(): Promise<void>;
}

/**
 * The tests of `features`. `startAhead`: a sandbox is started now, while the merge runs (not when the
 * cache is expected to answer).
 */
export function taskTests(features: Feature[], options: TestRunOptions, startAhead: boolean): TaskTests {
  const { slot } = options;
  return slot.startTestSequence && slot.sharedCores ? onSharedCores(features, options, startAhead) : sandboxPerFeature(features, options, startAhead);
}

/** Each place's cores, by `where` (the cores are the place's, whatever slot object or wrapper of one a task holds). */
const placeCores = new Map<string, Promise<LimitFunction>>();

function coresOf(slot: BackendSlot): Promise<LimitFunction> {
  let cores = placeCores.get(slot.where);
  if (!cores) {
    cores = slot.sharedCores!().then((count) => pLimit(count));
    placeCores.set(slot.where, cores);
    // An engine that did not answer is asked again by the next task.
    cores.catch(() => placeCores.delete(slot.where));
  }
  return cores;
}

/** Awaited when used; a failed start is reported there. */
function quiet<T>(started: Promise<T>): Promise<T> {
  started.catch(() => undefined);
  return started;
}

function onSharedCores(features: Feature[], options: TestRunOptions, startAhead: boolean): TaskTests {
  const start = () => quiet(options.slot.startTestSequence!(sandboxSpec(options)));
  const handBack = async (sandbox: Promise<TestSequence> | undefined) => (await sandbox?.catch(() => undefined))?.release();
  let ahead = startAhead ? start() : undefined;
  return {
    async run(patch) {
      let held = ahead;
      ahead = undefined;
      try {
        const cached = await Promise.all(features.map((feature) => cachedTestRun(feature, patch, options)));
        const waiting = features.filter((_, i) => !cached[i]);
        const fresh = new Map<Feature, TestRun>();
        // A sandbox of the task on a core: features one after another, while the task has any left.
        const lane = async () => {
          if (waiting.length === 0) return;
          const taken = held ?? start();
          held = undefined;
          try {
            const sandbox = await taken;
            try {
              for (let feature = waiting.shift(); feature; feature = waiting.shift()) {
                const raw = await sandbox.run(await readFile(feature.testsPatchPath), patch);
                fresh.set(feature, await keptTestRun(feature, patch, options, raw));
              }
            } finally {
              await sandbox.release();
            }
          } catch (error) {
            // The task fails: its other lanes start nothing more.
            waiting.length = 0;
            throw error;
          }
        };
        const cores = await coresOf(options.slot);
        // Every lane ends before the task does, so that none runs on after its error is reported.
        const lanes = await Promise.allSettled(waiting.map(() => cores(lane)));
        const failed = lanes.find((settled) => settled.status === 'rejected');
        if (failed) throw failed.reason;
        return features.map((feature, i) => cached[i] ?? fresh.get(feature)!);
      } finally {
        await handBack(held);
      }
    },
    close: () => handBack(ahead),
  };
}

function sandboxPerFeature(features: Feature[], options: TestRunOptions, startAhead: boolean): TaskTests {
  const discard = async (sandbox: Promise<FeatureTests> | undefined) => (await sandbox?.catch(() => undefined))?.discard();
  let ahead = startAhead ? features.map((feature) => quiet(FeatureTests.start(feature, options))) : [];
  return {
    async run(patch) {
      const held = ahead;
      ahead = [];
      return Promise.all(
        features.map(async (feature, i) => {
          const cached = await cachedTestRun(feature, patch, options);
          if (cached) await discard(held[i]);
          return cached ?? (await (held[i] ?? FeatureTests.start(feature, options))).run(patch);
        }),
      );
    },
    close: async () => void (await Promise.all(ahead.map(discard))),
  };
}
