// Every sandbox coop-bench creates, whatever the backend, carries these labels, so that an
// interrupted run can remove its own and `coop-bench clean` can find leftovers of any run.
import { hostname } from 'node:os';
export const LABEL = 'coop-bench';
export const RUN_LABEL = 'coop-bench.run';
export const ROLE_LABEL = 'coop-bench.role';
export const TASK_LABEL = 'coop-bench.task';
export const AGENT_LABEL = 'coop-bench.agent';
/** The machine and process that created the sandbox: `clean` leaves those of a live process alone. */
export const HOST_LABEL = 'coop-bench.host';
export const PID_LABEL = 'coop-bench.pid';

export type ContainerRole = 'agent' | 'test' | 'extract';

/** An agent's sandbox also names its task (the store's id) and agent: `docker ps` tells them apart. */
export function containerLabels(run: string, role: ContainerRole, owner?: { task?: number; agent?: string }): Record<string, string> {
  return {
    [LABEL]: 'true',
    [RUN_LABEL]: run,
    [ROLE_LABEL]: role,
    [HOST_LABEL]: hostname(),
    [PID_LABEL]: String(process.pid),
    ...(owner?.task !== undefined && { [TASK_LABEL]: String(owner.task) }),
    ...(owner?.agent !== undefined && { [AGENT_LABEL]: owner.agent }),
  };
}

/** A sandbox (or what a backend keeps for a run) left behind, as its labels describe it. */
export interface Leftover {
  id: string;
  /** The run it belongs to (its run label). */
  run: string;
  /** Where it lives (a Docker engine's address, a cluster). */
  where: string;
  /** Who created it, when its labels say (those of older versions do not). */
  creator?: { host: string; pid: number };
}

/** Whether another process of this machine that is still alive created it. */
export function madeByAnotherLiveProcess(leftover: Pick<Leftover, 'creator'>): boolean {
  const { creator } = leftover;
  if (!creator || creator.host !== hostname() || creator.pid === process.pid) return false;
  try {
    process.kill(creator.pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, someone else's.
    return (error as { code?: string }).code === 'EPERM';
  }
}
