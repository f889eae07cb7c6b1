// The peak resident memory of a running process (Linux VmHWM), sampled until it exits: how much
// the coop-bench process itself held, whatever its containers did.
import { readFileSync } from 'node:fs';

export function trackPeakRss(pid: number, everyMs = 100): { peakBytes(): number; stop(): void } {
  let peak = 0;
  const sample = () => {
    try {
      const kb = Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      peak = Math.max(peak, kb * 1024);
    } catch {
      // The process has exited: the last sample stands.
    }
  };
  const timer = setInterval(sample, everyMs);
  sample();
  return { peakBytes: () => peak, stop: () => clearInterval(timer) };
}
