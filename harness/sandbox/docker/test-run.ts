// One feature's hidden tests in a fresh container from the pool image: `runner.sh tests.patch
// patch.patch` with both under /patches/. The container is created and started before the code to
// test exists (while the merge runs): it waits for the patches on its stdin, then runs the runner
// as the pool defines it.
import type Docker from 'dockerode';
import type { PendingTestRun, RawTestRun, TestRunSpec } from '../types.ts';
import { containerLabels } from '../labels.ts';
import type { PoolImage } from './images.ts';
import { attachStreams, createContainer, removeContainer } from './sandbox.ts';

export const RUNNER = '/usr/local/bin/runner.sh';

// Both patches arrive on stdin: first the tests patch (its size is the script's argument), sent at
// once, then the code to test, sent when it exists. An empty patch means "no implementation": the
// runner is called without one. Needs /bin/sh, head and cat, which every image with a runner.sh has.
// (No putArchive: each one costs the engine a helper process.)
const READ_PATCHES_THEN_RUN = `mkdir -p /patches && head -c "$1" > /patches/tests.patch && cat > /patches/patch.patch || exit 125
if [ -s /patches/patch.patch ]; then exec ${RUNNER} tests.patch patch.patch; fi
rm -f /patches/patch.patch
exec ${RUNNER} tests.patch`;

export async function startTestContainer(image: PoolImage, spec: TestRunSpec): Promise<PendingTestRun> {
  const container = await createContainer(image.engine, {
    image: image.id,
    labels: containerLabels(spec.run, 'test', { task: spec.task }),
    limits: spec.limits,
    entrypoint: ['/bin/sh', '-c', READ_PATCHES_THEN_RUN, 'coop-bench-tests', String(spec.testsPatch.length)],
    stdinOnce: true,
  });
  let streams: Awaited<ReturnType<typeof attachStreams>>;
  try {
    streams = await attachStreams(container, spec.maxOutputBytes);
    await container.start();
    streams.stdin.write(spec.testsPatch);
  } catch (error) {
    await removeContainer(container);
    throw error;
  }
  return {
    run: (patch) => runTests(container, streams, patch, spec.timeoutMs),
    async discard() {
      streams.stdin.destroy();
      await removeContainer(container);
    },
  };
}

async function runTests(
  container: Docker.Container,
  streams: Awaited<ReturnType<typeof attachStreams>>,
  patch: string,
  timeoutMs: number,
): Promise<RawTestRun> {
  const started = Date.now();
  try {
    streams.stdin.end(patch);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      // A container that cannot be killed is removed: either way wait() returns.
      container
        .kill()
        .catch(() => container.remove({ force: true }))
        .catch(() => undefined);
    }, timeoutMs);
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    clearTimeout(timer);
    await streams.done;
    return { exitCode: timedOut ? null : StatusCode, timedOut, output: streams.sink.text(), durationMs: Date.now() - started };
  } finally {
    await removeContainer(container);
  }
}
