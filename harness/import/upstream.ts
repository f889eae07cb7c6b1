// One task folder of the CooperBench Python harness. Files and fields are those its code writes:
// - cooperbench/CooperBench src/cooperbench/runner/coop.py (execute_coop): agent<feature>.patch,
//   agent<feature>_traj.json, conversation.json, result.json with `agents` keyed by agent id;
// - src/cooperbench/runner/solo.py (execute_solo): solo.patch, solo_traj.json, result.json with `agent`;
// - src/cooperbench/eval/evaluate.py (_evaluate_single) and eval/sandbox.py (test_merged, test_solo,
//   _merged_error_result): eval.json with `merge`, `feature1`, `feature2`, `both_passed`, `error`;
// - src/cooperbench/runner/core.py (_save_config): <run>/config.json with `model`.
import { z } from 'zod';
import type { AgentStatus } from '../agents/types.ts';
import type { TrajectoryStep } from '../agents/trajectory.ts';
import type { AgentResult, FeatureEvaluation, TaskResult } from '../run/types.ts';
import type { MergeAttempt, MergeResult } from '../../resolver/index.ts';
import type { ImportedMessage, ImportedUsage } from '../store/imported-task.ts';
import { boundText } from '../errors.ts';
import { LIMITS, isoTime, readJson, readText } from './log-files.ts';
import type { FolderImport, TaskFolder } from './types.ts';
import { taskSpec } from './task-spec.ts';

const count = z.number().nullish();

const upstreamAgent = z.object({
  feature_id: z.number().int().optional(),
  status: z.string().nullish(),
  cost: count,
  steps: count,
  error: z.string().nullish(),
});

export const upstreamResult = z.object({
  repo: z.string().optional(),
  task_id: z.number().int().optional(),
  features: z.array(z.number().int()).optional(),
  setting: z.enum(['coop', 'solo']).optional(),
  run_name: z.string().optional(),
  agent_framework: z.string().optional(),
  model: z.string().min(1).max(500),
  started_at: z.string().nullish(),
  ended_at: z.string().nullish(),
  /** Coop: agent id (`agent1`) → its feature and outcome. */
  agents: z.record(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/), upstreamAgent).optional(),
  /** Solo. */
  agent: upstreamAgent.optional(),
});

const featureEval = z.object({
  feature_id: z.number().int().optional(),
  passed: z.boolean(),
  exit_code: z.number().int().nullish(),
  tests_passed: z.number().nullish(),
  tests_failed: z.number().nullish(),
  test_output: z.string().nullish(),
});

const upstreamEval = z.looseObject({
  setting: z.enum(['coop', 'solo']).optional(),
  merge: z.object({ status: z.string(), strategy: z.string().nullish(), diff: z.string().nullish() }).nullish(),
  both_passed: z.boolean(),
  error: z.string().nullish(),
  evaluated_at: z.string().nullish(),
});

const upstreamMessage = z.object({
  from: z.string().min(1).max(200),
  to: z.union([z.string(), z.array(z.string())]).nullish(),
  message: z.string(),
  timestamp: z.union([z.number(), z.string()]).nullish(),
});
const upstreamConversation = z.array(upstreamMessage);

const upstreamTrajectory = z.object({
  model: z.string().optional(),
  status: z.string().nullish(),
  messages: z.array(z.unknown()).nullish(),
});

export const upstreamConfig = z.object({ model: z.string().min(1).max(500).optional() });

/** mini-swe-agent's exit statuses (Submitted, LimitsExceeded); anything else is an error. */
function agentStatus(status: string | null | undefined): AgentStatus {
  if (status === 'Submitted') return 'finished';
  if (status === 'LimitsExceeded') return 'step_limit';
  return 'error';
}

/**
 * A trajectory's chat messages as steps: the model's turns, and the rest as notes named by role.
 * An entry without a time takes the one before it (the task's start for the first), keeping order.
 */
function stepsOf(messages: unknown[], start: string, notes: string[], who: string): TrajectoryStep[] {
  if (messages.length > LIMITS.steps) notes.push(`${who}: trajectory has ${messages.length} entries, the first ${LIMITS.steps} kept`);
  let at = start;
  return messages.slice(0, LIMITS.steps).map((entry, index) => {
    const m = (entry && typeof entry === 'object' ? entry : { content: entry }) as { role?: unknown; content?: unknown; timestamp?: unknown };
    const role = typeof m.role === 'string' ? m.role.slice(0, 40) : 'entry';
    const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? m);
    at = isoTime(m.timestamp) ?? at;
    return { index, at, kind: role === 'assistant' ? 'model' : 'note', name: role, output: boundText(content, 16 * 1024) };
  });
}

type Attempts = MergeAttempt<FeatureEvaluation[]>[];

/**
 * CooperBench's merge outcome in coop-bench's terms, with the cascade attempts it implies.
 * Upstream's `conflicts` means the naive merge conflicted; what was tested then is in `strategy`:
 * `union` (older harness) or the lead's patch alone (`solo-agent1`, newer harness), which coop-bench
 * has no stage for: a conflict whose tests ran on agent1's patch. `identical` patches merge cleanly.
 */
function mergeOf(
  merge: { status: string; strategy?: string | null },
  tested: Attempts[number]['tested'],
): { merge: Pick<MergeResult, 'status' | 'strategy' | 'reason'>; attempts: Attempts; problem?: string } {
  const upstream = `CooperBench merge status ${merge.status}, strategy ${merge.strategy ?? 'none'}`;
  const naiveConflict: Attempts[number] = { stage: 'naive', outcome: 'conflict', reason: upstream, final: false, durationMs: 0 };
  switch (merge.status) {
    case 'clean':
    case 'identical':
      return {
        merge: { status: 'clean', strategy: 'naive', reason: merge.status === 'identical' ? `${upstream}: both patches identical` : undefined },
        attempts: [{ stage: 'naive', outcome: 'merged', tested, final: true, durationMs: 0 }],
      };
    case 'conflicts':
      if (merge.strategy === 'union')
        return {
          merge: { status: 'union', strategy: 'union' },
          attempts: [naiveConflict, { stage: 'union', outcome: 'merged', tested, final: true, durationMs: 0 }],
        };
      return {
        merge: {
          status: 'conflict',
          reason: merge.strategy?.startsWith('solo-') ? `${upstream}: the tests ran on ${merge.strategy.slice(5)}'s patch alone` : upstream,
        },
        attempts: [naiveConflict],
      };
    case 'missing_input':
      return { merge: { status: 'missing_input', reason: upstream }, attempts: [] };
    default:
      return { merge: { status: 'conflict', reason: upstream }, attempts: [], problem: `unknown merge status "${merge.status.slice(0, 40)}"` };
  }
}

/** feature1, feature2, ... featureN of eval.json, in order, as the features they test. */
function evaluationsOf(evalJson: Record<string, unknown>, features: number[], notes: string[]): FeatureEvaluation[] | undefined {
  const evaluations: FeatureEvaluation[] = [];
  for (let k = 1; k <= features.length; k++) {
    const parsed = featureEval.safeParse(evalJson[`feature${k}`]);
    if (!parsed.success) {
      notes.push(`eval.json has no readable feature${k}`);
      return undefined;
    }
    const f = parsed.data;
    evaluations.push({
      feature: f.feature_id ?? features[k - 1]!,
      passed: f.passed,
      exitCode: f.exit_code ?? null,
      timedOut: false,
      output: boundText(f.test_output ?? '', 64 * 1024),
      durationMs: 0,
    });
  }
  return evaluations;
}

/** Upstream keeps only the merged diff's first 5,000 characters (sandbox.py: `merged_diff[:5000]`). */
const UPSTREAM_DIFF_LIMIT = 5000;

export function importUpstreamFolder(folder: TaskFolder, runModel: string | undefined): FolderImport {
  const notes: string[] = [];
  const dir = folder.path;
  const result = readJson(dir, 'result.json', upstreamResult, LIMITS.smallJson);
  if (!result.ok && !result.missing) return { skipped: result.problem, notes };
  const r = result.ok ? result.value : undefined;
  if (!r) notes.push('no result.json: the agents did not finish (CooperBench skips such folders)');
  const model = r?.model ?? runModel;
  if (!model) return { skipped: 'no result.json and no model in the run\u2019s config.json: the models are unknown', notes };
  if (r?.features && [...r.features].sort((a, b) => a - b).join() !== folder.features.join()) {
    return { skipped: `result.json names features ${r.features.join(', ')}, the folder ${folder.features.join(', ')}`, notes };
  }
  const setting = r?.setting ?? folder.setting;
  const startedAt = isoTime(r?.started_at) ?? null;
  const finishedAt = isoTime(r?.ended_at) ?? null;
  const at = startedAt ?? new Date(0).toISOString();

  const agents: AgentResult[] = [];
  const usage: ImportedUsage[] = [];
  const addAgent = (agentId: string, features: number[], file: string, outcome: z.infer<typeof upstreamAgent> | undefined) => {
    const patch = readText(dir, `${file}.patch`, LIMITS.patch);
    if (!patch.ok) notes.push(`${agentId}: ${patch.problem} (evaluated as an empty patch, as CooperBench does)`);
    const traj = readJson(dir, `${file}_traj.json`, upstreamTrajectory, LIMITS.largeJson);
    if (!traj.ok) notes.push(`${agentId}: ${traj.problem}: no steps`);
    const status = outcome?.status ?? (traj.ok ? traj.value.status : undefined);
    if (!outcome) notes.push(`${agentId}: result.json does not describe this agent`);
    const error = status === 'Submitted' ? undefined : [status && `CooperBench status ${status}`, outcome?.error].filter(Boolean).join(': ') || undefined;
    agents.push({
      agentId,
      model,
      features,
      status: agentStatus(status),
      error: error && boundText(error, 4000),
      steps: traj.ok ? stepsOf(traj.value.messages ?? [], at, notes, agentId) : [],
      patch: patch.ok ? patch.value : '',
    });
    if (typeof outcome?.cost === 'number') usage.push({ agent: agentId, model, at: finishedAt ?? at, costUsd: outcome.cost, inputTokens: 0, outputTokens: 0 });
    else if (r) notes.push(`${agentId}: no cost recorded`);
  };
  if (setting === 'solo') {
    // coop-bench names a Solo task's one agent agent1.
    addAgent('agent1', folder.features, 'solo', r?.agent);
  } else {
    // coop.py gives agent<i> the i-th feature in ascending order and names its files by feature.
    folder.features.forEach((feature, i) => {
      const agentId = `agent${i + 1}`;
      const outcome = r?.agents?.[agentId];
      if (outcome?.feature_id !== undefined && outcome.feature_id !== feature)
        notes.push(`${agentId}: result.json gives it feature ${outcome.feature_id}, coop.py feature ${feature}`);
      addAgent(agentId, [feature], `agent${feature}`, outcome);
    });
  }

  const conversation: ImportedMessage[] = [];
  if (setting === 'coop') {
    const messages = readJson(dir, 'conversation.json', upstreamConversation, LIMITS.smallJson);
    if (!messages.ok) notes.push(`${messages.problem}: the conversation is unknown (stored as no messages)`);
    else {
      const list = messages.value;
      if (list.length > LIMITS.messages) notes.push(`conversation.json has ${list.length} messages, the first ${LIMITS.messages} kept`);
      let untimed = 0;
      for (const m of list.slice(0, LIMITS.messages)) {
        const sentAt = isoTime(m.timestamp);
        if (!sentAt) untimed++;
        const to = m.to === null || m.to === undefined ? [] : Array.isArray(m.to) ? m.to : [m.to];
        conversation.push({ from: m.from, to: to.map((t) => t.slice(0, 200)), body: boundText(m.message, 64 * 1024), sentAt: sentAt ?? at });
      }
      if (untimed) notes.push(`${untimed} message${untimed === 1 ? '' : 's'} without a readable timestamp (given the task's start time)`);
    }
  }

  const task = { spec: taskSpec(folder, setting, setting === 'solo' ? [model] : folder.features.map(() => model)), conversation, usage, startedAt, finishedAt };
  const evaluation = readJson(dir, 'eval.json', upstreamEval, LIMITS.largeJson);
  if (!evaluation.ok) {
    const why = evaluation.missing ? 'not evaluated: no eval.json (run `cooperbench eval` on it, then import again)' : evaluation.problem;
    notes.push(why);
    // Never evaluated: the CooperBench run stopped before its evaluation.
    return { task: { ...task, error: { agents, message: `imported: ${why}`, kind: evaluation.missing ? 'interrupted' : 'infrastructure' } }, notes };
  }
  const e = evaluation.value;
  if (e.error) {
    notes.push(`the CooperBench evaluation failed: ${e.error.slice(0, 300)}`);
    return { task: { ...task, error: { agents, message: boundText(`CooperBench evaluation error: ${e.error}`, 4000), kind: 'infrastructure' } }, notes };
  }
  const evaluations = evaluationsOf(e, folder.features, notes);
  if (!evaluations)
    return { task: { ...task, error: { agents, message: 'imported: eval.json lacks a feature\u2019s result', kind: 'infrastructure' } }, notes };

  const tested = { passed: e.both_passed, verdict: evaluations };
  let merge: MergeResult;
  let attempts: Attempts;
  if (setting === 'coop') {
    if (!e.merge) {
      notes.push('eval.json has no merge');
      return { task: { ...task, error: { agents, message: 'imported: eval.json of a Coop task has no merge', kind: 'infrastructure' } }, notes };
    }
    const mapped = mergeOf(e.merge, tested);
    if (mapped.problem) notes.push(mapped.problem);
    const diff = e.merge.diff ?? '';
    if (diff.length >= UPSTREAM_DIFF_LIMIT) notes.push(`merged diff cut at ${UPSTREAM_DIFF_LIMIT} characters by CooperBench: judges see only that part`);
    merge = { ...mapped.merge, patch: diff, files: [], conflictRegions: [], droppedTestFiles: [], timingsMs: {} };
    attempts = mapped.attempts;
  } else {
    merge = { status: 'clean', strategy: 'naive', patch: agents[0]?.patch ?? '', files: [], conflictRegions: [], droppedTestFiles: [], timingsMs: {} };
    attempts = [{ stage: 'naive', outcome: 'merged', tested, final: true, durationMs: 0 }];
  }
  const taskResult: TaskResult = { image: '', dockerHost: '', baseRev: '', agents, merge, attempts, evaluations, bothPassed: e.both_passed };
  return { task: { ...task, finishedAt: isoTime(e.evaluated_at) ?? finishedAt, result: taskResult }, notes };
}
