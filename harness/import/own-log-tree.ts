// One task folder of coop-bench's own log tree, as harness/store/log-tree.ts writes it:
// agent<N>.patch, agent<N>_traj.json, conversation.json, merged.patch, eval.json, result.json.
import { z } from 'zod';
import { AGENT_STATUSES } from '../agents/types.ts';
import type { AgentResult, FeatureEvaluation, TaskResult } from '../run/types.ts';
import { ATTEMPT_OUTCOMES, MERGE_STATUSES, type AttemptOutcome, type MergeAttempt, type MergeResult } from '../../resolver/index.ts';
import type { ImportedMessage } from '../store/imported-task.ts';
import { isAttemptStage } from '../store/merge-attempts.ts';
import { boundText } from '../errors.ts';
import { LIMITS, isoTime, readJson, readText } from './log-files.ts';
import type { FolderImport, TaskFolder } from './types.ts';
import { taskSpec } from './task-spec.ts';

const agentId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const text = z.string().max(1_000_000);
const stage = z.string().refine(isAttemptStage, 'not a merge stage');

export const ownResult = z.object({
  repo: z.string(),
  task_id: z.number().int(),
  features: z.array(z.number().int()),
  setting: z.enum(['coop', 'solo']),
  variant: z.string().max(100).nullable(),
  models: z.array(z.string().min(1).max(500)).min(1),
  image: z.string().max(1000),
  docker_host: z.string().max(1000).nullish(),
  base_rev: z.string().max(200),
  both_passed: z.boolean(),
  merge_status: z.string(),
  agents: z.array(z.object({ agent: agentId, model: z.string(), features: z.array(z.number().int()), status: z.enum(AGENT_STATUSES), error: text.nullish() })),
});

const step = z.object({
  index: z.number().int().nonnegative(),
  at: z.string(),
  kind: z.enum(['tool', 'model', 'message', 'note']),
  name: z.string().max(200).nullish(),
  input: z.unknown().optional(),
  output: text.nullish(),
  exitCode: z.number().int().nullish(),
});
const ownTrajectory = z.object({ steps: z.array(step) });

const ownConversation = z.array(
  z.object({
    from: agentId,
    to: z.array(agentId),
    message: text,
    sentAt: z.string(),
    deliveredAt: z.record(agentId, z.string().nullable()),
  }),
);

const ownEval = z.object({
  both_passed: z.boolean(),
  merge: z.object({
    status: z.string().refine((s) => MERGE_STATUSES.includes(s), 'not a merge status'),
    strategy: stage.nullable(),
    reason: text.nullable(),
    files: z.array(
      z.object({
        path: z.string().max(4096),
        touchedBy: z.array(z.number().int()),
        naiveConflicts: z.number().int(),
        outcome: z.string().max(100).optional(),
        conflictReason: text.optional(),
      }),
    ),
    timings_ms: z.record(z.string(), z.number()),
  }),
  merge_attempts: z
    .array(
      z.object({
        stage,
        outcome: z.string().refine((o) => ATTEMPT_OUTCOMES.includes(o as AttemptOutcome), 'not an attempt outcome'),
        reason: text.nullable(),
        patch_hash: z.string().max(200).nullable(),
        passed: z.boolean().nullable(),
        final: z.boolean(),
      }),
    )
    .optional(),
  features: z.array(
    z.object({
      feature: z.number().int(),
      passed: z.boolean(),
      exit_code: z.number().int().nullable(),
      timed_out: z.boolean(),
      counts: z
        .object({ framework: z.enum(['pytest', 'go', 'cargo', 'jest', 'vitest', 'node:test']), passed: z.number().int(), failed: z.number().int() })
        .nullable(),
      cause: text.nullable(),
      duration_ms: z.number(),
      cached: z.boolean().optional(),
      output: z.string(),
    }),
  ),
});

export function importOwnFolder(folder: TaskFolder): FolderImport {
  const notes: string[] = [];
  const dir = folder.path;
  const result = readJson(dir, 'result.json', ownResult, LIMITS.smallJson);
  if (!result.ok) return { skipped: result.problem, notes };
  const r = result.value;
  if (r.repo !== folder.repo || r.task_id !== folder.taskId || r.features.join() !== folder.features.join() || r.setting !== folder.setting) {
    return { skipped: `result.json describes ${r.repo}/task${r.task_id} ${r.setting} ${r.features.join(',')}, not the folder it is in`, notes };
  }
  const agents: AgentResult[] = r.agents.map((a, i) => {
    const patch = readText(dir, `agent${i + 1}.patch`, LIMITS.patch);
    if (!patch.ok) notes.push(`${a.agent}: ${patch.problem}`);
    const traj = readJson(dir, `agent${i + 1}_traj.json`, ownTrajectory, LIMITS.largeJson);
    if (!traj.ok) notes.push(`${a.agent}: ${traj.problem}: no steps`);
    const steps = traj.ok ? traj.value.steps.slice(0, LIMITS.steps) : [];
    return {
      agentId: a.agent,
      model: a.model,
      features: a.features,
      status: a.status,
      error: a.error ?? undefined,
      patch: patch.ok ? patch.value : '',
      steps: steps.map((s) => ({
        index: s.index,
        at: isoTime(s.at) ?? s.at,
        kind: s.kind,
        name: s.name ?? undefined,
        input: s.input,
        output: s.output ?? undefined,
        exitCode: s.exitCode ?? undefined,
      })),
    };
  });
  const conversation: ImportedMessage[] = [];
  const messages = readJson(dir, 'conversation.json', ownConversation, LIMITS.smallJson);
  if (!messages.ok) notes.push(`${messages.problem}: the conversation is unknown (stored as no messages)`);
  else
    for (const m of messages.value.slice(0, LIMITS.messages))
      conversation.push({ from: m.from, to: m.to, body: m.message, sentAt: m.sentAt, deliveredAt: m.deliveredAt });

  const task = { spec: taskSpec({ ...folder, variant: r.variant ?? '' }, r.setting, r.models), conversation, usage: [], startedAt: null, finishedAt: null };
  const evaluation = readJson(dir, 'eval.json', ownEval, LIMITS.largeJson);
  const merged = readText(dir, 'merged.patch', LIMITS.patch);
  if (!evaluation.ok || !merged.ok) {
    const why = !evaluation.ok ? evaluation.problem : merged.ok ? '' : merged.problem;
    notes.push(why);
    return { task: { ...task, error: { agents, message: `imported: ${why}`, kind: 'infrastructure' } }, notes };
  }
  const e = evaluation.value;
  const merge: MergeResult = {
    status: e.merge.status,
    strategy: e.merge.strategy ?? undefined,
    reason: e.merge.reason ?? undefined,
    patch: merged.value,
    files: e.merge.files,
    conflictRegions: [],
    droppedTestFiles: [],
    timingsMs: e.merge.timings_ms,
  };
  const evaluations: FeatureEvaluation[] = e.features.map((f) => ({
    feature: f.feature,
    passed: f.passed,
    exitCode: f.exit_code,
    timedOut: f.timed_out,
    counts: f.counts ?? undefined,
    cause: f.cause ?? undefined,
    output: boundText(f.output, 64 * 1024),
    durationMs: f.duration_ms,
    cached: f.cached,
  }));
  if (!e.merge_attempts) notes.push('eval.json has no merge_attempts (written by an older coop-bench): the naive merge counts as clean only if the merge is');
  // The log keeps each attempt's verdict; per-feature results only for the final one (eval.json's features).
  const attempts: MergeAttempt<FeatureEvaluation[]>[] = (
    e.merge_attempts ?? [
      {
        stage: 'naive',
        outcome: merge.status === 'clean' ? 'merged' : 'conflict',
        reason: null,
        patch_hash: null,
        passed: null,
        final: merge.status === 'clean',
      },
    ]
  ).map((a) => ({
    stage: a.stage,
    outcome: a.outcome as AttemptOutcome,
    reason: a.reason ?? undefined,
    patchHash: a.patch_hash ?? undefined,
    tested: a.passed === null ? undefined : { passed: a.passed, verdict: a.final ? evaluations : [] },
    final: a.final,
    durationMs: 0,
  }));
  const taskResult: TaskResult = {
    image: r.image,
    dockerHost: r.docker_host ?? '',
    baseRev: r.base_rev,
    agents,
    merge,
    attempts,
    evaluations,
    bothPassed: e.both_passed,
  };
  return { task: { ...task, result: taskResult }, notes };
}
