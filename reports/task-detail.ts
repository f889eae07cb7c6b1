// One task's page data: both agents' steps and messages on one timeline, patches, merged diff, test
// output and judge labels. Every text is bounded (head and tail kept, the cut stated) so that a
// report of thousands of tasks stays openable.
import { boundText } from '../resolver/bounded-text.ts';
import type { StoredEvaluation, TaskRecord } from './records.ts';
import type { LabelView } from './run-data.ts';
import { conditionOf } from './analysis/conditions.ts';
import { JUDGES } from './analysis/taxonomy.ts';
import { teamName } from '../tasks/types.ts';

export const LIMITS = {
  /** Characters of step text (inputs and outputs together) per task, shared by its steps... */
  stepTextPerTask: 40_000,
  /** ...but never fewer than this per step input or output. */
  stepTextMin: 120,
  stepTextMax: 2_000,
  message: 4_000,
  patch: 16_000,
  testOutput: 4_000,
  evidence: 1_000,
};

export type TimelineEvent =
  | {
      type: 'step';
      at: string;
      agent: string;
      idx: number;
      kind: string;
      name: string | null;
      input: string | null;
      output: string | null;
      exitCode: number | null;
    }
  | { type: 'message'; at: string; agent: string; id: number; to: string[]; text: string; acts: string[]; deliveredAt: Record<string, string | null> };

export interface TaskDetail {
  id: number;
  key: string;
  team: string;
  condition: string;
  pair: string;
  status: string;
  error: string | null;
  passed: boolean | null;
  startedAt: string | null;
  finishedAt: string | null;
  /** `seat`: `human` for a person's seat (coop-bench play), with their active time; `model` for an agent's. */
  agents: Omit<TaskRecord['agents'][number], 'patch'>[];
  timeline: TimelineEvent[];
  /** What was shortened on this page, for people. */
  cuts: string[];
  patches: { agent: string; patch: string }[];
  merge: { status: string; strategy: string | null; naiveClean: boolean; conflictRegions: number; reason: string | null; patch: string } | null;
  evaluations: StoredEvaluation[];
  labels: LabelView[];
  usage: { calls: number; inputTokens: number; outputTokens: number; costUsd: number };
}

/** Bounds `text` and records in `cuts` what was cut, once per kind of text. */
function bounded(text: string, max: number, what: string, cuts: Set<string>): string {
  if (text.length > max) cuts.add(`${what} longer than ${max.toLocaleString('en-US')} characters show their beginning and end only`);
  return boundText(text, max);
}

export function taskDetail(record: TaskRecord, labels: LabelView[], pair: string): TaskDetail {
  const cuts = new Set<string>();
  const stepText = Math.max(LIMITS.stepTextMin, Math.min(LIMITS.stepTextMax, Math.floor(LIMITS.stepTextPerTask / Math.max(1, 2 * record.steps.length))));
  const stepField = (text: string | null) => (text === null ? null : bounded(text, stepText, 'Step inputs and outputs', cuts));
  const actsByMessage = new Map<number, string[]>();
  for (const l of labels) {
    if (l.judge === JUDGES.speechActs && l.messageId !== null) actsByMessage.set(l.messageId, [...(actsByMessage.get(l.messageId) ?? []), l.label]);
  }
  const timeline: TimelineEvent[] = [
    ...record.steps.map((s): TimelineEvent => ({
      type: 'step',
      at: s.at,
      agent: s.agent,
      idx: s.idx,
      kind: s.kind,
      name: s.name,
      input: stepField(s.input),
      output: stepField(s.output),
      exitCode: s.exitCode,
    })),
    ...record.conversation.map((m): TimelineEvent => ({
      type: 'message',
      at: m.sentAt,
      agent: m.from,
      id: m.id,
      to: m.to,
      text: bounded(m.message, LIMITS.message, 'Messages', cuts),
      acts: actsByMessage.get(m.id) ?? [],
      deliveredAt: m.deliveredAt,
    })),
  ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));

  const usage = record.modelCalls.reduce<TaskDetail['usage']>(
    (u, c) => ({
      calls: u.calls + 1,
      inputTokens: u.inputTokens + c.inputTokens,
      outputTokens: u.outputTokens + c.outputTokens,
      costUsd: u.costUsd + c.costUsd,
    }),
    { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
  );
  const patches = record.agents.map((a) => ({ agent: a.agent, patch: bounded(a.patch, LIMITS.patch, 'Patches', cuts) }));
  const m = record.merge;
  const merge = m && {
    status: m.status,
    strategy: m.strategy,
    naiveClean: m.naiveClean,
    conflictRegions: m.conflictRegions,
    reason: m.reason,
    patch: bounded(m.patch, LIMITS.patch, 'Patches', cuts),
  };
  const evaluations = record.evaluations.map((e) => ({ ...e, output: bounded(e.output, LIMITS.testOutput, 'Test outputs', cuts) }));
  const boundedLabels = labels.map((l) => ({ ...l, evidence: l.evidence.map((q) => bounded(q, LIMITS.evidence, 'Judge evidence quotes', cuts)) }));
  return {
    id: record.id,
    key: record.key,
    team: teamName(record.models),
    condition: conditionOf(record),
    pair,
    status: record.status,
    error: record.error,
    passed: record.status === 'done' ? record.bothPassed : null,
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
    agents: record.agents.map(({ agent, model, seat, activeMs, features, status, error, steps }) => ({
      agent,
      model,
      seat,
      activeMs,
      features,
      status,
      error,
      steps,
    })),
    timeline,
    cuts: [...cuts],
    patches,
    merge: merge ?? null,
    evaluations,
    labels: boundedLabels,
    usage,
  };
}
