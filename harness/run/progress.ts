// Live progress of a run: a bar on a terminal, one plain line per event otherwise (CI, logs).
import cliProgress from 'cli-progress';

export interface ProgressCounts {
  done: number;
  total: number;
  passed: number;
  errors: number;
  running: number;
  /** Agents' model calls so far, in USD. */
  costUsd: number;
}

export interface Progress {
  update(counts: ProgressCounts): void;
  /** A line for people: printed above the bar, or as is. */
  log(line: string): void;
  stop(): void;
}

class BarProgress implements Progress {
  private readonly bars = new cliProgress.MultiBar(
    {
      format: ' {bar} {value}/{total} tasks | both pass {passed} | errors {errors} | running {running} | ${cost} | {duration_formatted}',
      hideCursor: true,
      clearOnComplete: false,
      stream: process.stderr,
    },
    cliProgress.Presets.shades_classic,
  );
  private readonly bar: cliProgress.SingleBar;

  constructor(total: number) {
    this.bar = this.bars.create(total, 0, { passed: 0, errors: 0, running: 0, cost: '0.00' });
  }

  update({ done, total, passed, errors, running, costUsd }: ProgressCounts): void {
    this.bar.setTotal(total);
    this.bar.update(done, { passed, errors, running, cost: costUsd.toFixed(2) });
  }

  log(line: string): void {
    this.bars.log(`${line}\n`);
  }

  stop(): void {
    // Logged lines wait for the next redraw: draw once more so the last ones are not lost.
    this.bars.update();
    this.bars.stop();
  }
}

class LineProgress implements Progress {
  update(): void {}

  log(line: string): void {
    process.stderr.write(`${line}\n`);
  }

  stop(): void {}
}

export function createProgress(total: number): Progress {
  return process.stderr.isTTY ? new BarProgress(total) : new LineProgress();
}
