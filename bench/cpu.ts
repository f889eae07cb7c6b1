// CPU accounting for the end-to-end benchmark, from /proc (Linux): the whole machine's busy time,
// and the CPU time of this process's finished children (the coop-bench CLI and its git processes).
import { execFileSync } from 'node:child_process';
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

const YARDSTICK_MIB = 256;

/**
 * CPU seconds a fresh process spends writing YARDSTICK_MIB of fresh memory (its start-up not
 * counted): what a CPU second is worth on this machine for the work a run is made of (process and
 * container starts, git, test runs all touch fresh memory). A machine whose memory runs at full
 * speed takes well under 0.1 s; a VM whose host makes each page costly takes many times that, and
 * every CPU figure of its tables grows with it.
 */
export function memoryYardstick(): { mib: number; cpuS: number } {
  const script = `const t = process.cpuUsage(); Buffer.allocUnsafe(${YARDSTICK_MIB} * 1024 * 1024).fill(1); const d = process.cpuUsage(t); console.log((d.user + d.system) / 1e6);`;
  return { mib: YARDSTICK_MIB, cpuS: Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim()) };
}
