// The sandbox agents and the harness work through (after Inspect AI's: exec, read_file, write_file),
// backed by one Docker container.
import type Docker from 'dockerode';
import { createReadStream, statSync } from 'node:fs';
import { posix } from 'node:path';
import { PassThrough, Writable, type Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pack as tarPack, extract as tarExtract } from 'tar-stream';
import { isEngineError, type Engine } from './engine.ts';
import { stoppedContainer, type SentCommand } from './stop-cause.ts';
import { DiskWatch, engineTakesQuota, refusedQuota } from './disk-limit.ts';
import { BoundedSink, observed } from '../output.ts';
import { trackCreation, untrackContainer } from './containers.ts';
import { ExecChannel, ExecChannelError, ExecChannelUnavailable, ExecChannels } from './exec-channel.ts';
import { MAIN_PROCESS } from './exec-channel-server.ts';
import { STOP_PROCESSES } from './stop-processes.ts';
import { boundedCommand, DEFAULT_MAX_OUTPUT_BYTES, EXEC_GRACE_MS, limitSeconds } from '../bounded-run.ts';
import type { AgentSandbox, ContainerLimits, ExecOptions, ExecResult, HostFile, Terminal } from '../types.ts';
import { openDockerTerminal } from './terminal.ts';
import { ROLE_LABEL } from '../labels.ts';
import { countContainerCpu } from './container-cpu.ts';
import { pacedStart } from './start-pacer.ts';
import { userSpec, type AgentUser } from './agent-user.ts';

export interface ContainerSpec {
  image: string;
  labels: Record<string, string>;
  limits: ContainerLimits;
  /** Docker network mode; agent and test containers use 'none'. */
  network?: string;
  entrypoint?: string[];
  cmd?: string[];
  binds?: string[];
  env?: string[];
  /** Keep stdin open until the first attached client closes it (input given after start). */
  stdinOnce?: boolean;
  /** Keep no log of the container's output (the exec channel's traffic, when its server starts with the container). */
  noLog?: boolean;
}

const IDLE = ['tail', '-f', '/dev/null'];
/** How long a container being killed may still report itself running. */
const KILL_SETTLE_MS = 250;

/**
 * COOP_BENCH_CGROUP_PARENT=/group puts each container under /group/<its role> (agent, test,
 * extract), for an engine with the cgroupfs driver: cgroup v1 cpuacct counts a removed container's
 * CPU in its parent, so the benchmark that splits a run's CPU (bench/cpu-breakdown.ts) gets every
 * container's by role, exactly, without sampling.
 */
export function cgroupParent(labels: Record<string, string>, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const parent = env.COOP_BENCH_CGROUP_PARENT;
  return parent ? `${parent.replace(/\/+$/, '')}/${labels[ROLE_LABEL] ?? 'other'}` : undefined;
}

/** Creates the container; with a storage quota (limits.diskBytes) where the engine takes one (disk-limit.ts). */
export async function createContainer(engine: Engine, spec: ContainerSpec): Promise<Docker.Container> {
  const disk = spec.limits.diskBytes;
  if (disk && (await engineTakesQuota(engine))) {
    try {
      return await createWith(engine, spec, { size: String(disk) });
    } catch (error) {
      if (!refusedQuota(engine, error)) throw error;
    }
  }
  return createWith(engine, spec);
}

function createWith(engine: Engine, spec: ContainerSpec, StorageOpt?: Record<string, string>): Promise<Docker.Container> {
  const CgroupParent = cgroupParent(spec.labels);
  return trackCreation(engine, (docker) =>
    docker.createContainer({
      Image: spec.image,
      Entrypoint: spec.entrypoint ?? IDLE,
      Cmd: spec.cmd ?? [],
      Labels: spec.labels,
      Env: spec.env,
      WorkingDir: '/workspace/repo',
      ...(spec.stdinOnce ? { OpenStdin: true, StdinOnce: true, AttachStdin: true } : {}),
      HostConfig: {
        NetworkMode: spec.network ?? 'none',
        Memory: spec.limits.memoryBytes,
        MemorySwap: spec.limits.memoryBytes,
        NanoCpus: spec.limits.nanoCpus,
        PidsLimit: spec.limits.pids,
        Binds: spec.binds,
        Init: true,
        ...(CgroupParent && { CgroupParent }),
        ...(StorageOpt && { StorageOpt }),
        ...(spec.noLog && { LogConfig: { Type: 'none', Config: {} } }),
      },
    }),
  );
}

export async function removeContainer(container: Docker.Container): Promise<void> {
  try {
    await container.remove({ force: true, v: true });
  } catch (error) {
    // Already gone is what we wanted.
    if ((error as { statusCode?: number }).statusCode !== 404) throw error;
  } finally {
    untrackContainer(container.id);
  }
}

/** Who owns what a tar extracts (the engine keeps a tar's owners): root when absent. */
interface Owner {
  uid: number;
  gid: number;
}

/** A tar holding files at absolute container paths, extracted at '/'; `folders` are made first, owned by `owner` too. */
export function tarOf(files: { path: string; content: string | Buffer; mode?: number }[], owner?: Owner, folders: string[] = []): Promise<Buffer> {
  const archive = tarPack();
  for (const folder of folders) archive.entry({ name: folder.replace(/^\/+/, ''), type: 'directory', mode: 0o755, ...owner });
  for (const file of files) {
    archive.entry({ name: file.path.replace(/^\/+/, ''), mode: file.mode ?? 0o644, ...owner }, file.content);
  }
  archive.finalize();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    archive.on('data', (c) => chunks.push(c as Buffer));
    archive.on('end', () => resolve(Buffer.concat(chunks)));
    archive.on('error', reject);
  });
}

/** A tar stream of one host file at an absolute container path, read as it is sent. */
function tarOfHostFile(path: string, file: HostFile, owner?: Owner, folders: string[] = []): PassThrough {
  const archive = tarPack();
  for (const folder of folders) archive.entry({ name: folder.replace(/^\/+/, ''), type: 'directory', mode: 0o755, ...owner });
  const entry = archive.entry({ name: path.replace(/^\/+/, ''), mode: file.mode ?? 0o644, size: statSync(file.hostPath).size, ...owner });
  pipeline(createReadStream(file.hostPath), entry).then(
    () => archive.finalize(),
    (error: Error) => archive.destroy(error),
  );
  const out = new PassThrough();
  archive.pipe(out);
  archive.on('error', (error) => out.destroy(error));
  return out;
}

export interface SandboxOptions {
  /** Commands through a persistent exec channel (exec-channel.ts) rather than a `docker exec` each; default true. */
  execChannel?: boolean;
  /** Watch the container's writable storage against limits.diskBytes where the engine gives it no quota; `hostDirs`: host folders mounted writable, counted too. */
  watchDisk?: { hostDirs: string[] };
  /**
   * The unprivileged user commands run as unless `privileged` (agent-user.ts), who owns the files
   * writeFile makes; the container's image has it set up (agentImage). Absent: every command runs
   * as the container's user.
   */
  agentUser?: AgentUser;
}

/** What waiting for a command's end gave: its end, or the host-side deadline. */
type Ending<T> = { value: T } | { hostTimedOut: true };

/**
 * Waits for `ending` until the host-side deadline (the backstop for a process that escaped its group
 * and holds the output open) or the signal; `stop` is called when either comes first.
 */
function untilDeadline<T>(ending: Promise<T>, deadlineMs: number, signal: AbortSignal | undefined, stop: () => void): Promise<Ending<T>> {
  return new Promise((resolve, reject) => {
    // Stopped while the command was being sent: its listener would never fire.
    if (signal?.aborted) {
      stop();
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      settle();
      stop();
      resolve({ hostTimedOut: true });
    }, deadlineMs);
    const abort = () => {
      settle();
      stop();
      reject(signal!.reason);
    };
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    };
    signal?.addEventListener('abort', abort, { once: true });
    ending.then(
      (value) => {
        settle();
        resolve({ value });
      },
      (error: unknown) => {
        settle();
        reject(error);
      },
    );
  });
}

export class DockerSandbox implements AgentSandbox {
  private readonly channels: ExecChannels;
  private readonly agentUser?: AgentUser;
  private diskWatch?: DiskWatch;

  /** `firstChannel`: the channel of the server started with the container (`start`). */
  constructor(
    readonly container: Docker.Container,
    options: SandboxOptions = {},
    firstChannel?: Promise<ExecChannel>,
  ) {
    this.channels = new ExecChannels(container, options.execChannel ?? true, firstChannel);
    this.agentUser = options.agentUser;
  }

  get limitReached(): AbortSignal | undefined {
    return this.diskWatch?.signal;
  }

  async checkLimits(): Promise<void> {
    await this.diskWatch?.check();
  }

  get id(): string {
    return this.container.id;
  }

  /**
   * The container `start` creates: one that would only idle (no command of its own) starts the exec
   * channel's server beside its idle process, on its stdin (MAIN_PROCESS), unless the channel is off.
   */
  static containerSpec(spec: ContainerSpec, options: SandboxOptions = {}): ContainerSpec {
    const serverFirst = (options.execChannel ?? true) && !spec.entrypoint && !spec.cmd;
    return serverFirst ? { ...spec, entrypoint: MAIN_PROCESS, stdinOnce: true, noLog: true } : spec;
  }

  static async start(engine: Engine, spec: ContainerSpec, options: SandboxOptions = {}): Promise<DockerSandbox> {
    const created = DockerSandbox.containerSpec(spec, options);
    const sandbox = await pacedStart(engine, async () => DockerSandbox.startCreated(await createContainer(engine, created), created, options));
    const disk = spec.limits.diskBytes;
    // Known once the container is made: its creation tried the quota.
    if (options.watchDisk && disk && !(await engineTakesQuota(engine))) sandbox.diskWatch = new DiskWatch(sandbox.container, disk, options.watchDisk.hostDirs);
    return sandbox;
  }

  /** Starts a container made from `created` (a `containerSpec`), attached first when it starts the server; removed if it cannot start. */
  static async startCreated(container: Docker.Container, created: ContainerSpec, options: SandboxOptions = {}): Promise<DockerSandbox> {
    try {
      const serverFirst = created.entrypoint === MAIN_PROCESS;
      const stream = serverFirst ? ((await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as Duplex) : undefined;
      await container.start();
      return new DockerSandbox(container, options, stream && ExecChannel.greet(container, stream));
    } catch (error) {
      await removeContainer(container);
      throw error;
    }
  }

  /** Why commands here go through `docker exec` rather than the exec channel, if they do. */
  get execChannelOff(): string | undefined {
    return this.channels.disabledBecause;
  }

  /**
   * Runs a command. When it fails because the container itself stopped (killed, out of memory), it
   * throws ContainerStoppedError rather than pass for the command's own failure.
   */
  async exec(cmd: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const sent = { argv: cmd, sentAt: Date.now() };
    const user = this.userOf(options);
    // The agent's home, as a login would give it (the channel's commands inherit root's environment).
    if (user) options = { ...options, env: { HOME: user.home, USER: user.name, LOGNAME: user.name, ...options.env } };
    let result: ExecResult;
    try {
      result = await this.execBounded(cmd, options, sent);
    } catch (error) {
      if (isEngineError(error)) await this.failIfStopped(sent);
      throw error;
    }
    if (result.exitCode !== 0) await this.failIfStopped(sent, result.exitCode);
    return result;
  }

  /**
   * Throws ContainerStoppedError (stop-cause.ts: why) when the container no longer runs. A container being killed
   * reports itself running for a moment after its processes died: when what happened looks like a
   * kill (`exitCode` 126 and up, or none: a broken stream), it is asked once more, a moment later.
   */
  private async failIfStopped(sent: SentCommand, exitCode?: number): Promise<void> {
    let stopped = await stoppedContainer(this.container, sent);
    if (!stopped && (exitCode === undefined || exitCode >= 126)) {
      await new Promise((resolve) => setTimeout(resolve, KILL_SETTLE_MS));
      stopped = await stoppedContainer(this.container, sent);
    }
    if (stopped) throw stopped;
  }

  /**
   * Through a channel when there is one, else (no channel, an event stream to follow, a channel that
   * broke or was refused) through a `docker exec` of its own. A command whose channel broke while it
   * ran is run again by `docker exec`: its result is never lost, and a channel's failure is never
   * the agent's.
   */
  private async execBounded(cmd: string[], options: ExecOptions, sent: SentCommand): Promise<ExecResult> {
    options.signal?.throwIfAborted();
    const channel = options.onStdout ? undefined : await this.channels.take();
    if (!channel) return this.execDirect(cmd, options);
    try {
      const result = await this.execThrough(channel, cmd, options);
      this.channels.giveBack(channel);
      return result;
    } catch (error) {
      if (error instanceof ExecChannelUnavailable) this.channels.unavailable(channel, error.message);
      else if (error instanceof ExecChannelError) this.channels.broke(channel);
      else throw error;
      await this.failIfStopped(sent);
      return this.execDirect(cmd, options);
    }
  }

  private async execThrough(channel: ExecChannel, cmd: string[], options: ExecOptions): Promise<ExecResult> {
    const max = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    const seconds = limitSeconds(options.timeoutMs);
    const stdout = new BoundedSink(max);
    const stderr = new BoundedSink(max);
    const user = this.userOf(options);
    const ending = channel.run({ argv: boundedCommand(cmd, seconds), user: user && userSpec(user), cwd: options.cwd, env: options.env, stdout, stderr });
    // A channel whose command is stuck or abandoned serves no other: closed.
    const outcome = await untilDeadline(ending, seconds * 1000 + EXEC_GRACE_MS, options.signal, () => channel.close());
    return finished(outcome, stdout, stderr);
  }

  private async execDirect(cmd: string[], options: ExecOptions): Promise<ExecResult> {
    const max = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    const seconds = limitSeconds(options.timeoutMs);
    options.signal?.throwIfAborted();
    const user = this.userOf(options);
    const exec = await this.container.exec({
      Cmd: boundedCommand(cmd, seconds),
      ...(user && { User: userSpec(user) }),
      AttachStdout: true,
      AttachStderr: true,
      WorkingDir: options.cwd,
      Env: options.env ? Object.entries(options.env).map(([k, v]) => `${k}=${v}`) : undefined,
      Tty: false,
    });
    const stream = await exec.start({ hijack: true, stdin: false });
    const stdout = new BoundedSink(max);
    const stderr = new BoundedSink(max);
    this.container.modem.demuxStream(stream, observed(stdout, options.onStdout), stderr);
    const streamEnd = new Promise<void>((resolve, reject) => {
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', reject);
    });
    const outcome = await untilDeadline(streamEnd, seconds * 1000 + EXEC_GRACE_MS, options.signal, () => stream.destroy());
    const info = 'hostTimedOut' in outcome ? undefined : await exec.inspect();
    return finished('hostTimedOut' in outcome ? outcome : { value: info?.ExitCode ?? 137 }, stdout, stderr);
  }

  private userOf(options: ExecOptions): AgentUser | undefined {
    return options.privileged ? undefined : this.agentUser;
  }

  /**
   * Closes the exec channels for good and stops every process but the container's own
   * (stop-processes.ts), by `docker exec`: what runs here afterwards, each by a `docker exec` of its
   * own, no process of the agent's sees or writes to.
   */
  async stopProcesses(): Promise<string | undefined> {
    this.channels.closeAll();
    const result = await this.exec(['sh', '-c', STOP_PROCESSES], { privileged: true, timeoutMs: 120_000 });
    if (result.exitCode === 0) return undefined;
    return `exit code ${result.exitCode}${result.timedOut ? ' (timed out)' : ''}: ${(result.stderr || result.stdout).trim().slice(0, 300)}`;
  }

  async readFile(path: string, maxBytes = 16 * 1024 * 1024): Promise<string> {
    const archive = await this.container.getArchive({ path });
    const extract = tarExtract();
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    await new Promise<void>((resolve, reject) => {
      extract.on('entry', (header, body, next) => {
        if (header.type !== 'file') {
          extract.destroy(new Error(`${path} is not a regular file`));
          return;
        }
        if ((header.size ?? 0) > maxBytes) tooLarge = true;
        body.on('data', (c) => {
          size += (c as Buffer).length;
          if (!tooLarge) chunks.push(c as Buffer);
        });
        body.on('end', next);
        body.resume();
      });
      extract.on('finish', resolve);
      extract.on('error', reject);
      archive.pipe(extract);
    });
    if (tooLarge) throw new Error(`${path} is ${size} bytes, over the ${maxBytes}-byte limit`);
    return Buffer.concat(chunks).toString('utf8');
  }

  /** With an agent user, the file and the folders it makes are the agent's. */
  async writeFile(path: string, content: string | Buffer | HostFile): Promise<void> {
    if (!path.startsWith('/')) throw new Error(`writeFile needs an absolute path, got ${path}`);
    const owner = this.agentUser && { uid: this.agentUser.uid, gid: this.agentUser.gid };
    const folders = owner ? await this.missingFolders(path) : [];
    const archive =
      typeof content === 'string' || Buffer.isBuffer(content) ? await tarOf([{ path, content }], owner, folders) : tarOfHostFile(path, content, owner, folders);
    await this.container.putArchive(archive, { path: '/' });
  }

  /** A person's shell, as the agent's user: a seat has what an agent's commands have, no more. */
  openTerminal(size: { cols: number; rows: number }): Promise<Terminal> {
    return openDockerTerminal(this.container, size, this.agentUser && userSpec(this.agentUser));
  }

  /** The folders above `path` that do not exist yet, outermost first (the engine would make them root's). */
  private async missingFolders(path: string): Promise<string[]> {
    const missing: string[] = [];
    for (let folder = posix.dirname(path); folder !== '/'; folder = posix.dirname(folder)) {
      // A HEAD request (`docker container cp`'s stat): its answer is a stream with nothing to read.
      const found = await this.container.infoArchive({ path: folder }).then(
        (answer: NodeJS.ReadableStream & { destroy(): void }) => {
          answer.destroy();
          return true;
        },
        (error: { statusCode?: number }) => {
          if (error.statusCode === 404) return false;
          throw error;
        },
      );
      if (found) break;
      missing.unshift(folder);
    }
    return missing;
  }

  async remove(): Promise<void> {
    this.diskWatch?.stop();
    await countContainerCpu(this.container, 'agent');
    this.channels.closeAll();
    await removeContainer(this.container);
  }
}

/** A command's result from how it ended; timeout(1) with -s KILL exits 137 when it fired. */
function finished(outcome: Ending<number>, stdout: BoundedSink, stderr: BoundedSink): ExecResult {
  const hostTimedOut = 'hostTimedOut' in outcome;
  const exitCode = hostTimedOut ? 137 : outcome.value;
  return {
    exitCode,
    stdout: stdout.text(),
    stderr: stderr.text(),
    timedOut: hostTimedOut || exitCode === 137,
    truncated: stdout.truncated || stderr.truncated,
  };
}

/**
 * Attaches to a container before it starts: its output (both streams, bounded) until it exits, and
 * its stdin (for a container created with `stdinOnce`; ending it gives the process end of file).
 */
export async function attachStreams(container: Docker.Container, maxBytes: number): Promise<{ sink: BoundedSink; stdin: Writable; done: Promise<void> }> {
  const stream = (await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as NodeJS.ReadWriteStream & Writable;
  const sink = new BoundedSink(maxBytes);
  const both = new PassThrough();
  container.modem.demuxStream(stream, both, both);
  both.pipe(sink);
  const done = new Promise<void>((resolve) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', () => resolve());
  });
  return { sink, stdin: stream, done };
}
