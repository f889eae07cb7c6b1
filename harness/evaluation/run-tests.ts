// One feature's hidden tests on one patch, in a fresh container from the pool image:
// `runner.sh tests.patch patch.patch` with both under /patches/; exit 0 iff the tests pass.
import { readFileSync } from 'node:fs';
import type { Feature } from '../../tasks/types.ts';
import { attachOutput, createContainer, removeContainer, tarOf, type ContainerLimits } from '../docker/sandbox.ts';
import { containerLabels } from '../docker/containers.ts';
import { failureCause, parseTestCounts, type TestCounts } from './parse-results.ts';

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
}

export interface TestRunOptions {
  image: string;
  run: string;
  limits: ContainerLimits;
  timeoutMs: number;
  maxOutputBytes?: number;
}

export async function runFeatureTests(feature: Feature, patch: string, options: TestRunOptions): Promise<TestRun> {
  const started = Date.now();
  const files = [{ path: '/patches/tests.patch', content: readFileSync(feature.testsPatchPath) }];
  // An empty patch means "no implementation": runners are called without one.
  if (patch.trim()) files.push({ path: '/patches/patch.patch', content: Buffer.from(patch) });
  const container = await createContainer({
    image: options.image,
    labels: containerLabels(options.run, 'test'),
    limits: options.limits,
    entrypoint: [RUNNER],
    cmd: files.map((f) => f.path.replace('/patches/', '')),
  });
  try {
    await container.putArchive(await tarOf(files), { path: '/' });
    const { sink, done } = await attachOutput(container, options.maxOutputBytes ?? 256 * 1024);
    await container.start();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      // A container that cannot be killed is removed: either way wait() returns.
      container.kill().catch(() => container.remove({ force: true })).catch(() => undefined);
    }, options.timeoutMs);
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    clearTimeout(timer);
    await done;
    const output = sink.text();
    const passed = !timedOut && StatusCode === 0;
    return {
      passed,
      exitCode: timedOut ? null : StatusCode,
      timedOut,
      counts: parseTestCounts(output),
      cause: passed ? undefined : timedOut ? `timeout: the tests ran longer than ${Math.round(options.timeoutMs / 1000)} s` : failureCause(output),
      output,
      durationMs: Date.now() - started,
    };
  } finally {
    await removeContainer(container);
  }
}
