// A person's seat in a Coop task (`coop-bench play`). The seat is an Agent like any other: the task
// pipeline starts its container, hands it the features, the mailbox and the trajectory, and takes
// its patch (git diff against the base) once it finishes; only here its steps come from the page. The
// page reaches the seat through SeatClient (server.ts); the terminal is a shell in the container.
import { randomBytes } from 'node:crypto';
import type { Agent, AgentContext, AgentOutcome, Mailbox } from '../agents/types.ts';
import type { Terminal } from '../sandbox/types.ts';
import type { Trajectory } from '../agents/trajectory.ts';
import { errorMessage } from '../errors.ts';
import { ActiveTime } from './active-time.ts';
import { TypedLines } from './typed-lines.ts';

/** The model spec of a person's seat in the stored task (`human+gpt-5`). */
export const HUMAN_SPEC = 'human';

/** `waiting`: the container is not up yet; `working`: the person works; `finished`: they clicked Finish; `stopped`: the task ended first (Ctrl-C, a failure). */
export type SeatState = 'waiting' | 'working' | 'finished' | 'stopped';

export interface ChatEntry {
  from: string;
  to: string[];
  body: string;
  at: string;
}

/** What the page shows when it (re)connects. */
export interface SeatView {
  agentId: string;
  partners: string[];
  features: { id: number; description: string }[];
  state: SeatState;
  chat: ChatEntry[];
}

/** One open page of the seat. */
export interface SeatClient {
  send(event: { type: string; [key: string]: unknown }): void;
  sendOutput(chunk: Buffer): void;
}

/** Terminal output kept for a page that reconnects (its tail). */
const SCROLLBACK_BYTES = 256 * 1024;
const INITIAL_SIZE = { cols: 100, rows: 30 };

export class Seat {
  readonly token = randomBytes(24).toString('hex');
  private readonly clients = new Set<SeatClient>();
  private readonly scrollback: Buffer[] = [];
  private scrollbackBytes = 0;
  private readonly active = new ActiveTime();
  private readonly typed = new TypedLines();
  private view: SeatView;
  private size = INITIAL_SIZE;
  private work?: { context: AgentContext; terminal?: Terminal; finish: () => void };

  constructor(readonly agentId: string) {
    this.view = { agentId, partners: [], features: [], state: 'waiting', chat: [] };
  }

  attach(client: SeatClient): () => void {
    this.clients.add(client);
    client.send({ type: 'hello', ...this.view });
    if (this.scrollbackBytes > 0) client.sendOutput(Buffer.concat(this.scrollback));
    if (this.work && !this.work.terminal) void this.openTerminal();
    return () => this.clients.delete(client);
  }

  /** Keystrokes from the page, for the shell in the container only. */
  input(data: string): void {
    if (!this.work) return;
    this.active.touch();
    for (const line of this.typed.take(data)) this.work.context.trajectory.record({ kind: 'tool', name: 'terminal', input: line });
    if (this.work.terminal) this.work.terminal.write(data);
    else void this.openTerminal().then(() => this.work?.terminal?.write(data));
  }

  resize(cols: number, rows: number): void {
    this.size = { cols, rows };
    void this.work?.terminal?.resize(cols, rows);
  }

  /** The page shows the person is there (reading, scrolling). */
  touch(): void {
    if (this.view.state === 'working') this.active.touch();
  }

  /** A message of the person to every partner, on the task's bus as an agent's send_message. */
  say(body: string): void {
    const work = this.work;
    if (!work) throw new Error(this.view.state === 'waiting' ? 'your container is not ready yet' : 'your seat has ended: no more messages');
    const { mailbox } = work.context;
    if (!mailbox) throw new Error('this task has no messaging');
    this.active.touch();
    const sent = mailbox.send('all', body);
    work.context.trajectory.record({ kind: 'tool', name: 'send_message', input: { to: 'all', message: body }, output: `sent to ${sent.to.join(', ')}` });
    this.addChat({ from: this.agentId, to: sent.to, body, at: new Date().toISOString() });
  }

  finish(): void {
    if (!this.work) return;
    this.active.touch();
    this.work.finish();
  }

  /** The seat's agent for the task pipeline. */
  agent(): Agent {
    return { model: HUMAN_SPEC, run: (context) => this.run(context) };
  }

  private async run(context: AgentContext): Promise<AgentOutcome> {
    const { trajectory, signal } = context;
    signal.throwIfAborted();
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const work: NonNullable<Seat['work']> = { context, finish };
    this.work = work;
    this.view = { ...this.view, partners: context.partners, features: context.features.map((f) => ({ id: f.id, description: f.description })) };
    trajectory.record({
      kind: 'note',
      name: 'person',
      output: `a person works in this seat through coop-bench play; features ${context.features.map((f) => f.id).join(', ')}`,
    });
    // Ctrl-C on play: what the person did so far is stored before the containers go.
    const recordActive = () => trajectory.record({ kind: 'note', name: 'active_time', output: String(this.active.ms) });
    signal.addEventListener('abort', recordActive, { once: true });
    const stopListening = new AbortController();
    try {
      await this.openTerminal();
      this.setState('working');
      if (context.mailbox) void this.relayMessages(context.mailbox, trajectory, AbortSignal.any([signal, stopListening.signal]));
      await untilAborted(finished, signal);
      signal.removeEventListener('abort', recordActive);
      trajectory.record({ kind: 'tool', name: 'finish', input: {} });
      recordActive();
      return { status: 'finished', person: { activeMs: this.active.ms } };
    } finally {
      stopListening.abort();
      this.work = undefined;
      work.terminal?.close();
      this.setState(signal.aborted ? 'stopped' : 'finished');
    }
  }

  /** Messages of the partners as they are sent: to the page, and into the trajectory as an agent receives them. */
  private async relayMessages(mailbox: Mailbox, trajectory: Trajectory, signal: AbortSignal): Promise<void> {
    try {
      for (;;) {
        await mailbox.wait(60_000, signal);
        for (const message of mailbox.take()) {
          trajectory.record({ kind: 'message', name: 'received', output: `[Message from ${message.from}]: ${message.body}` });
          this.addChat({ from: message.from, to: [this.agentId], body: message.body, at: new Date().toISOString() });
        }
      }
    } catch {
      // Stopped: the seat finished or the task ended.
    }
  }

  private async openTerminal(): Promise<void> {
    const work = this.work;
    if (!work || work.terminal) return;
    const open = work.context.sandbox.openTerminal;
    if (!open) throw new Error("this backend gives no terminal in an agent's sandbox: coop-bench play needs the docker backend");
    try {
      const terminal = await open.call(work.context.sandbox, this.size);
      work.terminal = terminal;
      terminal.onData((chunk) => this.output(chunk));
      void terminal.closed.then(() => {
        if (work.terminal !== terminal) return;
        work.terminal = undefined;
        if (this.view.state === 'working') this.output(Buffer.from('\r\n[the shell ended; type to start a new one]\r\n'));
      });
    } catch (error) {
      this.output(Buffer.from(`\r\n[no shell: ${errorMessage(error)}]\r\n`));
    }
  }

  private output(chunk: Buffer): void {
    this.scrollback.push(chunk);
    this.scrollbackBytes += chunk.length;
    while (this.scrollbackBytes > SCROLLBACK_BYTES && this.scrollback.length > 1) this.scrollbackBytes -= this.scrollback.shift()!.length;
    for (const client of this.clients) client.sendOutput(chunk);
  }

  private addChat(entry: ChatEntry): void {
    this.view.chat.push(entry);
    for (const client of this.clients) client.send({ type: 'chat', entry });
  }

  private setState(state: SeatState): void {
    this.view = { ...this.view, state };
    for (const client of this.clients) client.send({ type: 'hello', ...this.view });
  }
}

function untilAborted(done: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    void done.then(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    });
  });
}
