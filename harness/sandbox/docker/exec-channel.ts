// The harness end of the exec channel: a long-lived server per container (exec-channel-server.ts:
// started with the container on its attached stdio, or by a `docker exec` on the exec's) through
// which commands run without an exec of their own. Each `docker exec` costs the engine tens of ms
// of CPU (runc, the shim, dockerd): at concurrency 16 that, not the harness, bounded throughput.
// A channel runs one command at a time; the sandbox keeps a few and falls back to `docker exec`
// whenever one is not there, so today's semantics hold whatever happens to a channel.
import type Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import type { Duplex, Writable } from 'node:stream';
import { Writable as WritableStream } from 'node:stream';
import { EXEC_CHANNEL_SERVER } from './exec-channel-server.ts';

/** The channel stopped working (its process died, its stream broke, it said something unexpected). */
export class ExecChannelError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(`exec channel: ${message}`, options);
    this.name = 'ExecChannelError';
  }
}

/** The image lacks what the server needs (base64), or an agent removed it: use `docker exec`. */
export class ExecChannelUnavailable extends Error {}

const BASE64 = /^[A-Za-z0-9+/=]*$/;
/** How long a new channel may take to say it is ready. */
const OPEN_TIMEOUT_MS = 15_000;

/** One line per field; every byte outside a safe set as \xHH, which bash's printf %b decodes. */
export function encodeField(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9 ._/=:,+-]/.test(c) ? c : `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `${out}\n`;
}

/**
 * One stream of the server (stdout or stderr): base64 payloads, each ended by "\n" and a marker
 * line. Decodes the payload of the command in flight into its sink as it comes and hands over each
 * marker.
 */
export class PayloadReader extends WritableStream {
  private pending: string[] = [];
  private carry = '';
  private marker: string | null = null;
  private waiter?: { sink?: Writable; resolve: (marker: string) => void; reject: (error: Error) => void };
  private failure?: Error;
  private greeted = false;

  /**
   * From now on (the server greeted), output with no command in flight breaks the channel at once:
   * the server said something unasked ("!ended": it is gone), and no command should wait for it.
   */
  refuseUnasked(): void {
    this.greeted = true;
    if (this.pending.length) this.fail(new ExecChannelError('output with no command in flight'));
  }

  /** The next marker; the payload before it goes to `sink`. */
  next(sink?: Writable): Promise<string> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiter = { sink, resolve, reject };
      const early = this.pending;
      this.pending = [];
      for (const text of early) this.take(text);
    });
  }

  /** Why this stream stopped being readable, if it did. */
  get failed(): Error | undefined {
    return this.failure;
  }

  fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.waiter?.reject(error);
    this.waiter = undefined;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.take(chunk.toString('latin1'));
    done();
  }

  private take(text: string): void {
    if (text.length === 0 || this.failure) return;
    if (!this.waiter) {
      // Before the greeting, what follows a marker in the same chunk comes with nobody waiting: kept, bounded.
      if (this.greeted || this.pending.reduce((n, t) => n + t.length, text.length) > 64 * 1024)
        this.fail(new ExecChannelError('output with no command in flight'));
      else this.pending.push(text);
      return;
    }
    for (;;) {
      if (this.marker !== null) {
        const end = text.indexOf('\n');
        this.marker += end < 0 ? text : text.slice(0, end);
        if (this.marker.length > 200) return this.fail(new ExecChannelError('malformed marker'));
        if (end < 0) return;
        text = text.slice(end + 1);
        const { resolve } = this.waiter;
        const marker = this.marker;
        this.marker = null;
        this.waiter = undefined;
        resolve(marker);
        return this.take(text);
      }
      const end = text.indexOf('\n');
      const payload = this.carry + (end < 0 ? text : text.slice(0, end));
      if (!BASE64.test(payload)) return this.fail(new ExecChannelError('malformed payload'));
      const whole = payload.length - (payload.length % 4);
      if (whole > 0) this.waiter.sink?.write(Buffer.from(payload.slice(0, whole), 'base64'));
      this.carry = payload.slice(whole);
      if (end < 0) return;
      // base64 -w 0 ends with its padding: a payload cut short is a broken stream.
      if (this.carry) return this.fail(new ExecChannelError('truncated payload'));
      this.marker = '';
      text = text.slice(end + 1);
      if (text.length === 0) return;
    }
  }
}

export interface ChannelRequest {
  /** The full argv to run (the bounded run of bounded-run.ts). */
  argv: string[];
  /** `uid:gid` to run as (the agent's); absent: as the server (root). */
  user?: string;
  cwd?: string;
  env?: Record<string, string>;
  stdout: Writable;
  stderr: Writable;
}

export class ExecChannel {
  private broken?: Error;

  private constructor(
    private readonly stream: Duplex,
    private readonly out: PayloadReader,
    private readonly err: PayloadReader,
  ) {
    const lose = (error: Error) => this.fail(error);
    stream.on('error', (error) => lose(new ExecChannelError('stream error', { cause: error })));
    stream.on('end', () => lose(new ExecChannelError('the stream ended (its process exited or the container stopped)')));
    stream.on('close', () => lose(new ExecChannelError('the stream closed')));
  }

  /** Starts the server in the container; ExecChannelUnavailable when the image cannot run it. */
  static async open(container: Docker.Container): Promise<ExecChannel> {
    const exec = await container.exec({ Cmd: ['bash', '-c', EXEC_CHANNEL_SERVER], AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: false });
    return ExecChannel.greet(container, (await exec.start({ hijack: true, stdin: true })) as Duplex);
  }

  /**
   * The channel of a server started on `stream` (an exec's, or the container's own attached stdio
   * for the server started with it), once it said it is ready; ExecChannelUnavailable when the
   * image cannot run it.
   */
  static async greet(container: Docker.Container, stream: Duplex): Promise<ExecChannel> {
    const out = new PayloadReader();
    const err = new PayloadReader();
    container.modem.demuxStream(stream, out, err);
    const channel = new ExecChannel(stream, out, err);
    let timer: NodeJS.Timeout | undefined;
    const slow = new ExecChannelError(`no answer within ${OPEN_TIMEOUT_MS} ms`);
    try {
      const marker = await Promise.race([
        out.next(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(slow), OPEN_TIMEOUT_MS);
        }),
      ]);
      if (marker.startsWith('!unavailable')) throw new ExecChannelUnavailable(`exec channel: ${marker.slice(1)}`);
      if (marker !== '!ready') throw new ExecChannelError(`unexpected greeting ${JSON.stringify(marker)}`);
      out.refuseUnasked();
      err.refuseUnasked();
      return channel;
    } catch (error) {
      channel.close();
      // A slow start (a loaded machine) or a stopped container says nothing about the image; a
      // server that ended without a greeting in a running container (no bash) does.
      if (error === slow || error instanceof ExecChannelUnavailable || !(await isRunning(container))) throw error;
      throw new ExecChannelUnavailable(`exec channel: the server did not start (${(error as Error).message})`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Neither the channel nor its streams broke (a server that ended says so on them unasked). */
  get usable(): boolean {
    return !this.broken && !this.out.failed && !this.err.failed;
  }

  /**
   * Runs one request; resolves with its exit status when both streams reached their markers.
   * Rejects with ExecChannelError when the channel broke (nothing says whether the command ran),
   * or ExecChannelUnavailable when the server refused it (it did not run).
   */
  async run(request: ChannelRequest): Promise<number> {
    if (this.broken) throw this.broken;
    // Random, not counted: a process left by an earlier command cannot name the next command's end
    // in frames it writes to the server's streams (through /proc/<server>/fd); a frame that names
    // another id puts the channel out of step, and the command runs again by `docker exec`.
    const id = randomBytes(8).toString('hex');
    const env = Object.entries(request.env ?? {}).map(([k, v]) => `${k}=${v}`);
    const fields = [request.user ?? '', request.cwd ?? '', String(env.length), ...env, String(request.argv.length), ...request.argv];
    const done = Promise.all([this.out.next(request.stdout), this.err.next(request.stderr)]);
    this.stream.write(`${id}\n${fields.map(encodeField).join('')}`);
    const [outMarker, errMarker] = await done;
    const match = /^!([0-9a-f]+) (\d+|unavailable)$/.exec(outMarker);
    if (!match || match[1] !== id || errMarker !== `!${id}`) {
      const error = new ExecChannelError(`out of step: expected the end of command ${id}, got ${JSON.stringify(outMarker)} / ${JSON.stringify(errMarker)}`);
      this.fail(error);
      throw error;
    }
    if (match[2] === 'unavailable') throw new ExecChannelUnavailable('exec channel: base64 is gone from the container');
    return Number(match[2]);
  }

  /** Ends the server (end of its input) and drops the stream; a command in flight is left to its own time limit. */
  close(): void {
    this.fail(new ExecChannelError('closed'));
    this.stream.end();
    this.stream.destroy();
  }

  private fail(error: Error): void {
    this.broken ??= error;
    this.out.fail(this.broken);
    this.err.fail(this.broken);
  }
}

async function isRunning(container: Docker.Container): Promise<boolean> {
  return container.inspect().then(
    (info) => info.State.Running,
    () => false,
  );
}

/** COOP_BENCH_EXEC_CHANNEL=off turns the channel off (every command its own `docker exec`, as before): for comparison. */
export function execChannelWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.COOP_BENCH_EXEC_CHANNEL !== 'off';
}

/** Idle channels kept per container: an agent runs one command at a time, the harness seldom another beside it. */
const MAX_IDLE = 2;
/** Channels that may break in one container before it goes back to `docker exec` for good. */
const MAX_BREAKS = 3;

/** A container's channels: one is taken per command, and given back when it is still sound. */
export class ExecChannels {
  private idle: ExecChannel[] = [];
  private off?: string;
  private breaks = 0;

  /** `first`: the channel of the server started with the container, being greeted. */
  constructor(
    private readonly container: Docker.Container,
    enabled: boolean,
    private first?: Promise<ExecChannel>,
  ) {
    if (!enabled) this.off = 'turned off';
    // Its failure is handled when a command takes it.
    first?.catch(() => undefined);
  }

  /** Why commands go through `docker exec` here, if they do. */
  get disabledBecause(): string | undefined {
    return this.off;
  }

  /** An idle channel or a new one; undefined when this command is to use `docker exec`. */
  async take(): Promise<ExecChannel | undefined> {
    if (this.off) return undefined;
    for (let channel = this.idle.pop(); channel; channel = this.idle.pop()) if (channel.usable) return channel;
    const first = this.first;
    this.first = undefined;
    try {
      return await (first ?? ExecChannel.open(this.container));
    } catch (error) {
      if (error instanceof ExecChannelUnavailable) this.off = error.message;
      else this.broke();
      return undefined;
    }
  }

  giveBack(channel: ExecChannel): void {
    if (channel.usable && !this.off && this.idle.length < MAX_IDLE) this.idle.push(channel);
    else channel.close();
  }

  /** A channel failed (or could not open): closed, and counted. */
  broke(channel?: ExecChannel): void {
    channel?.close();
    if (++this.breaks >= MAX_BREAKS) this.off = `${MAX_BREAKS} channels broke`;
  }

  /** The server refused a command (base64 removed): no more channels here. */
  unavailable(channel: ExecChannel, reason: string): void {
    channel.close();
    this.off = reason;
  }

  closeAll(): void {
    this.off ??= 'closed';
    this.first?.then(
      (channel) => channel.close(),
      () => undefined,
    );
    this.first = undefined;
    for (const channel of this.idle.splice(0)) channel.close();
  }
}
