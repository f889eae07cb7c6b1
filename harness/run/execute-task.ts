// One task end to end: a sandbox per agent (one in Solo), the agents at work, their patches,
// then the evaluation stage. Every sandbox is removed whatever happens.
import type { Feature, TaskSpec } from '../../tasks/types.ts';
import { findFeature } from '../../tasks/pools.ts';
import type { AgentResult, TaskResult } from './types.ts';
import { PoolDefectError, type Agent, type AgentOutcome, type ProbeAnswer, type ProbeHook } from '../agents/types.ts';
import type { AgentSandbox, BackendSlot, BaseRepo, ContainerLimits, SandboxBackend, SandboxImage, TeamRepos } from '../sandbox/types.ts';
import { SandboxLimitError, SandboxStoppedError } from '../sandbox/errors.ts';
import type { TestCache } from '../evaluation/test-cache.ts';
import { Trajectory, type TrajectoryStep } from '../agents/trajectory.ts';
import type { MessageBus } from '../messaging/bus.ts';
import { evaluatePatches, type MergeStageOptions } from '../evaluation/evaluate.ts';
import { diffAgainstBase, PatchError, snapshotBase } from './workspace.ts';
import { configureTeamRemotes } from './git-remotes.ts';
import { TeamView } from './partner-view.ts';
import { channelOf, conditionTools, type RunConditions } from '../messaging/conditions.ts';
import { together, touchedBy, type Touched } from '../../reports/analysis/probes.ts';
import { errorMessage } from '../errors.ts';
import { INFRASTRUCTURE_KINDS, ModelError } from '../models/index.ts';
import { mark } from '../timeline.ts';

export interface TaskEnvironment {
  runName: string;
  /** The task's row in the run store: the message bus is keyed by it. */
  taskId: number;
  /** Where the task's sandboxes run. */
  backend: SandboxBackend;
  /** The share of the backend all of the task's sandboxes run on. */
  slot: BackendSlot;
  limits: ContainerLimits;
  testTimeoutMs: number;
  signal: AbortSignal;
  log: (line: string) => void;
  createAgent: (spec: string, agentId: string) => Agent;
  /** Every agent in a sandbox, also those that can give their patch without one (--oracle-in-container). */
  agentsInSandboxes: boolean;
  /** Each trajectory step as it is recorded (the store keeps it at once). */
  recordStep?: (agentId: string, step: TrajectoryStep) => void;
  /** Present when agents of a Coop task may message each other. */
  bus?: MessageBus;
  /** --git: agents can fetch each other's published branches. */
  git: boolean;
  /** Coop: the run's conditions (--bandwidth, --latency, --visibility). */
  conditions?: RunConditions;
  merge: MergeStageOptions;
  testCache?: TestCache;
  /** Coop, --probe: model agents are asked about their partners every `every` steps; `record` stores an answer. */
  probe?: { every: number; record(agentId: string, answer: ProbeAnswer, partnersThen: Touched): void };
}

interface Assignment {
  agentId: string;
  model: string;
  features: Feature[];
}

interface TeamMember extends Assignment {
  agent: Agent;
  /** It gives its patch on this machine: no sandbox (the oracle). */
  onHost: boolean;
}

/** Coop: agent i implements feature i. Solo: one agent implements them all. */
export function assignments(task: TaskSpec): Assignment[] {
  const features = task.features.map((id) => findFeature(task.pool, id));
  if (task.setting === 'solo') return [{ agentId: 'agent1', model: task.models[0], features }];
  return features.map((feature, i) => ({ agentId: `agent${i + 1}`, model: task.models[i], features: [feature] }));
}

/** The agent's patch made on this machine against the base repository: no sandbox. */
async function patchOnHost(task: TaskSpec, member: TeamMember, base: BaseRepo, env: TaskEnvironment, view: TeamView): Promise<AgentResult> {
  const { agentId, agent } = member;
  const trajectory = new Trajectory((step) => env.recordStep?.(agentId, step));
  const { patch, ...outcome } = await agent.patchOnHost!({ agentId, pool: task.pool, features: member.features, base, trajectory });
  view.stopped(agentId, Promise.resolve(patch));
  return { agentId, model: member.model, features: member.features.map((f) => f.id), ...outcome, steps: trajectory.steps, patch };
}

async function runAgent(
  task: TaskSpec,
  assignment: TeamMember,
  team: string[],
  image: SandboxImage,
  env: TaskEnvironment,
  signal: AbortSignal,
  view: TeamView,
  teamRepos?: TeamRepos,
): Promise<AgentResult> {
  const { agentId, agent } = assignment;
  const partners = task.setting === 'coop' ? team.filter((id) => id !== agentId) : [];
  const conditions = env.conditions ?? {};
  const extraTools = conditionTools(conditions, partners, view);
  const context = {
    agentId,
    pool: task.pool,
    features: assignment.features,
    partners,
    signal,
    mailbox: env.bus && partners.length > 0 ? env.bus.mailbox(env.taskId, agentId, partners, channelOf(conditions)) : undefined,
    gitRemotes: teamRepos ? { self: agentId, partners } : undefined,
    ...(extraTools.length > 0 ? { extraTools } : {}),
    ...(env.probe && partners.length > 0 ? { probe: probeHook(env, agentId, partners, view, signal) } : {}),
    isInfrastructureError: (error: unknown) => env.backend.isInfrastructureError(error),
  };
  // What partners see of this agent once it stops: the patch taken below ('' when none is).
  let leftPatch: (patch: string) => void = () => {};
  const markStopped = () => view.stopped(agentId, new Promise<string>((resolve) => (leftPatch = resolve)));
  const host = await agent.prepare?.(context);
  try {
    const sandbox = await env.slot.startAgentSandbox({
      image,
      run: env.runName,
      task: env.taskId,
      agent: agentId,
      limits: env.limits,
      teamRepos,
      mounts: host?.mounts,
    });
    mark(`${agentId}'s sandbox started`);
    try {
      const base = await snapshotBase(sandbox);
      mark(`${agentId}'s base recorded`);
      view.working(agentId, sandbox, base);
      if (teamRepos) await configureTeamRemotes(sandbox, team);
      const trajectory = new Trajectory((step) => env.recordStep?.(agentId, step));
      const result = (outcome: AgentOutcome, patch: string): AgentResult => ({
        agentId,
        model: assignment.model,
        features: assignment.features.map((f) => f.id),
        ...outcome,
        steps: trajectory.steps,
        patch,
      });
      // A watched limit the agent went over stops it as a stop request would.
      const overLimit = sandbox.limitReached;
      const overLimitEnding = async (): Promise<AgentOutcome | undefined> => {
        await sandbox.checkLimits?.();
        const reason: unknown = overLimit?.aborted ? overLimit.reason : undefined;
        return reason instanceof SandboxLimitError ? { status: reason.status, error: reason.message } : undefined;
      };
      let outcome: AgentOutcome;
      try {
        outcome = await agent.run({ ...context, signal: overLimit ? AbortSignal.any([signal, overLimit]) : signal, sandbox, trajectory });
        markStopped();
      } catch (error) {
        markStopped();
        const limited = signal.aborted ? undefined : await overLimitEnding();
        if (limited) return result(limited, '');
        const stopped = stoppedByAgent(error, env.backend.sandboxNoun);
        if (stopped) return result(stopped, '');
        // A model API that keeps failing, a stop request, a broken pool: the task did not run, it is
        // not a result. Anything else the agent threw ends the agent, and the task is scored with its patch.
        if (signal.aborted || isInfrastructureError(error, env.backend) || error instanceof PoolDefectError) throw error;
        outcome = { status: error instanceof ModelError ? 'model_rejected' : 'error', error: errorMessage(error) };
      }
      const limited = await overLimitEnding();
      if (limited) return result(limited, '');
      // The patch is whatever the repository holds now, even after an agent error.
      let taken: { patch: string; error?: string };
      try {
        taken = await agentPatch(sandbox, base);
      } catch (error) {
        // A process the agent left running stopped the sandbox after its last step.
        const stopped = stoppedByAgent(error, env.backend.sandboxNoun);
        if (stopped) return result(stopped, '');
        throw error;
      }
      if (taken.error) outcome = { status: 'error', error: outcome.error ? `${outcome.error}; ${taken.error}` : taken.error };
      leftPatch(taken.patch);
      return result(outcome, taken.patch);
    } catch (error) {
      if (!(error instanceof SandboxStoppedError)) throw error;
      throw new Error(`${agentId}'s ${env.backend.sandboxNoun} stopped during the task, not by anything it ran (${error.how})`, { cause: error });
    } finally {
      leftPatch('');
      await sandbox.remove();
    }
  } finally {
    await host?.release();
  }
}

/** Each answer is stored with what the partners' patches touch as it arrives; a failure to read them is logged, never the agent's. */
function probeHook(env: TaskEnvironment, agentId: string, partners: string[], view: TeamView, signal: AbortSignal): ProbeHook {
  const probe = env.probe!;
  return {
    every: probe.every,
    async answered(answer) {
      try {
        const patches = await Promise.all(partners.map((p) => view.patch(p, signal)));
        probe.record(agentId, answer, together(patches.map(touchedBy)));
      } catch (error) {
        if (!signal.aborted) env.log(`${agentId}'s belief probe after step ${answer.step} not stored: ${errorMessage(error)}`);
      }
    },
  };
}

/**
 * The agent's ending when `error` says its sandbox stopped because of what ran in it (its own
 * commands killed every process, or ran it out of memory): scored, its work there lost.
 */
function stoppedByAgent(error: unknown, noun: string): AgentOutcome | undefined {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof SandboxStoppedError && cause.byItsProcesses) {
      return { status: 'sandbox_stopped', error: `the agent's ${noun} stopped: ${cause.how}; what it changed there is lost (empty patch)` };
    }
  }
  return undefined;
}

/** A repository that yields no patch is the agent's error: its patch is empty. */
async function agentPatch(sandbox: AgentSandbox, base: string): Promise<{ patch: string; error?: string }> {
  try {
    return { patch: await diffAgainstBase(sandbox, base) };
  } catch (error) {
    if (error instanceof PatchError) return { patch: '', error: error.message };
    throw error;
  }
}

/**
 * Errors that say nothing about the agent (a model API that could not be reached or kept failing
 * after its retries, the sandbox backend's): the task is marked error, not scored, and run again on
 * resume (run/error-kind.ts). A 4xx the model's own output caused is the agent's failure.
 */
function isInfrastructureError(error: unknown, backend: SandboxBackend): boolean {
  return (error instanceof ModelError && INFRASTRUCTURE_KINDS.includes(error.kind)) || backend.isInfrastructureError(error);
}

/**
 * Runs every agent; when one fails the others are stopped (the task is an error whatever they do)
 * and the first failure, not the stops it caused, is the task's error.
 */
async function runTeam<T>(run: (signal: AbortSignal) => Promise<T>[], parent: AbortSignal): Promise<T[]> {
  const stop = new AbortController();
  const signal = AbortSignal.any([parent, stop.signal]);
  let firstFailure: { error: unknown } | undefined;
  const settled = await Promise.allSettled(
    run(signal).map((agent) =>
      agent.catch((error: unknown) => {
        firstFailure ??= { error };
        stop.abort(error);
        throw error;
      }),
    ),
  );
  if (firstFailure) throw firstFailure.error;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

export async function executeTask(task: TaskSpec, env: TaskEnvironment): Promise<TaskResult> {
  mark('task started');
  const image = await env.slot.prepareImage(task.pool, env.runName, env.log);
  // Copied (once per image) while the agents start: only patches made on this machine and the merge need it.
  const baseCopy = env.slot.baseRepo(image, env.runName);
  // A copy that fails stops the agents: the task cannot be merged, and is that copy's error.
  const baseFailed = new AbortController();
  baseCopy.catch((error: unknown) => baseFailed.abort(error));
  const team = assignments(task).map((a): TeamMember => {
    const agent = env.createAgent(a.model, a.agentId);
    return { ...a, agent, onHost: !!agent.patchOnHost && !env.agentsInSandboxes };
  });
  const ids = team.map((a) => a.agentId);
  // Agents without a sandbox publish no branch: the team's repositories are for those in one.
  const teamRepos = env.git && task.setting === 'coop' && team.some((a) => !a.onHost) ? await env.backend.createTeamRepos(ids) : undefined;
  const view = new TeamView();
  let agents: AgentResult[];
  try {
    agents = await runTeam(
      (signal) =>
        team.map(async (a) => (a.onHost ? patchOnHost(task, a, await baseCopy, env, view) : runAgent(task, a, ids, image, env, signal, view, teamRepos))),
      AbortSignal.any([env.signal, baseFailed.signal]),
    );
  } catch (error) {
    throw baseFailed.signal.aborted ? baseFailed.signal.reason : error;
  } finally {
    await teamRepos?.remove();
  }
  const base = await baseCopy;
  const evaluation = await evaluatePatches({
    features: team.flatMap((a) => a.features),
    patches: agents.map((a) => a.patch),
    base,
    tests: {
      slot: env.slot,
      image,
      run: env.runName,
      task: env.taskId,
      limits: env.limits,
      timeoutMs: env.testTimeoutMs,
      cache: env.testCache,
      keepWarm: true,
    },
    merge: env.merge,
  });
  return { ...evaluation, image: image.name, dockerHost: env.slot.where, baseRev: base.rev, agents };
}
