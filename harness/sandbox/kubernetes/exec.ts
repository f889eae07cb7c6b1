// A command in a pod through the exec subresource (client-node's Exec: a WebSocket speaking
// v5.channel.k8s.io, or v4 on older clusters): stdout and stderr arrive on channels 1 and 2, the
// exit status as a Status object on channel 3. The command itself travels on stdin, not in the URL
// (an API server reads request lines up to 1 MB, proxies in front of it often 8 KB); the
// connection is pinged while the command runs; an upgrade the server refused is tried again.
import { PassThrough, type Writable } from 'node:stream';
import type { V1Status } from '@kubernetes/client-node';
import { errorMessage } from '../../errors.ts';
import { CONTAINER } from './pods.ts';
import { KubernetesError, REFUSAL_HINTS, type Cluster } from './cluster.ts';
import { ATTEMPTS, isRetryable, sleep, waitBefore, withTimeout } from './retry.ts';

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

/**
 * Pings on a running exec: load balancers in front of API servers cut connections idle for 20 s
 * (haproxy in kubeadm's HA example) or 60 s (AWS ELB); client-go's WebSocket executor, which kubectl
 * uses, pings every 5 s (remotecommand pingPeriod).
 */
export const PING_INTERVAL_MS = 5000;
/** No pong for this long: the connection is dead though no close arrived. */
const PONG_TIMEOUT_MS = 30_000;
/** The WebSocket upgrade (TLS, authentication, the kubelet's answer). */
const UPGRADE_TIMEOUT_MS = 30_000;

const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;
const SCRIPT_END = '# coop-bench: end of command';
// "$0": the script's size in bytes. Only a script that arrived whole runs: one cut short by a broken
// connection lacks its last line.
const RUN_SCRIPT_FROM_STDIN = `script=$(head -c "$0") && case $script in *"${SCRIPT_END}") eval "$script" ;; *) exit 125 ;; esac`;

/**
 * `command` as the exec's URL names it (a fixed `sh -c` that reads a script of the given size from
 * stdin) and the script (the command, its arguments quoted, stdin at end of file when no input
 * follows), which goes first on stdin.
 */
export function commandScript(command: string[], withInput: boolean): { argv: string[]; script: Buffer } {
  const script = Buffer.from(`exec ${command.map(quote).join(' ')}${withInput ? '' : ' </dev/null'}\n${SCRIPT_END}`, 'utf8');
  return { argv: ['sh', '-c', RUN_SCRIPT_FROM_STDIN, String(script.length)], script };
}

type ExecSocket = Awaited<ReturnType<Cluster['exec']['exec']>>;

/** What a failed upgrade says: client-node rejects with the WebSocket's error event, whose message is not an Error's. */
function upgradeError(error: unknown): string {
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : errorMessage(error);
}

/** The HTTP status a refused upgrade answered (ws: "Unexpected server response: 503"). */
function upgradeStatus(error: unknown): number | undefined {
  const m = /Unexpected server response: (\d{3})/.exec(upgradeError(error));
  return m ? Number(m[1]) : undefined;
}

/**
 * Opens the exec connection. Nothing has run while it is not open (the command waits for its script
 * on stdin), so a refused, reset or hung upgrade is tried again, as other safe calls are (retry.ts).
 */
async function openExec(cluster: Cluster, pod: string, argv: string[], io: PodExec, onStatus: (status: V1Status) => void): Promise<ExecSocket> {
  for (let attempt = 1; ; attempt++) {
    try {
      // A stdin stream that stays empty: the query asks for stdin, and its bytes are sent below, in pieces.
      const opening = cluster.exec.exec(cluster.namespace, pod, CONTAINER, argv, io.stdout, io.stderr, new PassThrough(), false, onStatus);
      return await withTimeout(opening, UPGRADE_TIMEOUT_MS, (late) => late.terminate());
    } catch (error) {
      const code = upgradeStatus(error);
      if (attempt >= ATTEMPTS || !isRetryable(code, error) || io.signal?.aborted)
        // A refused upgrade's Status body does not reach us: a 403 here is RBAC (create on pods/exec).
        throw new KubernetesError(`exec in pod ${pod} failed: ${upgradeError(error)}${code === 403 ? REFUSAL_HINTS.rbac : ''}`, { cause: error, code });
      await sleep(waitBefore(attempt));
    }
  }
}

/** Sends `bytes` on stdin in messages of STDIN_CHUNK_BYTES, each after the one before left. */
async function sendStdin(socket: ExecSocket, bytes: Buffer): Promise<void> {
  for (let at = 0; at < bytes.length; at += STDIN_CHUNK_BYTES) {
    const message = Buffer.concat([Buffer.from([0]), bytes.subarray(at, at + STDIN_CHUNK_BYTES)]);
    await new Promise<void>((resolve, reject) => socket.send(message, (error?: Error) => (error ? reject(error) : resolve())));
  }
}

/**
 * Runs `command` in the pod's container; resolves with its exit code, or null when the deadline
 * passed. A connection that breaks once the command runs cannot be joined again (an exec session
 * has no reattach): the result is lost, and that is a KubernetesError (the task is an
 * infrastructure error, recorded and run again on resume), never a result of the command.
 */
export async function execInPod(cluster: Cluster, pod: string, command: string[], io: PodExec): Promise<number | null> {
  io.signal?.throwIfAborted();
  const { argv, script } = commandScript(command, io.stdin !== undefined);
  let status: V1Status | undefined;
  const socket = await openExec(cluster, pod, argv, io, (s) => {
    status = s;
  });
  const started = Date.now();
  let deadlinePassed = false;
  let unanswered = false;
  await new Promise<void>((resolve, reject) => {
    if (socket.readyState === socket.CLOSED) return resolve();
    let answered = Date.now();
    socket.on('pong', () => {
      answered = Date.now();
    });
    const pinger = setInterval(() => {
      if (Date.now() - answered > PONG_TIMEOUT_MS) {
        unanswered = true;
        socket.terminate();
      } else if (socket.readyState === socket.OPEN) socket.ping();
    }, PING_INTERVAL_MS);
    const timer = setTimeout(() => {
      deadlinePassed = true;
      socket.terminate();
    }, io.deadlineMs);
    const abort = () => {
      stop();
      socket.terminate();
      reject(io.signal!.reason);
    };
    const stop = () => {
      clearInterval(pinger);
      clearTimeout(timer);
      io.signal?.removeEventListener('abort', abort);
    };
    io.signal?.addEventListener('abort', abort, { once: true });
    socket.on('close', () => {
      stop();
      resolve();
    });
    // A command that exits before reading all of its input closes the connection under the sending.
    sendStdin(socket, io.stdin ? Buffer.concat([script, io.stdin]) : script).catch(() => undefined);
  });
  if (status) return exitCodeOf(status);
  if (deadlinePassed) return null;
  const how = unanswered ? `stopped answering pings for ${PONG_TIMEOUT_MS / 1000} s` : 'closed';
  throw new KubernetesError(
    `exec in pod ${pod}: the connection ${how} ${Math.round((Date.now() - started) / 1000)} s after the command started, before its exit status arrived; its result is lost`,
  );
}
