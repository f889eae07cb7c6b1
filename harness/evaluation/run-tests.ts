// One feature's hidden tests on one patch, in a fresh container from the pool image:
// `runner.sh tests.patch patch.patch` with both under /patches/; exit 0 iff the tests pass.
// The container can be created and started before the code to test exists (while the merge runs):
// it waits for the patches on its stdin, then runs the runner as the pool defines it.
import { readFileSync } from 'node:fs';
import type Docker from 'dockerode';
import type { Feature } from '../../tasks/types.ts';
import type { PoolImage } from '../docker/images.ts';
import { attachStreams, createContainer, removeContainer, type ContainerLimits } from '../docker/sandbox.ts';
import type { BoundedSink } from '../docker/output.ts';
import { containerLabels } from '../docker/containers.ts';
import { failureCause, parseTestCounts, type TestCounts } from './parse-results.ts';
import { testCacheKey, type TestCache } from './test-cache.ts';

export const RUNNER = '/usr/local/bin/runner.sh';

export interface TestRun {
  passed: boolean;
  exitCode: number | null;
  timedOut: boolean;
  counts?: TestCounts;
  /** Why it failed, in one line, when known. */
  cause?: string;
  /** Runner output, head and tail kept. */
  output: string;
  durationMs: number;
  /** Taken from the test cache: the same image, tests and code were run before (durationMs is that run's). */
  cached?: boolean;
}

export interface TestRunOptions {
  image: PoolImage;
  run: string;
  limits: ContainerLimits;
  timeoutMs: number;
  maxOutputBytes?: number;
  /** Results of earlier runs on the same inputs; absent: every run is a fresh one. */
  cache?: TestCache;
}

const DEFAULT_MAX_OUTPUT = 256 * 1024;

// Both patches arrive on stdin: first the tests patch (its size is the script's argument), sent at
// once, then the code to test, sent when it exists. An empty patch means "no implementation": the
// runner is called without one. Needs /bin/sh, head and cat, which every image with a runner.sh has.
// (No putArchive: each one costs the engine a helper process.)
const READ_PATCHES_THEN_RUN = `mkdir -p /patches && head -c "$1" > /patches/tests.patch && cat > /patches/patch.patch || exit 125
if [ -s /patches/patch.patch ]; then exec ${RUNNER} tests.patch patch.patch; fi
rm -f /patches/patch.patch
exec ${RUNNER} tests.patch`;

/** A started test container for one feature, waiting for the code to test. */
export class TestContainer {
  private constructor(
    private readonly container: Docker.Container,
    private readonly streams: Awaited<ReturnType<typeof attachStreams>>,
    private readonly feature: Feature,
    private readonly options: TestRunOptions,
  ) {}

  static async start(feature: Feature, options: TestRunOptions): Promise<TestContainer> {
    const testsPatch = readFileSync(feature.testsPatchPath);
    const container = await createContainer(options.image.engine, {
      image: options.image.id,
      labels: containerLabels(options.run, 'test'),
      limits: options.limits,
      entrypoint: ['/bin/sh', '-c', READ_PATCHES_THEN_RUN, 'coop-bench-tests', String(testsPatch.length)],
      stdinOnce: true,
    });
    try {
      const streams = await attachStreams(container, options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT);
      await container.start();
      streams.stdin.write(testsPatch);
      return new TestContainer(container, streams, feature, options);
    } catch (error) {
      await removeContainer(container);
      throw error;
    }
  }

  /** Runs the tests on `patch`, stores the result in the cache, and removes the container. */
  async run(patch: string): Promise<TestRun> {
    const { timeoutMs } = this.options;
    const started = Date.now();
    try {
      this.streams.stdin.end(patch);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        // A container that cannot be killed is removed: either way wait() returns.
        this.container.kill().catch(() => this.container.remove({ force: true })).catch(() => undefined);
      }, timeoutMs);
      const { StatusCode } = (await this.container.wait()) as { StatusCode: number };
      clearTimeout(timer);
      await this.streams.done;
      const result = testRun(this.streams.sink, timedOut ? null : StatusCode, timeoutMs, Date.now() - started);
      if (reusable(result)) this.options.cache?.put(await testCacheKey(this.feature, patch, this.options), result);
      return result;
    } finally {
      await removeContainer(this.container);
    }
  }

  /** Removes the container without running anything (the merge left nothing to test, or the cache answered). */
  async discard(): Promise<void> {
    this.streams.stdin.destroy();
    await removeContainer(this.container);
  }
}

function testRun(sink: BoundedSink, exitCode: number | null, timeoutMs: number, durationMs: number): TestRun {
  const output = sink.text();
  const timedOut = exitCode === null;
  const passed = exitCode === 0;
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

/** The feature's tests on `patch`: from the cache, or in a fresh container. */
export async function runFeatureTests(feature: Feature, patch: string, options: TestRunOptions): Promise<TestRun> {
  return (await cachedTestRun(feature, patch, options)) ?? (await TestContainer.start(feature, options)).run(patch);
}
