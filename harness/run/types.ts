// What one task produced: each agent's work, the merge, and the hidden tests' verdicts.
import type { AgentStatus } from '../agents/types.ts';
import type { TrajectoryStep } from '../agents/trajectory.ts';
import type { MergeAttempt, MergeResult } from '../../resolver/index.ts';
import type { TestRun } from '../evaluation/test-run.ts';

export interface AgentResult {
  agentId: string;
  model: string;
  features: number[];
  status: AgentStatus;
  error?: string;
  /** The seat was a person's (`coop-bench play`), active this long. */
  person?: { activeMs: number };
  steps: TrajectoryStep[];
  /** git diff of the agent's repository against the base. */
  patch: string;
}

export interface FeatureEvaluation extends TestRun {
  feature: number;
}

export interface EvaluationResult {
  /** How the agents' patches became the tested code. */
  merge: MergeResult;
  /** Every stage the merge cascade ran, in order, with the tests' verdict on its code. */
  attempts: MergeAttempt<FeatureEvaluation[]>[];
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
