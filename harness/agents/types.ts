// The agent stage's interface: an agent works in its sandbox and leaves its changes in the repository;
// the harness takes the patch afterwards (git diff against the base), whatever the agent did.
import type { z } from 'zod';
import type { Feature, Pool } from '../../tasks/types.ts';
import type { BaseRepo, Sandbox } from '../sandbox/types.ts';
import type { Trajectory } from './trajectory.ts';
import type { Usage } from '../models/types.ts';

/** One agent's end of the task's message bus (harness/messaging/bus.ts). */
export interface Mailbox {
  readonly agentId: string;
  readonly partners: readonly string[];
  /** `to` is a partner's id, several, or `all`; throws MessageRejected, whose text is meant for the agent. */
  send(to: string | readonly string[], body: string): { to: string[]; note?: string };
  /** Messages to this agent not yet delivered, in send order; marks them delivered. */
  take(): { from: string; body: string }[];
  /** Resolves true once a message waits for this agent, false after the timeout; no polling. */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
}

export interface AgentContext {
  /** `agent1`, `agent2`, ... */
  agentId: string;
  sandbox: Sandbox;
  pool: Pool;
  /** What this agent implements: one feature in Coop, all of the task's in Solo. */
  features: Feature[];
  /** Ids of the other agents of the task (empty in Solo). */
  partners: string[];
  trajectory: Trajectory;
  signal: AbortSignal;
  /** An error of the sandbox's backend (engine, cluster, a sandbox that stopped): it ends the agent, it is no tool result. */
  isInfrastructureError(error: unknown): boolean;
  /** Absent in Solo and in the no-messaging ablation. */
  mailbox?: Mailbox;
  /** --git: remotes of the agent's own published branch and its partners' (read-only). */
  gitRemotes?: { self: string; partners: string[] };
  /** Tools a run condition gives (harness/messaging/conditions.ts), e.g. reading a partner's diff. */
  extraTools?: ExtraTool[];
  /** --probe: a model agent is asked about its partners every `every` steps, outside its conversation. */
  probe?: ProbeHook;
}

/** A belief probe's answer (its text, or the error of its model call), after `step` steps. */
export type ProbeAnswer = { step: number; model: string } & ({ text: string; usage: Usage } | { error: string });

export interface ProbeHook {
  every: number;
  /** Takes an answer to store and score; it never throws, and nothing of it goes back to the agent. */
  answered(answer: ProbeAnswer): Promise<void>;
}

/** A tool the harness adds for the agent beside its own; its text answer goes to the agent as is. */
export interface ExtraTool {
  name: string;
  description: string;
  schema: z.ZodObject;
  run(args: unknown, signal: AbortSignal): Promise<{ output: string; isError?: boolean }>;
}

/**
 * How an agent ended. `finished`: it called finish. The limits of its configuration: `step_limit`,
 * `cost_limit`, `time_limit`. The model's own failures: `context_exhausted` (the conversation no
 * longer fits the window, even summarised), `output_truncated` (its output kept hitting the output
 * limit), `model_rejected` (the provider refused a request for what the conversation holds; also
 * how a harness bug that still sends an invalid request shows), `refused` (the model declined to
 * go on, on its provider's safety policy: Anthropic's `refusal` stop reason, OpenAI's content
 * filter or refusal). What it did to its own sandbox: `disk_limit` (it wrote more than the
 * sandbox's storage limit, --disk), `sandbox_stopped` (its commands stopped the sandbox: killed all
 * its processes, ran it out of memory; its work there is lost, the patch is empty). `error`:
 * anything else that went wrong in the agent. Every one of them is scored with the agent's patch.
 */
export type AgentStatus =
  | 'finished'
  | 'step_limit'
  | 'cost_limit'
  | 'time_limit'
  | 'context_exhausted'
  | 'output_truncated'
  | 'model_rejected'
  | 'refused'
  | 'disk_limit'
  | 'sandbox_stopped'
  | 'error';

export const AGENT_STATUSES: readonly AgentStatus[] = [
  'finished',
  'step_limit',
  'cost_limit',
  'time_limit',
  'context_exhausted',
  'output_truncated',
  'model_rejected',
  'refused',
  'disk_limit',
  'sandbox_stopped',
  'error',
];

export interface AgentOutcome {
  status: AgentStatus;
  error?: string;
  /** The seat was a person's (`coop-bench play`), active this long (harness/play/active-time.ts). */
  person?: { activeMs: number };
}

/** A host folder an agent needs in its container, read-only (a socket it reaches the harness through). */
export interface AgentMount {
  hostPath: string;
  containerPath: string;
}

/** What an agent set up on the host before its container starts; `release` undoes it after the container is gone. */
export interface AgentHostSetup {
  mounts: AgentMount[];
  release(): Promise<void>;
}

/**
 * The task cannot be done as its pool gives it (a gold patch that does not apply, a missing
 * combined.patch): not the agent's failure, so the task is an error of kind `pool`, never scored or dropped.
 */
export class PoolDefectError extends Error {
  override name = 'PoolDefectError';
}

/** What an agent that needs no sandbox gets: the base repository on this machine instead. */
export interface HostPatchContext {
  agentId: string;
  pool: Pool;
  features: Feature[];
  base: BaseRepo;
  trajectory: Trajectory;
}

export type HostPatchResult = AgentOutcome & { patch: string };

export interface Agent {
  /** The model spec the agent was made from, as given by the user. */
  readonly model: string;
  /**
   * Agents that run inside their container (harness/agents/cli) start their host side here: the
   * model endpoint and the message server they reach through mounted sockets. Called once, before
   * `run`, with the context `run` will get minus the sandbox.
   */
  prepare?(context: Omit<AgentContext, 'sandbox' | 'trajectory'>): Promise<AgentHostSetup>;
  run(context: AgentContext): Promise<AgentOutcome>;
  /**
   * Agents whose patch needs no sandbox (the oracle): the patch, made on this machine, that `run`
   * would leave in a container, byte for byte. Used unless the run keeps every agent in a container.
   */
  patchOnHost?(context: HostPatchContext): Promise<HostPatchResult>;
}
