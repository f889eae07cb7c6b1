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

/** CPU seconds (user + system) of this process's children that have exited and been waited for. */
export function finishedChildrenCpu(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  // Fields 16 and 17 of proc(5) (cutime, cstime), counted from the state field (3).
  return (fields[16 - 3]! + fields[17 - 3]!) / HZ;
}

/** Busy cores, on average, over a window. */
export function busyCores(before: { busy: number; total: number }, after: { busy: number; total: number }, cores: number): number {
  const total = after.total - before.total;
  return total > 0 ? ((after.busy - before.busy) / total) * cores : 0;
}
