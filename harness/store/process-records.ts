// What the report's process measures (reports/analysis/process.ts) read of a stored task: each
// agent's steps and final patch, and the conversation with its delivery times.
import type { ProcessRecord } from '../../reports/analysis/process.ts';
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
