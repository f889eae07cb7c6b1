// The message bus's tables (messages, message_deliveries): one row per message, one per recipient
// saying when it reached that recipient's prompt. harness/messaging/bus.ts decides who may send
// what and wakes recipients; here a send and a take are each one transaction.
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { sqlOf } from './database.ts';
import type { RunStore } from './run-store.ts';
import { STRING_LIST, json, parseRow } from './columns.ts';

export interface ConversationMessage {
  id: number;
  from: string;
  to: string[];
  message: string;
  sentAt: string;
  /** Per recipient: when the message reached its prompt (null: never delivered). */
  deliveredAt: Record<string, string | null>;
}

export interface StoredMessage {
  id: number;
  from: string;
  to: string[];
  body: string;
  sentAt: string;
}

const messageRow = z
  .object({ id: z.number(), sender: z.string(), recipients: json(STRING_LIST), body: z.string(), sent_at: z.string() })
  .transform((m): StoredMessage => ({ id: m.id, from: m.sender, to: m.recipients, body: m.body, sentAt: m.sent_at }));

const parseMessage = (row: unknown, task: number) => parseRow(messageRow, row, { table: 'messages', of: `task #${task}` });

/** Adds a message and its deliveries (null: not delivered yet); returns its id. Call inside a transaction. */
export function insertMessage(db: Database.Database, task: number, m: Omit<StoredMessage, 'id'>, deliveredAt: Record<string, string | null>): number {
  const id = Number(
    db
      .prepare('INSERT INTO messages (task, sender, recipients, body, sent_at) VALUES (?, ?, ?, ?, ?)')
      .run(task, m.from, JSON.stringify(m.to), m.body, m.sentAt).lastInsertRowid,
  );
  const deliver = db.prepare('INSERT INTO message_deliveries (message, recipient, delivered_at) VALUES (?, ?, ?)');
  for (const [recipient, at] of Object.entries(deliveredAt)) deliver.run(id, recipient, at);
  return id;
}

/**
 * Stores a message unless its sender has sent `maxPerSender` in this task already; says which, and
 * how many it has sent with this one. `deliverAfter`: not deliverable before this ISO time.
 */
export function sendMessage(
  store: RunStore,
  task: number,
  m: Omit<StoredMessage, 'id'>,
  maxPerSender: number,
  deliverAfter?: string,
): { id: number; sent: number } | { refused: number } {
  const db = sqlOf(store);
  return db.transaction(() => {
    const { count } = db.prepare('SELECT COUNT(*) AS count FROM messages WHERE task = ? AND sender = ?').get(task, m.from) as { count: number };
    if (count >= maxPerSender) return { refused: count };
    const id = insertMessage(db, task, m, Object.fromEntries(m.to.map((r) => [r, null])));
    if (deliverAfter !== undefined) db.prepare('UPDATE messages SET deliver_after = ? WHERE id = ?').run(deliverAfter, id);
    return { id, sent: count + 1 };
  })();
}

/** A message held back by --latency is not deliverable before its time. ISO times compare as text. */
const DUE = '(m.deliver_after IS NULL OR m.deliver_after <= ?)';

/** The recipient's undelivered messages that are due, in send order, marked delivered now. */
export function takeMessages(store: RunStore, task: number, recipient: string): StoredMessage[] {
  const db = sqlOf(store);
  return db.transaction(() => {
    const now = new Date().toISOString();
    const rows = db
      .prepare(
        `SELECT m.id, m.sender, m.recipients, m.body, m.sent_at FROM message_deliveries d JOIN messages m ON m.id = d.message
         WHERE m.task = ? AND d.recipient = ? AND d.delivered_at IS NULL AND ${DUE} ORDER BY m.id`,
      )
      .all(task, recipient, now);
    const mark = db.prepare('UPDATE message_deliveries SET delivered_at = ? WHERE message = ? AND recipient = ?');
    const messages = rows.map((row) => parseMessage(row, task));
    for (const m of messages) mark.run(now, m.id, recipient);
    return messages;
  })();
}

/** How many due messages wait for the recipient. */
export function pendingMessages(store: RunStore, task: number, recipient: string): number {
  const { count } = sqlOf(store)
    .prepare(
      `SELECT COUNT(*) AS count FROM message_deliveries d JOIN messages m ON m.id = d.message
       WHERE m.task = ? AND d.recipient = ? AND d.delivered_at IS NULL AND ${DUE}`,
    )
    .get(task, recipient, new Date().toISOString()) as { count: number };
  return count;
}

/** When the recipient's next held-back message becomes due (ISO), if one is held back. */
export function nextDue(store: RunStore, task: number, recipient: string): string | undefined {
  const { due } = sqlOf(store)
    .prepare(
      `SELECT MIN(m.deliver_after) AS due FROM message_deliveries d JOIN messages m ON m.id = d.message
       WHERE m.task = ? AND d.recipient = ? AND d.delivered_at IS NULL AND m.deliver_after > ?`,
    )
    .get(task, recipient, new Date().toISOString()) as { due: string | null };
  return due ?? undefined;
}

/** Every message of a task with its deliveries, in send order. */
export function conversationOf(store: RunStore, task: number): ConversationMessage[] {
  const db = sqlOf(store);
  const messages = db.prepare('SELECT id, sender, recipients, body, sent_at FROM messages WHERE task = ? ORDER BY id').all(task);
  const deliveries = db
    .prepare('SELECT d.message, d.recipient, d.delivered_at FROM message_deliveries d JOIN messages m ON m.id = d.message WHERE m.task = ?')
    .all(task) as { message: number; recipient: string; delivered_at: string | null }[];
  return messages.map((row) => {
    const m = parseMessage(row, task);
    return {
      id: m.id,
      from: m.from,
      to: m.to,
      message: m.body,
      sentAt: m.sentAt,
      deliveredAt: Object.fromEntries(deliveries.filter((d) => d.message === m.id).map((d) => [d.recipient, d.delivered_at])),
    };
  });
}
