// A feature's hidden tests in a pod of their own: started ahead (while the merge runs), then both
// patches go in on exec stdin and the pool's runner runs as it does under Docker.
import type { PendingTestRun, RawTestRun, TestRunSpec } from '../types.ts';
import { PodStoppedError, type Cluster } from './cluster.ts';
import { pinnedImage } from './images.ts';
import { PodSandbox } from './pod-sandbox.ts';
import { podLabels, type PodTracker } from './pods.ts';
import type { ContainerLimits, ExecOptions, ExecResult } from '../types.ts';

const RUNNER = '/usr/local/bin/runner.sh';

// "$0" and "$1": the sizes of the tests patch and of the code to test, read from stdin in that
// order. An empty patch means "no implementation": the runner is called without one. The runner's
// stderr joins its stdout so that the output keeps its order, and its stdin is at end of file, as
// under Docker (here the exec's stdin stays open: see PodExec.stdin).
const READ_PATCHES_THEN_RUN = `mkdir -p /patches && head -c "$0" > /patches/tests.patch && head -c "$1" > /patches/patch.patch || exit 125
if [ -s /patches/patch.patch ]; then exec ${RUNNER} tests.patch patch.patch </dev/null 2>&1; fi
rm -f /patches/patch.patch
exec ${RUNNER} tests.patch </dev/null 2>&1`;

/**
 * The tests' run; when their code exhausted the pod's memory or disk, the result Docker gives for
 * it. Since Kubernetes 1.28 on cgroup v2 the kubelet sets memory.oom.group (kubernetes PR #117793):
 * one OOM kill stops every process of the container and the pod fails, where Docker kills one
 * process and the runner reports the tests failed. A pod that writes past its ephemeral-storage
 * limit is evicted, where Docker's storage quota makes the write fail. Either way the code under
 * test exhausted what its tests may use: a failure of the code, exit 137 (128 + SIGKILL, how the
 * kubelet stops it), not an error of the cluster.
 */
async function runOrExhausted(sandbox: PodSandbox, cmd: string[], input: Buffer, options: ExecOptions, limits: ContainerLimits): Promise<ExecResult> {
  try {
    return await sandbox.execWithInput(cmd, input, options);
  } catch (error) {
    if (!(error instanceof PodStoppedError && (error.outOfMemory || error.overDiskLimit))) throw error;
    const what = error.outOfMemory
      ? `ran out of memory (the pod's limit is ${limits.memoryBytes} bytes); Kubernetes stopped the whole pod (OOMKilled)`
      : `wrote past the pod's ephemeral-storage limit; Kubernetes evicted the pod (${error.how})`;
    const output = `${error.output}\ncoop-bench: the tests ${what}\n`;
    return { exitCode: 137, stdout: output, stderr: '', timedOut: false, truncated: false };
  }
}

export async function startTestPod(cluster: Cluster, pods: PodTracker, spec: TestRunSpec): Promise<PendingTestRun> {
  const sandbox = await PodSandbox.start(cluster, pods, 'test', {
    image: pinnedImage(spec.image),
    labels: podLabels(spec.run, 'test', { task: spec.task }),
    limits: spec.limits,
  });
  return {
    async run(patch: string): Promise<RawTestRun> {
      const code = Buffer.from(patch, 'utf8');
      const started = Date.now();
      try {
        const result = await runOrExhausted(
          sandbox,
          ['sh', '-c', READ_PATCHES_THEN_RUN, String(spec.testsPatch.length), String(code.length)],
          Buffer.concat([spec.testsPatch, code]),
          {
            timeoutMs: spec.timeoutMs,
            maxOutputBytes: spec.maxOutputBytes,
          },
          spec.limits,
        );
        const durationMs = Date.now() - started;
        // 137 is also what an out-of-memory kill gives: only a run that lasted its limit timed out.
        const timedOut = result.timedOut && durationMs >= spec.timeoutMs;
        return { exitCode: timedOut ? null : result.exitCode, timedOut, output: result.stdout + result.stderr, durationMs };
      } finally {
        await sandbox.remove();
      }
    },
    discard: () => sandbox.remove(),
  };
}
