// One feature's hidden tests on one patch, in a test sandbox of the task's backend slot:
// `runner.sh tests.patch patch.patch`; exit 0 iff the tests pass. The sandbox can be started before
// the code to test exists (while the merge runs). Here: what the run means (parsing) and the cache.
import { readFileSync } from 'node:fs';
import type { Feature } from '../../tasks/types.ts';
import type { BackendSlot, PendingTestRun, RawTestRun, TestSequenceSpec } from '../sandbox/types.ts';
import { failureCause, parseTestCounts } from './parse-results.ts';
import { testCacheKey, type TestCache } from './test-cache.ts';
import type { TestRun, TestSettings } from './test-run.ts';

export interface TestRunOptions extends TestSettings {
  /** The backend share the task runs on. */
  slot: BackendSlot;
  run: string;
  /** The task's row in the run store, when there is one. */
  task?: number;
  /** Results of earlier runs on the same inputs; absent: every run is a fresh one. */
  cache?: TestCache;
  /**
   * Keep test sandboxes started ahead for the next tasks (a run's evaluations; the run removes the
   * spares at its end). Default false: nothing outlives the evaluation.
   */
  keepWarm?: boolean;
}

const DEFAULT_MAX_OUTPUT = 256 * 1024;

/** What a test sandbox is started with, whatever it will test. */
export function sandboxSpec(options: TestRunOptions): TestSequenceSpec {
  return {
    image: options.image,
    run: options.run,
    task: options.task,
    limits: options.limits,
    timeoutMs: options.timeoutMs,
    maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT,
    keepWarm: options.keepWarm,
  };
}

/** A started test sandbox for one feature, waiting for the code to test. */
export class FeatureTests {
  private constructor(
    private readonly pending: PendingTestRun,
    private readonly feature: Feature,
    private readonly options: TestRunOptions,
  ) {}

  static async start(feature: Feature, options: TestRunOptions): Promise<FeatureTests> {
    const pending = await options.slot.startTestRun({ ...sandboxSpec(options), testsPatch: readFileSync(feature.testsPatchPath) });
    return new FeatureTests(pending, feature, options);
  }

  /** Runs the tests on `patch`, stores the result in the cache; the sandbox is removed. */
  async run(patch: string): Promise<TestRun> {
    return keptTestRun(this.feature, patch, this.options, await this.pending.run(patch));
  }

  /** Removes the sandbox without running anything (the merge left nothing to test, or the cache answered). */
  async discard(): Promise<void> {
    await this.pending.discard();
  }
}

/** What a run of the runner means; stored in the cache when it may be reused. */
export async function keptTestRun(feature: Feature, patch: string, options: TestRunOptions, raw: RawTestRun): Promise<TestRun> {
  const result = testRun(raw, options.timeoutMs);
  if (reusable(result)) options.cache?.put(await testCacheKey(feature, patch, options), result);
  return result;
}

function testRun(raw: RawTestRun, timeoutMs: number): TestRun {
  const { output, exitCode, timedOut, durationMs } = raw;
  const passed = exitCode === 0 && !timedOut;
  return {
    passed,
    exitCode,
    timedOut,
    counts: parseTestCounts(output),
    cause: passed ? undefined : timedOut ? `timeout: the tests ran longer than ${Math.round(timeoutMs / 1000)} s` : failureCause(output),
    output,
    durationMs,
  };
}

/**
 * Whether a result says something about the code and may be reused. A timeout says more about the
 * machine's load, and a runner killed by a signal (exit 128+n: a stopped run removing its
 * containers, `docker kill`, the OOM killer) about what happened around it: such a run is done
 * again next time, also when an earlier version of coop-bench cached it.
 */
function reusable(run: TestRun): boolean {
  return !run.timedOut && run.exitCode !== null && run.exitCode < 128;
}

/** The cached result for these inputs, if any. */
export async function cachedTestRun(feature: Feature, patch: string, options: TestRunOptions): Promise<TestRun | undefined> {
  const hit = options.cache?.get(await testCacheKey(feature, patch, options));
  return hit && reusable(hit) ? { ...hit, cached: true } : undefined;
}

/** The feature's tests on `patch`: from the cache, or in a fresh sandbox. */
export async function runFeatureTests(feature: Feature, patch: string, options: TestRunOptions): Promise<TestRun> {
  return (await cachedTestRun(feature, patch, options)) ?? (await FeatureTests.start(feature, options)).run(patch);
}
