// The Docker engine's CPU from /proc (Linux, the engine on this machine): user + system time of
// dockerd, containerd and the containers' shims, with what their finished children (runc, the
// processes of execs) cost once reaped. A shim that exits with its container takes its time with
// it, so an operation is measured while the containers it made are still there. Other users of the
// engine (other engineers' tests on a shared machine) count too: take the least of a few rounds.
import { readdirSync, readFileSync } from 'node:fs';

const HZ = 100;
const ENGINE = /^(dockerd|containerd|containerd-shim.*)$/;

/** CPU ticks each engine process has used so far, by pid. */
function engineTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    if (!ENGINE.test(name)) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime: fields 14-17 of proc(5), counted from the state field (3).
    ticks.set(
      pid,
      [14, 15, 16, 17].reduce((sum, f) => sum + Number(fields[f - 3]), 0),
    );
  }
  return ticks;
}

/**
 * A snapshot of the engine's CPU; `since()` is the CPU seconds used after it by the engine's
 * processes that are still there (a shim that exited in between, someone else's container on a
 * shared engine, takes its time with it instead of making the difference negative).
 */
export function engineCpu(): { since(): number } {
  const before = engineTicks();
  return {
    since() {
      let ticks = 0;
      for (const [pid, now] of engineTicks()) ticks += now - (before.get(pid) ?? 0);
      return ticks / HZ;
    },
  };
}

/** Whether this process sees the engine's processes (not in a container of its own). */
export function engineVisible(): boolean {
  return engineTicks().size > 0;
}

/** Engine CPU ms per repetition: `prepare` makes what `operation` needs, `after` clears it, outside the window; least of `rounds`. */
export async function engineCostMs<T>(rounds: number, times: number, operation: () => Promise<T>, after: (made: T[]) => Promise<void>): Promise<number> {
  let least = Infinity;
  for (let round = 0; round < rounds; round++) {
    const made: T[] = [];
    const window = engineCpu();
    for (let i = 0; i < times; i++) made.push(await operation());
    const spent = window.since();
    await after(made);
    least = Math.min(least, (spent * 1000) / times);
  }
  return least;
}
