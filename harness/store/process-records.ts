// What the report's process measures (reports/analysis/process.ts) read of a stored task: each
// agent's steps and final patch, and the conversation with its delivery times; and what its
// initiative balance (reports/analysis/initiative.ts) reads: the seats and the messages.
import type { ProcessRecord } from '../../reports/analysis/process.ts';
import type { InitiativeRecord } from '../../reports/analysis/initiative.ts';
import type { TaskRecord } from './records.ts';

export function processRecordOf(record: TaskRecord): ProcessRecord {
  return {
    taskId: record.id,
    agents: record.agents.map((a) => ({
      agentId: a.agent,
      patch: a.patch,
      steps: record.steps.filter((s) => s.agent === a.agent).map((s) => ({ at: s.at, kind: s.kind, name: s.name ?? undefined, input: s.input ?? undefined })),
    })),
    messages: record.conversation.map((m) => ({ from: m.from, to: m.to, sentAt: m.sentAt, deliveredAt: m.deliveredAt })),
  };
}

export function initiativeRecordOf(record: TaskRecord): InitiativeRecord {
  return {
    seats: record.agents.map((a) => ({ agent: a.agent, model: a.model, kind: a.seat })),
    messageIds: record.conversation.map((m) => m.id),
  };
}
