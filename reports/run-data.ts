// What the report's statistics need about every task of a run, named as the report names things
// (team, pair); the harness fills it from its store. Per-task pages read their details separately.
import type { RunInfo, StoredLabel, TaskErrorKind, TaskStatus } from './records.ts';
import type { CacheCount } from './cache-count.ts';
import { featureDirName } from '../tasks/types.ts';
import type { ModelMeasurement } from '../judges/calibration/model-scores.ts';
import type { TaskProcess } from './analysis/process.ts';
import type { TaskInitiative } from './analysis/initiative.ts';
import type { ScoredProbe } from './analysis/probes.ts';

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
  mergeAttempts: { stage: string; outcome: string; passed: boolean | null; final: boolean }[];
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
  /** Each seat's share of the initiative-taking messages, and the entropy (finished Coop tasks; analysis/initiative.ts). */
  initiative?: TaskInitiative;
  /** Its belief probes, scored (finished Coop tasks run with --probe; analysis/probes.ts). */
  probes?: ScoredProbe[];
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
