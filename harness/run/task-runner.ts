// The one task runner of `run` and `eval`: tasks N at a time over the backend's slots, the cost
// budget, progress, errors kept per task (one task's failure never stops the others), and a clean
// stop on SIGINT/SIGTERM (sandboxes removed, then exit 130). What a task does is its stages: `run`
// runs agents, merges and tests and stores all of it; `eval` merges and tests stored patches again.
import pLimit from 'p-limit';
import type { BackendSlot, SandboxBackend } from '../sandbox/types.ts';
import { errorMessage } from '../errors.ts';
import { createProgress, type Progress, type ProgressCounts } from './progress.ts';
import { writeLines } from './stream-lines.ts';

/** Where a command's output goes: results on `out`, a long listing on `list`; lines for people on `log`; the live display of a task loop from `progress`. */
export interface RunIO {
  out(text: string): void;
  /** One result per line, taken at the reader's pace (memory stays flat); a reader gone away ends it quietly. */
  list(lines: Iterable<string>): Promise<void>;
  log(line: string): void;
  progress(total: number): Progress;
}

export const processIO: RunIO = {
  out: (text) => process.stdout.write(text),
  list: (lines) => writeLines(process.stdout, lines),
  log: (line) => process.stderr.write(`${line}\n`),
  progress: (total) => createProgress(total),
};

export interface RunnerTask {
  /** The task's row in the run store. */
  id: number;
  /** How progress names it. */
  label: string;
  /** Where it ran before (a re-evaluation goes back there when the backend has that place). */
  place?: string | null;
}

export interface StageContext {
  slot: BackendSlot;
  signal: AbortSignal;
  log(line: string): void;
  /** Model spending of the task as it happens (the cost budget, the progress bar). */
  spent(usd: number): void;
}

/** What one task does; `execute` resolves with its verdict once its results are stored. */
export interface TaskStages<T extends RunnerTask> {
  /** Verb of the progress line of a finished task (`done`, `evaluated`). */
  readonly finished: string;
  start?(task: T): void;
  execute(task: T, context: StageContext): Promise<{ bothPassed: boolean; detail: string }>;
  /** A task that failed (the stages threw): what the store keeps of it; returns what its progress line adds. */
  failed?(task: T, error: unknown): string | void;
  /**
   * An error that stops the whole run rather than fail one task (the store cannot take writes):
   * the runner stops as on Ctrl-C (no new task, sandboxes removed) and returns it.
   */
  fatal?(error: unknown): Error | undefined;
  /** After the task's results are stored (judges); its failure is logged, the task stays done. */
  after?(task: T): Promise<void>;
  /** SIGINT: what the store keeps of the run and of the tasks that were running; the last words. */
  interrupted?(running: T[], signal: NodeJS.Signals, counts: ProgressCounts): void;
}

export interface TaskRunnerOptions {
  run: string;
  backend: SandboxBackend;
  concurrency: number;
  /** Stop starting new tasks once the tasks' model calls have cost this much (USD). */
  maxCost?: number;
  io: RunIO;
  /** Tasks of the plan not given to the runner (finished earlier), counted in the progress. */
  skipped?: { done: number; passed: number };
  /** Spending so far (a resumed run). */
  costUsd?: number;
  /** Closes what the command opened (the store) after an interruption, before the process exits. */
  close(): void;
}

export interface TaskRunnerResult<T> {
  counts: ProgressCounts;
  /** A signal stopped the run: the handler is cleaning up and exits the process with 130. */
  interrupted: boolean;
  /** A fatal error stopped the run: it, and the tasks it left unfinished. */
  stopped?: { error: Error; stranded: T[] };
}

/**
 * Runs every task through its stages; resolves once all ran. On SIGINT/SIGTERM it stops starting
 * tasks, removes the backend's sandboxes of the run, lets the stages record the interruption, and
 * exits the process with 130 (a second signal exits at once).
 */
export async function runTasks<T extends RunnerTask>(tasks: T[], stages: TaskStages<T>, options: TaskRunnerOptions): Promise<TaskRunnerResult<T>> {
  const { backend, io } = options;
  const skipped = options.skipped ?? { done: 0, passed: 0 };
  const counts: ProgressCounts = {
    done: skipped.done,
    total: tasks.length + skipped.done,
    passed: skipped.passed,
    errors: 0,
    running: 0,
    costUsd: options.costUsd ?? 0,
  };
  const progress = io.progress(counts.total);
  progress.update(counts);
  const controller = new AbortController();
  const running = new Map<number, T>();

  const interrupt = installInterruptHandler(async (signal) => {
    controller.abort();
    // Taken now: tasks leave `running` as their sandboxes disappear below.
    const interrupted = [...running.values()];
    progress.log(`${signal}: stopping; removing sandboxes...`);
    await backend.removeOwn();
    await backend.removeLeftovers(options.run).catch(() => 0);
    progress.stop();
    stages.interrupted?.(interrupted, signal, counts);
    options.close();
  });

  let costLimitLogged = false;
  const overBudget = () => {
    if (options.maxCost === undefined || counts.costUsd < options.maxCost) return false;
    if (!costLimitLogged)
      progress.log(`cost limit reached ($${counts.costUsd.toFixed(2)} of --max-cost $${options.maxCost}): no new task starts; running ones finish`);
    costLimitLogged = true;
    return true;
  };

  const runOne = async (task: T) => {
    if (controller.signal.aborted || overBudget()) return;
    running.set(task.id, task);
    stages.start?.(task);
    counts.running++;
    progress.update(counts);
    const started = Date.now();
    const slot = backend.acquire(task.place);
    try {
      const context: StageContext = {
        slot,
        signal: controller.signal,
        log: (line) => progress.log(line),
        spent: (usd) => {
          counts.costUsd += usd;
          progress.update(counts);
        },
      };
      const verdict = await stages.execute(task, context);
      if (controller.signal.aborted) return;
      counts.done++;
      if (verdict.bothPassed) counts.passed++;
      const where = backend.placeCount > 1 ? ` on ${slot.where}` : '';
      progress.log(
        `${stages.finished.padEnd(5)} ${task.label}: ${verdict.bothPassed ? 'both pass' : 'not both'}${verdict.detail ? ` (${verdict.detail})` : ''} ${Math.round((Date.now() - started) / 1000)}s${where}`,
      );
    } catch (error) {
      if (controller.signal.aborted) return;
      // Not this task's failure: the run stops (below) and this task runs again on resume.
      if (stages.fatal?.(error)) throw error;
      const note = stages.failed?.(task, error) ?? '';
      counts.done++;
      counts.errors++;
      progress.log(`error ${task.label}: ${errorMessage(error).split('\n')[0]}${note}`);
      return;
    } finally {
      backend.release(slot);
      running.delete(task.id);
      counts.running--;
      progress.update(counts);
    }
    await stages.after?.(task).catch((error) => progress.log(`after ${task.label}: ${errorMessage(error).split('\n')[0]}`));
  };

  let stopped: { error: Error; stranded: Map<number, T> } | undefined;
  const stopOnFatal = async (error: unknown, task: T) => {
    const fatal = stages.fatal?.(error);
    if (!fatal) throw error;
    if (stopped) {
      stopped.stranded.set(task.id, task);
      return;
    }
    stopped = { error: fatal, stranded: new Map([...running, [task.id, task]]) };
    controller.abort();
    progress.log(`stopping: ${fatal.message}; removing sandboxes...`);
    await backend.removeOwn();
    await backend.removeLeftovers(options.run).catch(() => 0);
  };

  const limit = pLimit(Math.max(1, options.concurrency));
  try {
    await Promise.all(tasks.map((task) => limit(() => runOne(task).catch((error) => stopOnFatal(error, task)))));
  } finally {
    interrupt.dispose();
    // Test sandboxes started ahead for tasks that did not come.
    if (!controller.signal.aborted) await backend.removeSpares?.().catch((error) => progress.log(`removing spare sandboxes: ${errorMessage(error)}`));
  }
  if (stopped) {
    progress.stop();
    return { counts, interrupted: false, stopped: { error: stopped.error, stranded: [...stopped.stranded.values()] } };
  }
  if (!controller.signal.aborted) progress.stop();
  return { counts, interrupted: controller.signal.aborted };
}

/**
 * First SIGINT/SIGTERM: graceful stop (the handler removes sandboxes and records the
 * interruption), then exit 130. A second signal exits at once.
 */
function installInterruptHandler(stop: (signal: NodeJS.Signals) => Promise<void>) {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    stop(signal)
      .catch((error) => process.stderr.write(`while stopping: ${errorMessage(error)}\n`))
      .finally(() => process.exit(130));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
