// Machine-readable exports: the whole summary as JSON, one row per task as CSV.
import type { RunSummary } from './summary.ts';
import type { TaskOutcome } from './run-data.ts';
import { conditionOf } from './analysis/conditions.ts';
import { passesAfterStructural } from '../resolver/index.ts';

export function reportJson(summary: RunSummary, tasks: TaskOutcome[]): string {
  const rows = tasks.map((t) => ({ ...t, condition: conditionOf(t), difficulty: summary.difficulty.difficulty[t.pair] ?? null }));
  return `${JSON.stringify({ summary, tasks: rows }, null, 2)}\n`;
}

/**
 * One CSV field. Text that a spreadsheet would read as a formula (=, +, -, @ first) gets a leading
 * apostrophe: error messages and labels come from agents and models.
 */
export function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csv(header: string[], rows: (string | number | boolean | null)[][]): string {
  return [header, ...rows].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}

export function tasksCsv(summary: RunSummary, tasks: TaskOutcome[]): string {
  const header = [
    'id',
    'key',
    'model',
    'condition',
    'setting',
    'variant',
    'repo',
    'task_id',
    'features',
    'pair',
    'difficulty',
    'status',
    'passed',
    'merge_status',
    'naive_clean',
    'pass_after_structural',
    'steps',
    'messages',
    'model_calls',
    'input_tokens',
    'cache_read_tokens',
    'cache_write_tokens',
    'output_tokens',
    'cost_usd',
    'labels',
    'error_kind',
    'agent_endings',
    'agent_config',
    'tests_cached',
    'edit_efficiency',
    'steps_before_first_message',
    'steps_before_first_edit',
    'first_message_by',
    'reply_share',
    'median_reply_s',
    'first_collision_s',
    'seats',
    'initiative_share',
    'initiative_entropy',
    'initiative_labelled_by',
    'initiative_unmeasured',
    'probes',
    'probes_unparsable',
    'probe_files_final',
    'probe_functions_final',
    'probe_conflict_right',
    'probe_cost_usd',
    'error',
  ];
  const rows = tasks.map((t) => [
    t.id,
    t.key,
    t.team,
    conditionOf(t),
    t.setting,
    t.variant,
    t.repo,
    t.taskId,
    t.features.join(' '),
    t.pair,
    summary.difficulty.difficulty[t.pair] ?? null,
    t.status,
    t.passed,
    t.mergeStatus,
    t.naiveClean,
    t.setting === 'coop' ? structuralCsv(passesAfterStructural(t.mergeAttempts)) : null,
    t.steps,
    t.messages,
    t.modelCalls,
    t.inputTokens,
    t.cacheReadTokens,
    t.cacheWriteTokens,
    t.outputTokens,
    t.costUsd,
    t.labels.map((l) => `${l.judge}:${l.label}`).join('; '),
    t.errorKind,
    t.agentEndings.join(' '),
    t.agentConfig,
    t.testRuns.cached,
    ...processFields(t),
    ...initiativeFields(t),
    ...probeFields(t),
    t.error,
  ]);
  return csv(header, rows);
}

/** Per agent, in agent order, space-separated (`0.75 1`; `-` for an agent without that measure). */
const perAgent = (values: (number | null)[]) => values.map((v) => (v === null ? '-' : String(Math.round(v * 1000) / 1000))).join(' ');

/** The process measures' columns (analysis/process.ts); empty for a task without them. */
function processFields(t: TaskOutcome): (string | number | null)[] {
  const p = t.process;
  if (!p) return [null, null, null, null, null, null, null];
  return [
    perAgent(p.agents.map((a) => a.editEfficiency)),
    perAgent(p.agents.map((a) => a.stepsBeforeFirstMessage)),
    perAgent(p.agents.map((a) => a.stepsBeforeFirstEdit)),
    p.firstMessageBy,
    p.replyShare,
    p.medianReplySeconds,
    p.firstCollisionSeconds,
  ];
}

/** The initiative columns (analysis/initiative.ts): each seat's kind and share, in seat order, and the team's entropy; empty without them. */
function initiativeFields(t: TaskOutcome): (string | number | null)[] {
  const i = t.initiative;
  if (!i) return [null, null, null, null, null];
  return [i.seats.map((s) => s.kind).join(' '), i.entropy === null ? null : perAgent(i.seats.map((s) => s.share)), i.entropy, i.labelledBy, i.unmeasured];
}

/** The belief probes' columns (analysis/probes.ts): counts, mean final Jaccards, share of right conflict calls; empty without probes. */
function probeFields(t: TaskOutcome): (string | number | null)[] {
  const ps = t.probes;
  if (!ps || ps.length === 0) return [null, null, null, null, null, null];
  const mean = (xs: number[]) => (xs.length === 0 ? null : Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000) / 1000);
  const verdicts = ps.flatMap((p) => (p.conflictRight === null ? [] : [p.conflictRight ? 1 : 0]));
  return [
    ps.length,
    ps.filter((p) => p.status === 'unparsable').length,
    mean(ps.flatMap((p) => (p.final ? [p.final.files.jaccard] : []))),
    mean(ps.flatMap((p) => (p.final ? [p.final.functions.jaccard] : []))),
    mean(verdicts),
    ps.reduce((s, p) => s + p.costUsd, 0),
  ];
}

/** The structural probe's verdict for a task: true/false, empty when not measured. */
const structuralCsv = (verdict: boolean | 'unmeasured' | undefined): boolean | null => (typeof verdict === 'boolean' ? verdict : null);
