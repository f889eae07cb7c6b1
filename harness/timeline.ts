// COOP_BENCH_TIMELINE=<file>: the moments a run passes on its way to its first model call, each as
// a line "<ms since the process started> <what>" appended to <file>; bench/first-step.ts reads them
// to show where the time to the first step goes. Unset (always, outside the benchmark): nothing.
import { appendFileSync } from 'node:fs';

const file = process.env.COOP_BENCH_TIMELINE;

export function mark(what: string): void {
  if (file) appendFileSync(file, `${performance.now().toFixed(0)} ${what}\n`);
}
