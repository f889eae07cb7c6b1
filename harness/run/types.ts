// What one task produced: each agent's work, the merge, and the hidden tests' verdicts.
import type { AgentStatus } from '../agents/types.ts';
import type { TrajectoryStep } from '../agents/trajectory.ts';
import type { MergeResult, RegionResolution } from '../../resolver/types.ts';
import type { TestRun } from '../evaluation/run-tests.ts';

export interface AgentResult {
  agentId: string;
  model: string;
  features: number[];
  status: AgentStatus;
  error?: string;
  steps: TrajectoryStep[];
  /** git diff of the agent's repository against the base. */
  patch: string;
}

export interface FeatureEvaluation extends TestRun {
  feature: number;
}

/** What the LLM merge stage did for a pair whose union merge failed the tests. */
export interface LlmStageRecord {
  outcome: 'accepted' | 'rejected' | 'skipped' | 'error';
  reason?: string;
  latencyMs: number;
  model?: string;
  regions: RegionResolution[];
}

export interface EvaluationResult {
  /** How the agents' patches became the tested code. */
  merge: MergeResult;
  /** Present when the union result failed the tests and the LLM stage was considered. */
  llm?: LlmStageRecord;
  evaluations: FeatureEvaluation[];
  /** The task's success: every feature's tests pass on the merged code. */
  bothPassed: boolean;
}

export interface TaskResult extends EvaluationResult {
  image: string;
  /** Where the task's sandboxes ran: a Docker engine's address, or kubernetes:<namespace>@<server>. */
  dockerHost: string;
  baseRev: string;
  agents: AgentResult[];
}
