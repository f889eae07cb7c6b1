// The Docker engine's CPU from /proc (Linux, the local engine): user + system time of dockerd,
// containerd and the containers' shims, with what their reaped children (runc, the processes of
// `docker exec`) cost. A shim exits with its container and takes its time with it, so a window
// samples every process while work runs and counts each up to its last sample. Other users of the
// engine on a shared machine count too: the figures are an upper bound, noted as such.
import { readdirSync, readFileSync } from 'node:fs';

const HZ = 100;
const ENGINE = /^(dockerd|containerd|containerd-shim.*)$/;

/**
 * CPU seconds so far of each engine process, by pid; `containerId`: only that container's shim.
 * `shimsReaped` false: a shim's own time only, without what it reaped, for windows in which
 * containers end (a shim reaps its container's init, and with it all the CPU of its processes).
 */
export function engineCpuByPid(containerId?: string, shimsReaped = true): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    let name: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!ENGINE.test(name)) continue;
      if (containerId && !(name.startsWith('containerd-shim') && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(containerId))) continue;
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime: fields 14-17 of proc(5), counted from the state field (3).
    const counted = shimsReaped || !name.startsWith('containerd-shim') ? [14, 15, 16, 17] : [14, 15];
    cpu.set(Number(pid), counted.reduce((sum, f) => sum + Number(fields[f - 3]), 0) / HZ);
  }
  return cpu;
}

/** Engine CPU spent from its start to `stop()`, sampled every `intervalMs`. */
export class EngineCpuWindow {
  private readonly first: Map<number, number>;
  private readonly last = new Map<number, number>();
  private readonly timer: NodeJS.Timeout;

  /** `containerId`: that container's shim only (its own, whatever else uses the engine); `shimsReaped`: see engineCpuByPid. */
  constructor(
    private readonly containerId?: string,
    intervalMs = 200,
    private readonly shimsReaped = true,
  ) {
    this.first = engineCpuByPid(containerId, shimsReaped);
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  private sample(): void {
    for (const [pid, seconds] of engineCpuByPid(this.containerId, this.shimsReaped)) this.last.set(pid, seconds);
  }

  /** CPU seconds of the engine's processes over the window (those born in it counted whole). */
  stop(): number {
    clearInterval(this.timer);
    this.sample();
    let spent = 0;
    for (const [pid, seconds] of this.last) spent += seconds - (this.first.get(pid) ?? 0);
    return spent;
  }
}

/** Whether this process sees the engine's processes (not in a container of its own). */
export function engineVisible(): boolean {
  return engineCpuByPid().size > 0;
}

/** Engine CPU ms per repetition of `operation`; `after` clears what it made, outside the window; least of `rounds`. */
export async function engineCostMs<T>(rounds: number, times: number, operation: () => Promise<T>, after: (made: T[]) => Promise<void>): Promise<number> {
  let least = Infinity;
  for (let round = 0; round < rounds; round++) {
    const made: T[] = [];
    const window = new EngineCpuWindow();
    for (let i = 0; i < times; i++) made.push(await operation());
    const spent = window.stop();
    await after(made);
    least = Math.min(least, (spent * 1000) / times);
  }
  return least;
}
