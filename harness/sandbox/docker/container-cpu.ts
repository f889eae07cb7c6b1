// What a run's containers cost in CPU, by role, for the end-of-run summary: each agent and test
// container's cgroup CPU total, asked of the engine (a one-shot stats read) just before it is
// removed; and the CPU of the local engine's own daemons (dockerd, containerd) from /proc, when
// they run on this machine and may be read. A container already stopped has no cgroup left to read
// and counts nothing: the figures are a lower bound.
import type Docker from 'dockerode';
import { readdirSync, readFileSync } from 'node:fs';
import type { SandboxCpu } from '../types.ts';
import type { Engine } from './engine.ts';

/** Jiffies per second on Linux (USER_HZ). */
const HZ = 100;
const DAEMONS = new Set(['dockerd', 'containerd']);

const spent = { agentS: 0, testS: 0 };

/** Adds the container's CPU so far to its role's total; an engine that cannot say counts nothing. */
export async function countContainerCpu(container: Docker.Container, role: 'agent' | 'test'): Promise<void> {
  try {
    const stats = (await container.stats({ stream: false, 'one-shot': true } as { stream: false })) as { cpu_stats?: { cpu_usage?: { total_usage?: number } } };
    const ns = stats.cpu_stats?.cpu_usage?.total_usage;
    if (typeof ns === 'number' && Number.isFinite(ns) && ns > 0) spent[role === 'agent' ? 'agentS' : 'testS'] += ns / 1e9;
  } catch {
    // Gone already, or an engine without stats: nothing to count.
  }
}

/** user + system CPU seconds of the engine's daemons on this machine; undefined when none can be read. */
function daemonSeconds(): number | undefined {
  let total: number | undefined;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((pid) => /^\d+$/.test(pid));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!DAEMONS.has(stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')))) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime, stime: fields 14 and 15 of proc(5), counted from the state field (3).
      total = (total ?? 0) + (Number(fields[14 - 3]) + Number(fields[15 - 3])) / HZ;
    } catch {
      // A process that ended meanwhile.
    }
  }
  return total;
}

/** CPU so far of the containers removed, and of the daemons when every engine is this machine's. */
export function containerCpu(engines: Engine[]): SandboxCpu {
  const local = engines.every((engine) => engine.host.startsWith('unix://'));
  const engineS = local ? daemonSeconds() : undefined;
  return { ...spent, ...(engineS !== undefined && { engineS }) };
}
