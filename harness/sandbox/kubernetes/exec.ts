// A command in a pod through the exec subresource (client-node's Exec: a WebSocket speaking
// v5.channel.k8s.io, or v4 on older clusters): stdout and stderr arrive on channels 1 and 2, the
// exit status as a Status object on channel 3.
import { PassThrough, type Writable } from 'node:stream';
import type { V1Status } from '@kubernetes/client-node';
import { errorMessage } from '../../errors.ts';
import { CONTAINER } from './pods.ts';
import { KubernetesError, type Cluster } from './cluster.ts';

export interface PodExec {
  stdout: Writable;
  stderr: Writable;
  /**
   * Given to the command on stdin. The stream is never closed: v4 has no way to close stdin but
   * closing the whole connection, so commands read exactly the bytes they expect (`head -c N`).
   */
  stdin?: Buffer;
  /** Past this the connection is dropped and the result is null. */
  deadlineMs: number;
  signal?: AbortSignal;
}

/**
 * The size of one stdin message. An API server stops reading a WebSocket message at 32 MB
 * (golang.org/x/net/websocket DefaultMaxPayloadBytes, which wsstream uses; client-java PR #1315 and
 * the C# client split stdin for this reason): an agent CLI's binary or a large patch goes in pieces.
 */
export const STDIN_CHUNK_BYTES = 1024 * 1024;

/**
 * The exit code in the exec's final Status: Success is 0; NonZeroExitCode carries it as the cause
 * of type ExitCode (k8s.io/apimachinery/pkg/util/remotecommand: NonZeroExitCodeReason,
 * ExitCodeCauseType). Any other failure (the container is gone, the runtime failed) is an error.
 */
export function exitCodeOf(status: V1Status): number {
  if (status.status === 'Success') return 0;
  const cause = status.reason === 'NonZeroExitCode' ? status.details?.causes?.find((c) => c.reason === 'ExitCode') : undefined;
  const code = cause?.message === undefined ? NaN : Number(cause.message);
  if (Number.isInteger(code)) return code;
  throw new KubernetesError(`exec failed: ${status.message ?? status.reason ?? JSON.stringify(status)}`);
}

/** Runs `command` in the pod's container; resolves with its exit code, or null when the deadline passed. */
export async function execInPod(cluster: Cluster, pod: string, command: string[], io: PodExec): Promise<number | null> {
  io.signal?.throwIfAborted();
  let stdin: PassThrough | null = null;
  if (io.stdin) {
    stdin = new PassThrough();
    // client-node sends each chunk the stream gives as one message.
    for (let at = 0; at < io.stdin.length; at += STDIN_CHUNK_BYTES) stdin.write(io.stdin.subarray(at, at + STDIN_CHUNK_BYTES));
  }
  let status: V1Status | undefined;
  let socket: Awaited<ReturnType<typeof cluster.exec.exec>>;
  try {
    socket = await cluster.exec.exec(cluster.namespace, pod, CONTAINER, command, io.stdout, io.stderr, stdin, false, (s) => {
      status = s;
    });
  } catch (error) {
    throw new KubernetesError(`exec in pod ${pod} failed: ${errorMessage(error)}`, { cause: error });
  }
  let deadlinePassed = false;
  try {
    await new Promise<void>((resolve, reject) => {
      if (socket.readyState === socket.CLOSED) return resolve();
      const timer = setTimeout(() => {
        deadlinePassed = true;
        socket.terminate();
      }, io.deadlineMs);
      const abort = () => {
        clearTimeout(timer);
        socket.terminate();
        reject(io.signal!.reason);
      };
      io.signal?.addEventListener('abort', abort, { once: true });
      socket.on('close', () => {
        clearTimeout(timer);
        io.signal?.removeEventListener('abort', abort);
        resolve();
      });
    });
  } finally {
    stdin?.destroy();
  }
  if (status) return exitCodeOf(status);
  if (deadlinePassed) return null;
  throw new KubernetesError(`exec in pod ${pod}: the connection closed before the command's exit status arrived`);
}
