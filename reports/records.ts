// What a report reads of a stored run. The harness's store gives these shapes (its own row types
// hold more); the report names only what it shows.
import type { ConversationMessage, JudgeLabel } from '../judges/types.ts';

export type TaskStatus = 'pending' | 'running' | 'done' | 'error' | 'interrupted';
/** Why a task did not finish. */
export type TaskErrorKind = 'infrastructure' | 'harness' | 'pool' | 'interrupted';

export interface RunInfo {
  name: string;
  status: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  options: unknown;
}

/** A judge's label with the model that gave it. */
export interface StoredLabel extends JudgeLabel {
  model: string;
}

export interface StoredEvaluation {
  feature: number;
  passed: boolean;
  exitCode: number | null;
  timedOut: boolean;
  framework: string | null;
  testsPassed: number | null;
  testsFailed: number | null;
  cause: string | null;
  output: string;
  durationMs: number;
  /** From the test cache: the same image, tests and code ran before. */
  cached: boolean;
}

/** One task in full: what its page shows. */
export interface TaskRecord {
  id: number;
  key: string;
  models: string[];
  setting: 'coop' | 'solo';
  /** '' or an ablation, e.g. `no-messaging`, `git`. */
  variant: string;
  repo: string;
  taskId: number;
  features: number[];
  status: TaskStatus;
  error: string | null;
  bothPassed: boolean | null;
  startedAt: string | null;
  finishedAt: string | null;
  agents: {
    agent: string;
    model: string;
    /** `human`: a person's seat (coop-bench play); `model`: an agent's. */
    seat: 'model' | 'human';
    /** A person's active time (ms); null for a model. */
    activeMs: number | null;
    features: number[];
    status: string;
    error: string | null;
    steps: number;
    patch: string;
  }[];
  merge?: { status: string; strategy: string | null; naiveClean: boolean; conflictRegions: number; reason: string | null; patch: string };
  evaluations: StoredEvaluation[];
  conversation: ConversationMessage[];
  steps: { agent: string; idx: number; at: string; kind: string; name: string | null; input: string | null; output: string | null; exitCode: number | null }[];
  modelCalls: { inputTokens: number; outputTokens: number; costUsd: number }[];
}
