// One task folder of the CooperBench Python harness. Files and fields are those its code writes:
// - cooperbench/CooperBench src/cooperbench/runner/coop.py (execute_coop): agent<feature>.patch,
//   agent<feature>_traj.json, conversation.json (_extract_conversation, sorted by `timestamp or 0`),
//   result.json with `agents` keyed by agent id (cost, steps, tokens, status, error);
// - src/cooperbench/runner/solo.py (execute_solo): solo.patch, solo_traj.json, result.json with `agent`;
// - src/cooperbench/eval/evaluate.py (_evaluate_single, _run_gcp_batch) and eval/sandbox.py
//   (test_merged, test_solo, _merged_error_result, _parse_results): eval.json with `apply_status`,
//   `merge`, `feature1`, `feature2` (tests_passed/tests_failed), `both_passed`, `error`;
// - src/cooperbench/runner/core.py (_save_config): <run>/config.json with `model`, `agent_framework`.
// The adapters' trajectories are read in upstream-agents.ts.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { AgentResult, FeatureEvaluation, TaskResult } from '../run/types.ts';
import type { MergeAttempt, MergeResult } from '../../resolver/index.ts';
import type { ImportedMessage, ImportedUsage } from '../store/imported-task.ts';
import { boundText } from '../errors.ts';
import { parseTestCounts } from '../evaluation/parse-results.ts';
import { LIMITS, readJson, readText } from './log-files.ts';
import type { FolderImport, TaskFolder } from './types.ts';
import { taskSpec } from './task-spec.ts';
import { agentStatus, readAgentLog, settleSteps, type AgentLog } from './upstream-agents.ts';
import { epochMs, iso, localTime, wallMs, type Zone, type ZoneEvidence } from './time-zone.ts';
import { repairStrippedPatch, strippedBlankLines } from './stripped-patch.ts';

const count = z.number().nullish();

const upstreamAgent = z.looseObject({
  feature_id: z.number().int().nullish(),
  status: z.string().nullish(),
  cost: count,
  steps: count,
  input_tokens: count,
  output_tokens: count,
  cache_read_tokens: count,
  cache_write_tokens: count,
  error: z.string().nullish(),
});

export const upstreamResult = z.looseObject({
  repo: z.string().optional(),
  task_id: z.number().int().optional(),
  features: z.array(z.number().int()).optional(),
  setting: z.enum(['coop', 'solo']).optional(),
  run_name: z.string().optional(),
  agent_framework: z.string().max(100).nullish(),
  model: z.string().min(1).max(500),
  started_at: z.string().nullish(),
  ended_at: z.string().nullish(),
  /** Coop: agent id (`agent1`) → its feature and outcome. */
  agents: z.record(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/), upstreamAgent).optional(),
  /** Solo. */
  agent: upstreamAgent.optional(),
});

/** result.json fields coop-bench does not keep, and why (listed once per import). */
export const RESULT_FIELDS_NOT_KEPT: Record<string, string> = {
  run_id: "the harness's id of the agent run (the task key identifies it here)",
  duration_seconds: 'ended_at minus started_at, which are kept',
  total_cost: "the sum of the agents' costs, which are kept",
  total_steps: "the sum of the agents' steps, which are kept",
  messages_sent: 'the number of messages in conversation.json, which are kept',
  log_dir: 'the folder the task was read from (in import-report.json)',
  provider: 'the LLM provider of a custom endpoint',
  endpoint: 'the LLM endpoint URL (not stored: it may hold credentials)',
  api_version: 'the LLM endpoint API version',
  'agents.patch_lines': "the number of lines of each agent's patch, which is kept",
};

const featureEval = z.object({
  feature_id: z.number().int().nullish(),
  passed: z.boolean(),
  exit_code: z.number().int().nullish(),
  tests_passed: z.number().int().nonnegative().nullish(),
  tests_failed: z.number().int().nonnegative().nullish(),
  test_output: z.string().nullish(),
});

const upstreamEval = z.looseObject({
  setting: z.string().optional(),
  apply_status: z.record(z.string().max(64), z.string().max(40)).nullish(),
  merge: z.object({ status: z.string(), strategy: z.string().nullish(), diff: z.string().nullish() }).nullish(),
  both_passed: z.boolean().optional(),
  /** N-feature evaluations (evaluate.py test_merged_n/test_solo_n, _run_gcp_batch). */
  all_passed: z.boolean().optional(),
  features_result: z.record(z.string(), z.unknown()).nullish(),
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

export const upstreamConfig = z.object({ model: z.string().min(1).max(500).optional(), agent_framework: z.string().max(100).optional() });

/** What the run's config.json says, for folders whose result.json does not. */
export interface RunDefaults {
  model?: string;
  framework?: string;
}

type Attempts = MergeAttempt<FeatureEvaluation[]>[];

/** "agent1 failed" from apply_status (sandbox.py _setup_branches: applied / skipped / failed). */
function applyFailures(applyStatus: Record<string, string> | null | undefined): string | undefined {
  const failed = Object.entries(applyStatus ?? {}).filter(([, s]) => s === 'failed');
  if (failed.length === 0) return undefined;
  const all = Object.entries(applyStatus!)
    .map(([a, s]) => `${a} ${s}`)
    .join(', ');
  return `${failed.map(([a]) => `${a}'s patch`).join(' and ')} did not apply (apply_status: ${all})`;
}

/**
 * CooperBench's merge outcome in coop-bench's terms, with the cascade attempts it implies. By version:
 * sandbox.py test_merged writes `clean`, or `conflicts` with strategy `union` (naive conflicted,
 * union merged); later versions write `conflicts` with strategy `naive` or `solo-agent1` (no union:
 * the lead's patch alone was tested), `identical` (strategy skip-merge-identical) and
 * `missing_input` (a patch did not apply, see apply_status); _run_gcp_batch writes `union` as the
 * status itself (strategy null). A failed evaluation writes `error` (with eval.json's `error` set).
 */
function mergeOf(
  merge: { status: string; strategy?: string | null },
  applyStatus: Record<string, string> | null | undefined,
  tested: Attempts[number]['tested'],
): { merge: Pick<MergeResult, 'status' | 'strategy' | 'reason'>; attempts: Attempts; problem?: string } {
  const upstream = `CooperBench merge status ${merge.status}, strategy ${merge.strategy ?? 'none'}`;
  const naiveConflict: Attempts[number] = { stage: 'naive', outcome: 'conflict', reason: upstream, final: false, durationMs: 0 };
  const union = {
    merge: { status: 'union' as const, strategy: 'union', reason: upstream },
    attempts: [naiveConflict, { stage: 'union', outcome: 'merged' as const, tested, final: true, durationMs: 0 }],
  };
  switch (merge.status) {
    case 'clean':
    case 'identical':
      return {
        merge: { status: 'clean', strategy: 'naive', reason: merge.status === 'identical' ? `${upstream}: both patches identical` : undefined },
        attempts: [{ stage: 'naive', outcome: 'merged', tested, final: true, durationMs: 0 }],
      };
    case 'union':
      return union;
    case 'conflicts':
      if (merge.strategy === 'union') return union;
      return {
        merge: {
          status: 'conflict',
          reason: merge.strategy?.startsWith('solo-') ? `${upstream}: the tests ran on ${merge.strategy.slice(5)}'s patch alone` : upstream,
        },
        attempts: [naiveConflict],
      };
    case 'missing_input':
      return { merge: { status: 'missing_input', reason: applyFailures(applyStatus) ? `${upstream}: ${applyFailures(applyStatus)}` : upstream }, attempts: [] };
    default:
      return { merge: { status: 'conflict', reason: upstream }, attempts: [], problem: `unknown merge status "${merge.status.slice(0, 40)}"` };
  }
}

/** feature1 ... featureN of eval.json (or features_result by feature id), in order. */
function evaluationsOf(evalJson: z.infer<typeof upstreamEval>, features: number[], notes: string[]): FeatureEvaluation[] | undefined {
  const evaluations: FeatureEvaluation[] = [];
  for (let k = 1; k <= features.length; k++) {
    const parsed = featureEval.safeParse(evalJson[`feature${k}`] ?? evalJson.features_result?.[String(features[k - 1])]);
    if (!parsed.success) {
      notes.push(`eval.json has no readable feature${k}`);
      return undefined;
    }
    const f = parsed.data;
    const output = f.test_output ?? '';
    const counted = typeof f.tests_passed === 'number' && typeof f.tests_failed === 'number';
    evaluations.push({
      feature: f.feature_id ?? features[k - 1]!,
      passed: f.passed,
      exitCode: f.exit_code ?? null,
      timedOut: false,
      counts: counted ? { framework: parseTestCounts(output)?.framework, passed: f.tests_passed!, failed: f.tests_failed! } : undefined,
      output: boundText(output, 64 * 1024),
      durationMs: 0,
    });
  }
  return evaluations;
}

/** Upstream keeps only the merged diff's first 5,000 characters (sandbox.py: `merged_diff[:5000]`). */
const UPSTREAM_DIFF_LIMIT = 5000;

interface AgentRead {
  agentId: string;
  features: number[];
  outcome?: z.infer<typeof upstreamAgent>;
  patch: string;
  status?: string | null;
  log?: AgentLog;
}

/** What a folder holds before its local times are placed in a zone. */
interface FolderRead {
  result?: z.infer<typeof upstreamResult>;
  model: string;
  framework: string;
  setting: 'coop' | 'solo';
  agents: AgentRead[];
  conversation?: z.infer<typeof upstreamConversation>;
  notes: string[];
  /** Files read besides the fixed ones, and the ones not imported (with why). */
  read: Set<string>;
}

function readFolder(folder: TaskFolder, defaults: RunDefaults): FolderRead | { skipped: string; notes: string[] } {
  const notes: string[] = [];
  const dir = folder.path;
  const result = readJson(dir, 'result.json', upstreamResult, LIMITS.smallJson);
  if (!result.ok && !result.missing) return { skipped: result.problem, notes };
  const r = result.ok ? result.value : undefined;
  if (!r) notes.push('no result.json: the agents did not finish (CooperBench skips such folders)');
  const model = r?.model ?? defaults.model;
  if (!model) return { skipped: 'no result.json and no model in the run\u2019s config.json: the models are unknown', notes };
  if (r?.features && [...r.features].sort((a, b) => a - b).join() !== folder.features.join()) {
    return { skipped: `result.json names features ${r.features.join(', ')}, the folder ${folder.features.join(', ')}`, notes };
  }
  const setting = r?.setting ?? folder.setting;
  const framework = r?.agent_framework ?? defaults.framework ?? 'unknown';
  const read = new Set<string>();
  const agents: AgentRead[] = [];
  const readAgent = (agentId: string, features: number[], file: string, outcome: z.infer<typeof upstreamAgent> | undefined, logIds: string[]) => {
    const patch = readText(dir, `${file}.patch`, LIMITS.patch);
    if (!patch.ok) notes.push(`${agentId}: ${patch.problem} (evaluated as an empty patch, as CooperBench does)`);
    const traj = readJson(dir, `${file}_traj.json`, upstreamTrajectory, LIMITS.largeJson);
    if (!traj.ok) notes.push(`${agentId}: ${traj.problem}: no steps`);
    if (!outcome) notes.push(`${agentId}: result.json does not describe this agent`);
    const messages = traj.ok ? (traj.value.messages ?? []) : [];
    if (messages.length > LIMITS.steps) notes.push(`${agentId}: trajectory has ${messages.length} entries, the first ${LIMITS.steps} kept`);
    const logId = logIds.find((id) => existsSync(join(dir, `${id}_session.jsonl`)) || existsSync(join(dir, `${id}_stream.jsonl`))) ?? logIds[0]!;
    const log = traj.ok || framework === 'claude_code' ? readAgentLog(framework, messages, { dir, agentId: logId }, agentId, model, notes) : undefined;
    log?.read.forEach((f) => read.add(f));
    agents.push({ agentId, features, outcome, patch: patch.ok ? patch.value : '', status: outcome?.status ?? (traj.ok ? traj.value.status : undefined), log });
  };
  // Claude Code's logs are named by the agent's id, which for a Solo agent differs by version.
  if (setting === 'solo') {
    // coop-bench names a Solo task's one agent agent1.
    readAgent('agent1', folder.features, 'solo', r?.agent, ['solo', 'agent']);
  } else {
    // coop.py gives agent<i> the i-th feature in ascending order and names its files by feature.
    folder.features.forEach((feature, i) => {
      const agentId = `agent${i + 1}`;
      const outcome = r?.agents?.[agentId];
      if (typeof outcome?.feature_id === 'number' && outcome.feature_id !== feature)
        notes.push(`${agentId}: result.json gives it feature ${outcome.feature_id}, coop.py feature ${feature}`);
      readAgent(agentId, [feature], `agent${feature}`, outcome, [agentId]);
    });
  }
  let conversation: z.infer<typeof upstreamConversation> | undefined;
  if (setting === 'coop') {
    const messages = readJson(dir, 'conversation.json', upstreamConversation, LIMITS.smallJson);
    if (!messages.ok) notes.push(`${messages.problem}: the conversation is unknown (stored as no messages)`);
    else conversation = messages.value;
  }
  return { result: r, model, framework, setting, agents, conversation, notes, read };
}

/** A folder's local start and end with the epoch times inside it, for inferring the run's zone. */
export function zoneEvidence(folder: TaskFolder, defaults: RunDefaults): ZoneEvidence | undefined {
  const read = readFolder(folder, defaults);
  if ('skipped' in read) return undefined;
  const startWall = wallMs(read.result?.started_at);
  const endWall = wallMs(read.result?.ended_at);
  if (startWall === undefined || endWall === undefined) return undefined;
  const epochs = read.agents.flatMap((a) => a.log?.epochs ?? []);
  for (const m of read.conversation ?? []) {
    const t = epochMs(m.timestamp);
    if (t !== undefined) epochs.push(t);
  }
  return { startWall, endWall, epochs };
}

/** The other harness's per-agent totals as one usage row (Claude Code's input_tokens leave out the cache; coop-bench's include it). */
function totalUsage(agent: AgentRead, framework: string, model: string, at: string): ImportedUsage | undefined {
  const o = agent.outcome;
  if (!o || (typeof o.cost !== 'number' && typeof o.input_tokens !== 'number')) return undefined;
  const cacheRead = o.cache_read_tokens ?? 0;
  const cacheWrite = o.cache_write_tokens ?? 0;
  const input = (o.input_tokens ?? 0) + (framework === 'claude_code' ? cacheRead + cacheWrite : 0);
  return {
    agent: agent.agentId,
    model,
    at,
    costUsd: o.cost ?? 0,
    inputTokens: input,
    outputTokens: o.output_tokens ?? 0,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
}

/**
 * Messages in the order they were sent. Adapters without send times (mini-swe-agent's
 * sent_messages) leave `timestamp` null, and coop.py's sort then lists each agent's messages in turn;
 * the sender's trajectory holds the send_message call, with its time.
 */
function messagesOf(read: FolderRead, zone: Zone, startMs: number, notes: string[]): ImportedMessage[] {
  const list = read.conversation ?? [];
  if (list.length > LIMITS.messages) notes.push(`conversation.json has ${list.length} messages, the first ${LIMITS.messages} kept`);
  const sends = new Map(read.agents.map((a) => [a.agentId, [...(a.log?.sends ?? [])]]));
  let recovered = 0;
  let untimed = 0;
  let last = startMs;
  const timed = list.slice(0, LIMITS.messages).map((m, order) => {
    const to = m.to === null || m.to === undefined ? [] : Array.isArray(m.to) ? m.to : [m.to];
    const wall = wallMs(m.timestamp);
    let atMs = wall === undefined ? epochMs(m.timestamp) : zone.toUtc(wall);
    if (atMs === undefined) {
      const pending = sends.get(m.from) ?? [];
      const i = pending.findIndex((s) => s.content === m.message && (to.length === 0 || to.includes(s.to)));
      if (i >= 0) {
        atMs = pending.splice(i, 1)[0]!.atMs;
        recovered++;
      } else untimed++;
    }
    last = atMs ?? last;
    return {
      order,
      atMs: last,
      message: { from: m.from, to: to.map((t) => t.slice(0, 200)), body: boundText(m.message, 64 * 1024), sentAt: new Date(last).toISOString() },
    };
  });
  if (recovered)
    notes.push(
      `${recovered} message time${recovered === 1 ? '' : 's'} recovered from the senders' trajectories (conversation.json has none): messages ordered by them`,
    );
  if (untimed)
    notes.push(`${untimed} message${untimed === 1 ? '' : 's'} without a readable timestamp (given the time of the message before, or the task's start)`);
  return timed.sort((a, b) => a.atMs - b.atMs || a.order - b.order).map((t) => t.message);
}

export function importUpstreamFolder(folder: TaskFolder, defaults: RunDefaults, zone: Zone): FolderImport {
  const read = readFolder(folder, defaults);
  if ('skipped' in read) return read;
  const { result: r, model, framework, setting, notes } = read;
  const dir = folder.path;
  const startedAt = localTime(r?.started_at, zone) ?? null;
  const finishedAt = localTime(r?.ended_at, zone) ?? null;
  const startMs = startedAt ? Date.parse(startedAt) : 0;
  const at = new Date(startMs).toISOString();

  const agents: AgentResult[] = [];
  const usage: ImportedUsage[] = [];
  const agentSteps: Record<string, number> = {};
  const repairedPatches: { agent: string; patch: string }[] = [];
  for (const a of read.agents) {
    const cost = a.outcome?.cost ?? 0;
    const ending = agentStatus(a.status, framework, cost, a.log?.endedBy);
    const error =
      a.status === 'Submitted'
        ? undefined
        : [a.status && `CooperBench status ${a.status}`, ending.why, a.outcome?.error].filter(Boolean).join(': ') || undefined;
    const steps = settleSteps(a.log?.steps ?? [], startMs);
    agents.push({ agentId: a.agentId, model, features: a.features, status: ending.status, error: error && boundText(error, 4000), steps, patch: a.patch });
    const cut = strippedBlankLines(a.patch);
    if (cut > 0) {
      repairedPatches.push({ agent: a.agentId, patch: repairStrippedPatch(a.patch) });
      notes.push(
        `${a.agentId}: its patch lost ${cut} trailing blank context line${cut === 1 ? '' : 's'} to the adapter's .strip(), so git apply calls it corrupt: a failure of this task may be the harness's, not the agent's (the outcome is kept as CooperBench recorded it; the repaired patch is under repaired-patches/)`,
      );
    }
    // The harness's own count: model calls (mini-swe-agent, Claude Code's turns) or events (OpenHands).
    if (typeof a.outcome?.steps === 'number') agentSteps[a.agentId] = a.outcome.steps;
    const calls = a.log?.calls ?? [];
    if (calls.length > 0) {
      usage.push(...calls.map(({ atMs, ...c }) => ({ ...c, at: iso(atMs) ?? finishedAt ?? at })));
      const sum = calls.reduce((s, c) => s + c.costUsd, 0);
      if (typeof a.outcome?.cost === 'number' && Math.abs(sum - a.outcome.cost) > 0.01 + 0.01 * a.outcome.cost)
        notes.push(`${a.agentId}: its model calls cost $${sum.toFixed(4)}, result.json says $${a.outcome.cost.toFixed(4)} (the calls are kept)`);
    } else {
      const total = totalUsage(a, framework, model, finishedAt ?? at);
      if (total) usage.push(total);
      else if (r) notes.push(`${a.agentId}: no cost recorded`);
    }
  }

  const conversation = setting === 'coop' ? messagesOf(read, zone, startMs, notes) : [];
  const outcomes = [...Object.values(r?.agents ?? {}), ...(r?.agent ? [r.agent] : [])];
  const notKept = Object.keys(RESULT_FIELDS_NOT_KEPT).filter((k) =>
    k.startsWith('agents.') ? outcomes.some((o) => k.slice(7) in o) : r !== undefined && k in r,
  );
  const task = {
    spec: taskSpec(folder, setting, setting === 'solo' ? [model] : folder.features.map(() => model)),
    conversation,
    usage,
    startedAt,
    finishedAt,
    agentSteps,
    agentConfig: `cooperbench:${framework}`,
  };
  const base = { notes, framework, filesRead: [...read.read], resultFieldsNotKept: notKept, repairedPatches };
  const evaluation = readJson(dir, 'eval.json', upstreamEval, LIMITS.largeJson);
  if (!evaluation.ok) {
    const why = evaluation.missing ? 'not evaluated: no eval.json (run `cooperbench eval` on it, then import again)' : evaluation.problem;
    notes.push(why);
    // Never evaluated: the CooperBench run stopped before its evaluation.
    return { ...base, task: { ...task, error: { agents, message: `imported: ${why}`, kind: evaluation.missing ? 'interrupted' : 'infrastructure' } } };
  }
  const e = evaluation.value;
  if (e.error) {
    notes.push(`the CooperBench evaluation failed: ${e.error.slice(0, 300)}`);
    return { ...base, task: { ...task, error: { agents, message: boundText(`CooperBench evaluation error: ${e.error}`, 4000), kind: 'infrastructure' } } };
  }
  const evaluations = evaluationsOf(e, folder.features, notes);
  if (!evaluations)
    return { ...base, task: { ...task, error: { agents, message: 'imported: eval.json lacks a feature\u2019s result', kind: 'infrastructure' } } };

  // The task passes when every feature's tests pass: a claim in eval.json that says otherwise is not taken.
  const bothPassed = evaluations.every((f) => f.passed);
  const claimed = e.both_passed ?? e.all_passed;
  if (claimed !== undefined && claimed !== bothPassed) {
    const failed = evaluations.filter((f) => !f.passed).map((f) => `feature ${f.feature}`);
    notes.push(
      `${folder.rel}/eval.json says both_passed ${claimed}, but ${failed.length ? `${failed.join(' and ')} failed` : 'every feature passed'}: recomputed from the features (${bothPassed})`,
    );
  }
  const tested = { passed: bothPassed, verdict: evaluations };
  let merge: MergeResult;
  let attempts: Attempts;
  if (setting === 'coop') {
    if (!e.merge) {
      notes.push('eval.json has no merge');
      return { ...base, task: { ...task, error: { agents, message: 'imported: eval.json of a Coop task has no merge', kind: 'infrastructure' } } };
    }
    const mapped = mergeOf(e.merge, e.apply_status, tested);
    if (mapped.problem) notes.push(mapped.problem);
    const failedApply = applyFailures(e.apply_status);
    if (failedApply) notes.push(failedApply);
    const diff = e.merge.diff ?? '';
    if (diff.length >= UPSTREAM_DIFF_LIMIT) notes.push(`merged diff cut at ${UPSTREAM_DIFF_LIMIT} characters by CooperBench: judges see only that part`);
    merge = { ...mapped.merge, patch: diff, files: [], conflictRegions: [], droppedTestFiles: [], timingsMs: {} };
    attempts = mapped.attempts;
  } else {
    merge = { status: 'clean', strategy: 'naive', patch: agents[0]?.patch ?? '', files: [], conflictRegions: [], droppedTestFiles: [], timingsMs: {} };
    attempts = [{ stage: 'naive', outcome: 'merged', tested, final: true, durationMs: 0 }];
  }
  const taskResult: TaskResult = { image: '', dockerHost: '', baseRev: '', agents, merge, attempts, evaluations, bothPassed };
  return { ...base, task: { ...task, finishedAt: localTime(e.evaluated_at, zone) ?? finishedAt, result: taskResult } };
}
