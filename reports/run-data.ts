// What the report's statistics need about every task of a run, from the store's reader
// (harness/store/run-log.ts), named as the report names things (team, pair). Per-task pages read
// their details separately.
import type { TaskErrorKind, TaskStatus } from '../harness/store/run-store.ts';
import type { StoredAttempt } from '../harness/store/merge-attempts.ts';
import type { StoredLabel } from '../harness/store/judge-results.ts';
import { readRunLog, type RunInfo } from '../harness/store/run-log.ts';
import type { RunStore } from '../harness/store/run-store.ts';
import type { CacheCount } from '../harness/store/test-cache.ts';
import { featureDirName, teamName } from '../tasks/types.ts';
import { readModelScores, type ModelMeasurement } from '../judges/calibration/model-scores.ts';
import { dirname } from 'node:path';
import type { TaskProcess } from './analysis/process.ts';

export type { RunInfo };

/** A stored label as the report shows it: each piece of evidence as its text, an absent message or agent as null. */
export interface LabelView extends Omit<StoredLabel, 'evidence' | 'messageId' | 'agent'> {
  messageId: number | null;
  agent: string | null;
  evidence: string[];
}

export const labelView = (l: StoredLabel): LabelView => ({
  judge: l.judge,
  label: l.label,
  isPrimary: l.isPrimary,
  messageId: l.messageId ?? null,
  agent: l.agent ?? null,
  description: l.description,
  evidence: l.evidence.map((e) => e.text),
  model: l.model,
});

export interface TaskOutcome {
  id: number;
  key: string;
  /** Model or team name: `gpt-5` for Solo and self-play Coop, `gpt-5+claude` for a mixed team. */
  team: string;
  setting: 'coop' | 'solo';
  /** '' or an ablation, e.g. `no-messaging`, `git`. */
  variant: string;
  repo: string;
  taskId: number;
  features: number[];
  /** The feature set's identity across settings and models (difficulty is per pair). */
  pair: string;
  status: TaskStatus;
  error: string | null;
  /** Why the task did not finish (infrastructure, harness, interrupted); null when it did or has not run. */
  errorKind: TaskErrorKind | null;
  /** Hash of the agent configuration it ran with. */
  agentConfig: string | null;
  /** How each agent ended (finished, step_limit, context_exhausted, model_rejected, ...), by agent. */
  agentEndings: string[];
  /** Both (all) features' tests pass on the merged code; null unless done. */
  passed: boolean | null;
  /** The merge's status (the final stage's, `conflict`, `missing_input`); null without a merge. */
  mergeStatus: string | null;
  naiveClean: boolean | null;
  /** The merge cascade's attempts (stage, outcome, tests' verdict), in order. */
  mergeAttempts: Pick<StoredAttempt, 'stage' | 'outcome' | 'passed' | 'final'>[];
  steps: number;
  messages: number;
  modelCalls: number;
  inputTokens: number;
  /** Of inputTokens: read from, and written to, the prompt cache. */
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  costUsd: number;
  labels: LabelView[];
  /** Its feature evaluations, and how many the test cache gave. */
  testRuns: CacheCount;
  /** How its agents worked (finished Coop tasks; analysis/process.ts). */
  process?: TaskProcess;
}

export interface RunData {
  run: RunInfo;
  tasks: TaskOutcome[];
  /** Damaged rows, one line each saying what became of them; a task with one is counted as an error. */
  damaged: string[];
  /** The LLM judges' calibration per judge model, stored beside the runs (judges/calibration/model-scores.ts). */
  judgeCalibration: ModelMeasurement[];
}

export function pairName(repo: string, taskId: number, features: number[]): string {
  return `${repo}/task${taskId}/${featureDirName(features)}`;
}

export function loadRunData(store: RunStore): RunData {
  const log = readRunLog(store);
  const tasks = log.tasks.map((t): TaskOutcome => ({
    id: t.id,
    key: t.key,
    team: teamName(t.models),
    setting: t.setting,
    variant: t.variant,
    repo: t.repo,
    taskId: t.taskId,
    features: t.features,
    pair: pairName(t.repo, t.taskId, t.features),
    status: t.status,
    error: t.error,
    errorKind: t.errorKind,
    agentConfig: t.agentConfig,
    agentEndings: t.agentEndings,
    passed: t.status === 'done' ? t.bothPassed === true : null,
    mergeStatus: t.mergeStatus,
    naiveClean: t.naiveClean,
    mergeAttempts: t.attempts.map(({ stage, outcome, passed, final }) => ({ stage, outcome, passed, final })),
    steps: t.steps,
    messages: t.messages,
    modelCalls: t.usage.calls,
    inputTokens: t.usage.inputTokens,
    cacheReadTokens: t.usage.cacheReadTokens,
    cacheWriteTokens: t.usage.cacheWriteTokens,
    outputTokens: t.usage.outputTokens,
    costUsd: t.usage.costUsd,
    labels: t.labels.map(labelView),
    testRuns: t.testRuns,
  }));
  return { run: log.run, tasks, damaged: log.damaged, judgeCalibration: readModelScores(dirname(store.dir)) };
}
