// What a run's pairs cost in CPU, for the end-of-run summary: the sandboxes' CPU (the backend's
// accounting), the engine's daemons when they run on this machine, and this process's own, per
// pair. With the model's latency it says what limits --concurrency on a machine (docs/scaling.md).
import type { SandboxCpu } from '../sandbox/types.ts';
import type { CpuUsage } from '../store/cpu-usage.ts';

/** What `pairs` pairs cost between two readings of the backend's accounting and of this process's CPU. */
export function cpuSpent(before: SandboxCpu, after: SandboxCpu, harnessBefore: NodeJS.CpuUsage, pairs: number): CpuUsage {
  const { user, system } = process.cpuUsage(harnessBefore);
  const engineS = before.engineS !== undefined && after.engineS !== undefined ? Math.max(0, after.engineS - before.engineS) : undefined;
  return {
    pairs,
    agentS: Math.max(0, after.agentS - before.agentS),
    testS: Math.max(0, after.testS - before.testS),
    ...(engineS !== undefined && { engineS }),
    harnessS: (user + system) / 1e6,
  };
}

/** `CPU per pair (12 pairs): test containers 1.28 s, agent containers 0.56 s, engine daemons 0.35 s, harness 0.46 s; 2.65 s in all`. */
export function cpuLine(usage: CpuUsage): string {
  const per = (s: number) => `${(s / usage.pairs).toFixed(2)} s`;
  const parts = [
    `test containers ${per(usage.testS)}`,
    `agent containers ${per(usage.agentS)}`,
    ...(usage.engineS !== undefined ? [`engine daemons ${per(usage.engineS)} (dockerd and containerd, every user of the engine)`] : []),
    `harness ${per(usage.harnessS)}`,
  ];
  const all = usage.testS + usage.agentS + (usage.engineS ?? 0) + usage.harnessS;
  return `CPU per pair (${usage.pairs} pair${usage.pairs === 1 ? '' : 's'}): ${parts.join(', ')}; ${per(all)} in all`;
}
