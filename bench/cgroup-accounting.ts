// CPU accounting groups (cgroup v1 cpuacct, root) for the CPU breakdown of an end-to-end run
// (cpu-breakdown.ts). Everything lives under one group, ACCOUNTING: the local engine's daemons (moved
// in for the window and moved back after), the processes the benchmark starts (through `inGroup`),
// and the containers (COOP_BENCH_CGROUP_PARENT, sandbox.ts: one group per role). cpuacct charges
// each group and all its ancestors as the CPU is spent, so a process or container that has exited
// and whose group is gone still counts in its parent: no sampling, nothing lost.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CGROUPS = '/sys/fs/cgroup';
const ACCT = join(CGROUPS, 'cpuacct');
export const ACCOUNTING = 'coop-bench-accounting';

/** Why accounting is not possible here, if it is not. */
export function accountingUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root (it moves the engine into a cgroup of its own)';
  if (!existsSync(join(ACCT, 'cpuacct.usage'))) return 'needs cgroup v1 cpuacct at /sys/fs/cgroup/cpuacct';
  return undefined;
}

/** The path of a group under ACCOUNTING in the cpuacct hierarchy, made when missing. */
export function accountingGroup(name: string): string {
  const dir = join(ACCT, ACCOUNTING, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** CPU seconds a group (and everything that ever ran below it) has spent; 0 when it does not exist. */
export function groupSeconds(name: string): number {
  try {
    return Number(readFileSync(join(ACCT, ACCOUNTING, name, 'cpuacct.usage'), 'utf8')) / 1e9;
  } catch {
    return 0;
  }
}

/** argv that runs `argv` in the group: the shell moves itself in, then becomes the command. */
export function inGroup(name: string, argv: string[]): [string, string[]] {
  return ['sh', ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', accountingGroup(name), ...argv]];
}

const pidsOf = (dir: string) => readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);

/** A process's cpuacct group (a path under the hierarchy's root). */
function cpuacctGroupOf(pid: number): string {
  const line = readFileSync(`/proc/${pid}/cgroup`, 'utf8')
    .split('\n')
    .find((l) => l.split(':')[1]?.split(',').includes('cpuacct'));
  if (!line) throw new Error(`process ${pid} has no cpuacct group`);
  return line.slice(line.indexOf(':', line.indexOf(':') + 1) + 1);
}

/** Name and parent of a process, from /proc/<pid>/stat. */
function statOf(pid: number): { name: string; ppid: number; cpuSeconds: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // ppid is field 4 of proc(5), utime and stime 14 and 15, counted from the state field (3); 100 ticks a second.
  return {
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    ppid: Number(fields[1]),
    cpuSeconds: (Number(fields[11]) + Number(fields[12])) / 100,
  };
}

/** dockerd's pid (from its pid file) and its containerd's. */
export function enginePids(pidFile = '/var/run/docker.pid'): { dockerd: number; containerd: number } {
  const dockerd = Number(readFileSync(pidFile, 'utf8').trim());
  const containerd = readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .find((pid) => {
      try {
        const { name, ppid } = statOf(pid);
        return name === 'containerd' && ppid === dockerd;
      } catch {
        return false;
      }
    });
  if (!containerd) throw new Error(`no containerd child of dockerd ${dockerd}`);
  return { dockerd, containerd };
}

/** Own CPU seconds (user + system, not its children's) of a live process. */
export const processSeconds = (pid: number): number => statOf(pid).cpuSeconds;

/**
 * The local engine's dockerd and containerd in group `name` until `restore()`. The shims containerd
 * starts meanwhile (one per container, with the runc they run) are born in it; the shims of
 * containers that already ran stay out. `restore()` moves every process of the group back where
 * the daemons were, and is also run on exit and on SIGINT/SIGTERM so that the engine never stays.
 */
export class EngineInGroup {
  private readonly dir: string;
  private readonly home: string;
  private restored = false;
  private readonly onSignal = (signal: NodeJS.Signals) => {
    this.restore();
    process.kill(process.pid, signal);
  };

  constructor(
    name: string,
    readonly pids: { dockerd: number; containerd: number },
  ) {
    this.home = cpuacctGroupOf(pids.dockerd);
    this.dir = accountingGroup(name);
    process.once('exit', () => this.restore());
    process.once('SIGINT', this.onSignal);
    process.once('SIGTERM', this.onSignal);
    for (const pid of [pids.dockerd, pids.containerd]) writeFileSync(join(this.dir, 'cgroup.procs'), String(pid));
  }

  restore(): void {
    if (this.restored) return;
    this.restored = true;
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
    for (const pid of pidsOf(this.dir)) {
      try {
        writeFileSync(join(ACCT, this.home, 'cgroup.procs'), String(pid));
      } catch {
        // It exited meanwhile.
      }
    }
    removeGroups(this.dir);
  }
}

/** Removes a group and the groups below it, deepest first; a group still holding processes stays. */
function removeGroups(dir: string): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeGroups(join(dir, entry.name));
  try {
    rmdirSync(dir);
  } catch {
    // Busy: a process or container is still in it (named in the benchmark's note).
  }
}

/** Removes ACCOUNTING from every hierarchy (runc makes the containers' groups in all of them); what stays, as paths. */
export function removeAccounting(): string[] {
  const left: string[] = [];
  for (const hierarchy of readdirSync(CGROUPS)) {
    const dir = join(CGROUPS, hierarchy, ACCOUNTING);
    removeGroups(dir);
    if (existsSync(dir)) left.push(dir);
  }
  return left;
}
