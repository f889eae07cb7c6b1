// Every sandbox coop-bench creates, whatever the backend, carries these labels, so that an
// interrupted run can remove its own and `coop-bench clean` can find leftovers of any run.
export const LABEL = 'coop-bench';
export const RUN_LABEL = 'coop-bench.run';
export const ROLE_LABEL = 'coop-bench.role';
export const TASK_LABEL = 'coop-bench.task';
export const AGENT_LABEL = 'coop-bench.agent';

export type ContainerRole = 'agent' | 'test' | 'extract';

/** An agent's sandbox also names its task (the store's id) and agent: `docker ps` tells them apart. */
export function containerLabels(run: string, role: ContainerRole, owner?: { task?: number; agent?: string }): Record<string, string> {
  return {
    [LABEL]: 'true',
    [RUN_LABEL]: run,
    [ROLE_LABEL]: role,
    ...(owner?.task !== undefined && { [TASK_LABEL]: String(owner.task) }),
    ...(owner?.agent !== undefined && { [AGENT_LABEL]: owner.agent }),
  };
}
