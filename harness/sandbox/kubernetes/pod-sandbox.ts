// A sandbox backed by one pod: exec with the same bounded-run discipline as Docker's, files read
// through `cat` and written through exec stdin (no shared volumes, no `kubectl cp` tar).
import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import type { V1Pod } from '@kubernetes/client-node';
import { BoundedSink, observed } from '../output.ts';
import { boundedCommand, DEFAULT_MAX_OUTPUT_BYTES, EXEC_GRACE_MS, limitSeconds } from '../bounded-run.ts';
import type { AgentSandbox, ExecOptions, ExecResult, HostFile } from '../types.ts';
import { formatGiB, SandboxLimitError } from '../errors.ts';
import { KubernetesError, PodStoppedError, type Cluster } from './cluster.ts';
import { execInPod } from './exec.ts';
import { podProblem, type PodRole, type PodSpec, type PodTracker } from './pods.ts';

const DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024;
/** A broken exec connection: how long to watch for the pod's stop to show (pods.ts failIfStopped). */
const STOP_SETTLE_MS = 5000;

// "$0" path, "$1" byte limit. Exit 2-4 say why nothing was printed.
const READ_FILE = `[ -e "$0" ] || { echo "$0: no such file" >&2; exit 2; }
[ -f "$0" ] || { echo "$0 is not a regular file" >&2; exit 3; }
size=$(wc -c < "$0") || exit 4
[ "$size" -le "$1" ] || { echo "$0 is $size bytes, over the $1-byte limit" >&2; exit 4; }
exec cat -- "$0"`;

// "$0" path, "$1" size, "$2" octal mode: reads exactly that many bytes of stdin (see PodExec.stdin).
const WRITE_FILE = 'mkdir -p -- "$(dirname -- "$0")" && head -c "$1" > "$0" && chmod "$2" -- "$0"';

/** Keeps every byte, up to a limit past which it only counts. */
class ByteSink extends Writable {
  private chunks: Buffer[] = [];
  size = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.size += chunk.length;
    if (this.size <= this.maxBytes) this.chunks.push(chunk);
    done();
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** cwd and env as a command prefix: the exec subresource has neither. */
function inContext(cmd: string[], options: ExecOptions): string[] {
  const withCwd = options.cwd ? ['sh', '-c', 'cd -- "$0" && exec "$@"', options.cwd, ...cmd] : cmd;
  const env = Object.entries(options.env ?? {}).map(([key, value]) => `${key}=${value}`);
  return env.length > 0 ? ['env', ...env, ...withCwd] : withCwd;
}

export class PodSandbox implements AgentSandbox {
  private readonly overLimit = new AbortController();

  private constructor(
    private readonly cluster: Cluster,
    private readonly pods: PodTracker,
    readonly pod: V1Pod,
  ) {}

  get id(): string {
    return this.pod.metadata!.name!;
  }

  /** The image digest the node ran: the image's content identity on the cluster. */
  get imageId(): string {
    return this.pod.status?.containerStatuses?.[0]?.imageID || this.pod.spec!.containers[0].image!;
  }

  /**
   * Aborted once the kubelet evicted the pod for writing past its ephemeral-storage limit (--disk):
   * what the agent did to its own sandbox, scored as `disk_limit`, as Docker's disk watch does.
   */
  get limitReached(): AbortSignal {
    return this.overLimit.signal;
  }

  async checkLimits(): Promise<void> {
    if (this.overLimit.signal.aborted) return;
    const pod = await this.pods.read(this.id).catch(() => undefined);
    if (pod && podProblem(pod)?.overDiskLimit) this.diskLimitReached();
  }

  private diskLimitReached(): void {
    const limit = Number(this.pod.spec?.containers[0].resources?.limits?.['ephemeral-storage']);
    this.overLimit.abort(
      new SandboxLimitError(
        `the agent wrote more than its pod's ${formatGiB(limit)} of ephemeral storage (--disk): Kubernetes evicted the pod and what it changed is lost (empty patch)`,
        'disk_limit',
      ),
    );
  }

  static async start(cluster: Cluster, pods: PodTracker, role: PodRole, spec: PodSpec): Promise<PodSandbox> {
    return new PodSandbox(cluster, pods, await pods.start(role, spec));
  }

  async exec(cmd: string[], options: ExecOptions = {}): Promise<ExecResult> {
    return this.execWithInput(cmd, undefined, options);
  }

  /**
   * exec with `input` on stdin. When the command fails because the pod itself stopped, throws
   * PodStoppedError rather than pass for the command's own failure.
   */
  async execWithInput(cmd: string[], input: Buffer | undefined, options: ExecOptions = {}): Promise<ExecResult> {
    const seconds = limitSeconds(options.timeoutMs);
    const max = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    const stdout = new BoundedSink(max);
    const stderr = new BoundedSink(max);
    let exitCode: number | null;
    try {
      exitCode = await execInPod(this.cluster, this.id, inContext(boundedCommand(cmd, seconds, input !== undefined), options), {
        stdout: observed(stdout, options.onStdout),
        stderr,
        stdin: input,
        deadlineMs: seconds * 1000 + EXEC_GRACE_MS,
        signal: options.signal,
      });
      if (exitCode !== 0) await this.pods.failIfStopped(this.id);
    } catch (error) {
      const stopped =
        error instanceof KubernetesError
          ? await this.pods.failIfStopped(this.id, STOP_SETTLE_MS).then(
              () => error,
              (e: unknown) => e,
            )
          : error;
      if (stopped instanceof PodStoppedError) {
        stopped.output = stdout.text() + stderr.text();
        if (stopped.overDiskLimit) this.diskLimitReached();
      }
      throw stopped;
    }
    return {
      exitCode: exitCode ?? 137,
      stdout: stdout.text(),
      stderr: stderr.text(),
      timedOut: exitCode === null || exitCode === 137,
      truncated: stdout.truncated || stderr.truncated,
    };
  }

  async readFile(path: string, maxBytes = DEFAULT_MAX_FILE_BYTES): Promise<string> {
    const stdout = new ByteSink(maxBytes);
    const stderr = new BoundedSink(4096);
    const exitCode = await execInPod(this.cluster, this.id, ['sh', '-c', READ_FILE, path, String(maxBytes)], { stdout, stderr, deadlineMs: 300_000 });
    if (exitCode !== 0) {
      await this.pods.failIfStopped(this.id);
      throw new Error(stderr.text().trim() || `reading ${path} failed (exit ${exitCode})`);
    }
    // The file grew while it was read.
    if (stdout.size > maxBytes) throw new Error(`${path} is over the ${maxBytes}-byte limit`);
    return stdout.bytes().toString('utf8');
  }

  async writeFile(path: string, content: string | Buffer | HostFile): Promise<void> {
    if (!path.startsWith('/')) throw new Error(`writeFile needs an absolute path, got ${path}`);
    const file = typeof content === 'string' || Buffer.isBuffer(content) ? undefined : content;
    // exec stdin takes a buffer: a host file (an agent CLI's binary) is read whole.
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : file ? await readFile(file.hostPath) : (content as Buffer);
    const mode = (file?.mode ?? 0o644).toString(8);
    const result = await this.execWithInput(['sh', '-c', WRITE_FILE, path, String(bytes.length), mode], bytes);
    if (result.exitCode !== 0) throw new Error(`writing ${path} failed: ${(result.stderr || result.stdout).trim().slice(0, 300)}`);
  }

  /** The command's stdout streamed into `into` (a base repository's tar), unbounded; its exit code. */
  async stream(cmd: string[], into: Writable, timeoutMs: number): Promise<number> {
    const stderr = new BoundedSink(4096);
    const exitCode = await execInPod(this.cluster, this.id, cmd, { stdout: into, stderr, deadlineMs: timeoutMs });
    if (exitCode === null) throw new KubernetesError(`${cmd.join(' ')} in pod ${this.id} ran over ${Math.round(timeoutMs / 1000)} s`);
    if (exitCode !== 0) throw new KubernetesError(`${cmd.join(' ')} in pod ${this.id} failed (exit ${exitCode}): ${stderr.text().trim().slice(0, 300)}`);
    return exitCode;
  }

  async remove(): Promise<void> {
    await this.pods.delete(this.id);
  }
}
