// CPU accounting for the end-to-end benchmark, from /proc (Linux): the whole machine's busy time,
// and the CPU time of this process's finished children (the coop-bench CLI and its git processes).
import { readFileSync } from 'node:fs';

/** Jiffies per second on Linux (USER_HZ). */
const HZ = 100;

/** Busy and total CPU seconds of the whole machine since boot (all cores). */
export function machineCpu(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, v) => sum + v, 0);
  const idle = fields[3]! + fields[4]!; // idle + iowait
  return { busy: (total - idle) / HZ, total: total / HZ };
}

/** Field `n` of a process's /proc/<pid>/stat (numbered as in proc(5), from 1). */
function statField(pid: number | 'self', n: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Counted from the state field (3), after the command's name in parentheses.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[n - 3]);
}

/** CPU seconds (user + system) of this process's children that have exited and been waited for. */
export function finishedChildrenCpu(): number {
  return (statField('self', 16) + statField('self', 17)) / HZ; // cutime, cstime
}

/** CPU seconds (user + system) a running process and its waited-for children have spent. */
export function processCpu(pid: number): number {
  return (statField(pid, 14) + statField(pid, 15)) / HZ + (statField(pid, 16) + statField(pid, 17)) / HZ; // utime, stime, cutime, cstime
}

/** Busy cores, on average, over a window. */
export function busyCores(before: { busy: number; total: number }, after: { busy: number; total: number }, cores: number): number {
  const total = after.total - before.total;
  return total > 0 ? ((after.busy - before.busy) / total) * cores : 0;
}
