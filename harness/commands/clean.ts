// `coop-bench clean`: removes the sandboxes (containers, pods) coop-bench runs left behind (found
// by label), never those of a run still going. A run is going while its lock (runs/<name>/run.lock)
// is held or while the process that created its sandboxes lives. What clean cannot check from here (no run store
// under --runs-dir, containers made on another machine) it leaves, and says so; --force removes all.
import { Command } from 'commander';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createBackend } from '../sandbox/registry.ts';
import { madeByAnotherLiveProcess, type Leftover } from '../sandbox/labels.ts';
import { probeRunLock, type LockProbe } from '../store/run-lock.ts';
import { checkRunName, runDir } from '../store/run-store.ts';
import { addBackendOptions, backendChoice } from './options.ts';
import { quoted } from '../errors.ts';

/** What is known of a run's lock under --runs-dir. */
export interface RunLockState {
  state: LockProbe['state'];
  /** The lock file, or the runs folder where there is none. */
  where: string;
  reason?: string;
}

/** Which of a run's containers may go, and why the others stay (reason → how many). */
export function sortOut(containers: Leftover[], lock: RunLockState): { remove: Leftover[]; keep: Map<string, number> } {
  const remove: Leftover[] = [];
  const keep = new Map<string, number>();
  const keepFor = (reason: string) => keep.set(reason, (keep.get(reason) ?? 0) + 1);
  for (const container of containers) {
    const { creator } = container;
    if (lock.state === 'held') keepFor(`in use: its lock ${lock.where} is held`);
    else if (madeByAnotherLiveProcess(container)) keepFor(`made by coop-bench process ${creator!.pid}, still running`);
    else if (creator && creator.host !== hostname())
      keepFor(`made on host ${quoted(creator.host)}: whether that run is over cannot be told from here (run clean there)`);
    else if (creator || lock.state === 'free') remove.push(container);
    else if (lock.state === 'unreadable') keepFor(`its lock ${lock.where} cannot be read (${lock.reason})`);
    else keepFor(`no run store under ${lock.where} to check whether it is over (pass the --runs-dir it ran with)`);
  }
  // A run's leftovers go together: a Kubernetes run's NetworkPolicy, made by an earlier process of
  // the run, must not go while a live process's pods still rely on it.
  if (keep.size > 0 && remove.length > 0) keep.set('kept with the rest of its run', remove.splice(0).length);
  return { remove, keep };
}

function probeLock(runsDir: string, run: string): { state: RunLockState; probe?: LockProbe } {
  let dir: string;
  try {
    dir = runDir(runsDir, run);
  } catch {
    // Not a name coop-bench gives a run: there is no store to find.
    return { state: { state: 'absent', where: runsDir } };
  }
  const probe = probeRunLock(dir);
  const where = probe.state === 'absent' ? runsDir : join(dir, 'run.lock');
  return { probe, state: { state: probe.state, where, reason: probe.state === 'unreadable' ? probe.reason : undefined } };
}

export function cleanCommand(): Command {
  const command = new Command('clean')
    .description('remove sandboxes (containers, pods) left behind by coop-bench runs (found by label); those of a run still going are left alone')
    .option('--name <run>', 'only the sandboxes of this run')
    .option('--runs-dir <dir>', 'where runs are stored (their locks tell which runs are still going)', 'runs')
    .option('--force', 'remove sandboxes even of runs that are going or cannot be checked (their tasks become errors)', false);
  return addBackendOptions(command).action(async (o) => {
    if (o.name !== undefined) checkRunName(o.name);
    const { name, ...where } = backendChoice(o);
    const backend = await createBackend(name, { ...where, log: (line) => process.stderr.write(`${line}\n`) });
    const noun = (n: number) => `${backend.sandboxNoun}${n === 1 ? '' : 's'}`;
    const byRun = new Map<string, Leftover[]>();
    for (const c of await backend.listLeftovers(o.name)) byRun.set(c.run, [...(byRun.get(c.run) ?? []), c]);
    let removed = 0;
    for (const [run, containers] of byRun) {
      if (o.force) {
        removed += await backend.removeSandboxes(containers);
        continue;
      }
      const { state, probe } = probeLock(o.runsDir, run);
      try {
        const { remove, keep } = sortOut(containers, state);
        removed += await backend.removeSandboxes(remove);
        for (const [reason, n] of keep) process.stdout.write(`skipped run ${quoted(run)} (${n} ${noun(n)}): ${reason}; --force removes them anyway\n`);
      } finally {
        if (probe?.state === 'free') probe.lock.release();
      }
    }
    process.stdout.write(`removed ${removed} ${noun(removed)}\n`);
  });
}
