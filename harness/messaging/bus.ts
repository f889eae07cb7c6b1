// The message bus: agents of one task talk through rows of the run's own database (tables
// `messages` and `message_deliveries`), so the conversation survives a crash and is what the
// judges and the report read. All agents of a run live in one process, so a waiting recipient is
// woken by an in-process notification when a message is committed, never by polling.
import type { RunStore } from '../store/run-store.ts';
import { conversationOf, nextDue, pendingMessages, sendMessage, takeMessages, type ConversationMessage, type StoredMessage } from '../store/messages.ts';

/** Bounds on what agents may put on the bus (everything agents write is untrusted). */
export interface MessageLimits {
  /** Longer bodies are rejected (not truncated): the sender is told to shorten or split. */
  maxBodyChars: number;
  /** Per sender and task attempt; further sends are rejected. */
  maxMessagesPerAgent: number;
}

export const DEFAULT_MESSAGE_LIMITS: MessageLimits = { maxBodyChars: 10_000, maxMessagesPerAgent: 500 };

/** Recipients of a send: `all` (every partner), one partner's id, or several. */
export type Recipients = string | readonly string[];

export const ALL = 'all';

export type IncomingMessage = StoredMessage;

export interface SentMessage {
  id: number;
  to: string[];
  sentAt: string;
  /** For the sender, when its channel has a budget (--bandwidth): what is left of it. */
  note?: string;
}

/** What a task's channel is like; the run's conditions make it (conditions.ts). */
export interface ChannelSettings {
  limits: MessageLimits;
  /** Messages become deliverable this long after they are sent (--latency). */
  latencyMs: number;
  /** The sender is told after each send how many messages it has left (--bandwidth). */
  reportBudget: boolean;
}

/** A send the agent got wrong (unknown recipient, body too long...); its text is meant for the agent. */
export class MessageRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MessageRejected';
  }
}

const AGENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * How a delivered message appears in the recipient's prompt. A line inside a body that starts like
 * a message header is indented, so no agent can pass text off as a message from another agent.
 */
export function formatIncoming(message: Pick<IncomingMessage, 'from' | 'body'>): string {
  return `[Message from ${message.from}]: ${message.body.replace(/\n(?=\s*\[Message from )/g, '\n  ')}`;
}

type Wake = () => void;

/** Wake-ups of waiting recipients, per (task, recipient). */
class Wakeups {
  private readonly waiters = new Map<string, Set<Wake>>();

  /** Registers a wake-up; returns its removal. */
  subscribe(taskId: number, recipient: string, wake: Wake): () => void {
    const key = `${taskId}:${recipient}`;
    let set = this.waiters.get(key);
    if (!set) this.waiters.set(key, (set = new Set()));
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0) this.waiters.delete(key);
    };
  }

  notify(taskId: number, recipient: string): void {
    for (const wake of [...(this.waiters.get(`${taskId}:${recipient}`) ?? [])]) wake();
  }
}

/** Shared by every bus over the same store, so a second bus cannot miss a wake-up. */
const wakeupsByStore = new WeakMap<RunStore, Wakeups>();

export class MessageBus {
  private readonly wakeups: Wakeups;

  constructor(
    readonly store: RunStore,
    readonly limits: MessageLimits = DEFAULT_MESSAGE_LIMITS,
  ) {
    let wakeups = wakeupsByStore.get(store);
    if (!wakeups) wakeupsByStore.set(store, (wakeups = new Wakeups()));
    this.wakeups = wakeups;
  }

  /**
   * The view of the bus one agent of one task has: it can only reach `partners`. `channel`: the
   * task's conditions (default: the bus's limits, delivered at once).
   */
  mailbox(taskId: number, agentId: string, partners: readonly string[], channel?: ChannelSettings): Mailbox {
    for (const id of [agentId, ...partners]) {
      if (!AGENT_ID.test(id) || id === ALL) throw new Error(`"${id}" cannot be an agent id on the message bus`);
    }
    if (partners.includes(agentId)) throw new Error(`${agentId} cannot be its own partner`);
    return new Mailbox(this.store, this.wakeups, channel ?? { limits: this.limits, latencyMs: 0, reportBudget: false }, taskId, agentId, [...partners]);
  }

  /** Every message of a task with its deliveries, in send order (`conversation.json`). */
  conversation(taskId: number): ConversationMessage[] {
    return conversationOf(this.store, taskId);
  }
}

/** setTimeout fires at once beyond this. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export class Mailbox {
  /** Made by MessageBus.mailbox. */
  constructor(
    private readonly store: RunStore,
    private readonly wakeups: Wakeups,
    private readonly channel: ChannelSettings,
    readonly taskId: number,
    readonly agentId: string,
    readonly partners: readonly string[],
  ) {}

  /** Stores a message for the given partners; throws MessageRejected when the agent got it wrong. */
  send(to: Recipients, body: string): SentMessage {
    const recipients = this.resolveRecipients(to);
    this.checkBody(body);
    const now = Date.now();
    const sentAt = new Date(now).toISOString();
    const { limits, latencyMs, reportBudget } = this.channel;
    const deliverAfter = latencyMs > 0 ? new Date(now + latencyMs).toISOString() : undefined;
    const sent = sendMessage(this.store, this.taskId, { from: this.agentId, to: recipients, body, sentAt }, limits.maxMessagesPerAgent, deliverAfter);
    if ('refused' in sent) {
      throw new MessageRejected(
        `this message was not sent: you have sent ${sent.refused} messages, all this task allows; no more can be sent, so carry on without messaging: decide for yourself what you would have asked, and keep your changes where they cannot clash with your partners'`,
      );
    }
    // Only after the commit: a woken recipient must find the message (or, when it is held back,
    // learn when it will be due).
    for (const r of recipients) this.wakeups.notify(this.taskId, r);
    const left = limits.maxMessagesPerAgent - sent.sent;
    const note = reportBudget
      ? left === 0
        ? 'that was your last message: you cannot send any more in this task'
        : `you can send ${left} more message${left === 1 ? '' : 's'} in this task, each at most ${limits.maxBodyChars} characters`
      : undefined;
    return { id: sent.id, to: recipients, sentAt, ...(note ? { note } : {}) };
  }

  /** This agent's undelivered messages that are due, in send order, marked delivered now. */
  take(): IncomingMessage[] {
    return takeMessages(this.store, this.taskId, this.agentId);
  }

  /** How many due messages wait for this agent. */
  pending(): number {
    return pendingMessages(this.store, this.taskId, this.agentId);
  }

  /**
   * Resolves true as soon as a message waits for this agent (at once if one already does), false
   * after `timeoutMs`; rejects with the signal's reason when it aborts. Does not take the message.
   */
  async wait(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    if (this.pending() > 0) return true;
    return new Promise<boolean>((resolve, reject) => {
      let dueTimer: NodeJS.Timeout | undefined;
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        clearTimeout(dueTimer);
        unsubscribe();
        signal?.removeEventListener('abort', onAbort);
        settle();
      };
      // A message held back (--latency) wakes nobody when it becomes due: a timer does.
      const check = () => {
        if (this.pending() > 0) return finish(() => resolve(true));
        clearTimeout(dueTimer);
        const due = nextDue(this.store, this.taskId, this.agentId);
        if (due !== undefined) dueTimer = setTimeout(check, Math.min(Math.max(1, Date.parse(due) - Date.now() + 1), MAX_TIMEOUT_MS));
      };
      const onAbort = () => finish(() => reject(signal!.reason));
      const timer = setTimeout(() => finish(() => resolve(false)), Math.min(Math.max(0, timeoutMs), MAX_TIMEOUT_MS));
      const unsubscribe = this.wakeups.subscribe(this.taskId, this.agentId, check);
      signal?.addEventListener('abort', onAbort, { once: true });
      check();
    });
  }

  private resolveRecipients(to: Recipients): string[] {
    const asked = (typeof to === 'string' ? [to] : [...to]).map((r) => String(r).trim());
    if (this.partners.length === 0) throw new MessageRejected('you have no partner on this task: there is nobody to message');
    if (asked.length === 0) throw new MessageRejected(`say who the message is for: ${this.recipientHint()}`);
    if (asked.includes(ALL)) return [...this.partners];
    const unknown = asked.filter((r) => !this.partners.includes(r));
    if (unknown.length > 0) {
      const what = unknown.includes(this.agentId)
        ? 'you cannot message yourself'
        : `not among your partners: ${unknown.map((u) => JSON.stringify(u.slice(0, 64))).join(', ')}`;
      throw new MessageRejected(`${what}: ${this.recipientHint()}`);
    }
    return [...new Set(asked)].sort((a, b) => this.partners.indexOf(a) - this.partners.indexOf(b));
  }

  private recipientHint(): string {
    return `use ${this.partners.join(', ')} or "${ALL}"`;
  }

  private checkBody(body: string): void {
    if (typeof body !== 'string' || body.trim() === '') throw new MessageRejected('the message is empty');
    const max = this.channel.limits.maxBodyChars;
    if (body.length > max) {
      throw new MessageRejected(
        `the message is ${body.length} characters long, over the limit of ${max}: shorten it or split it into several messages (it was not sent)`,
      );
    }
  }
}
