// `coop-bench clean` leaves a run that is going alone: its lock is held, or the process
// that made its containers is alive. Here the decision, with real locks and real processes; the
// integration test cleans during a real run (tests/integration/clean-live-run.test.ts).
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sortOut, type RunLockState } from '../../../../harness/commands/clean.ts';
import type { Leftover } from '../../../../harness/sandbox/labels.ts';
import { lockRun, probeRunLock } from '../../../../harness/store/run-lock.ts';
import { RunStore } from '../../../../harness/store/run-store.ts';

/** A process id that was alive and is not any more. */
const deadPid = Number(execFileSync('sh', ['-c', 'echo $$']).toString());
const container = (creator?: { host: string; pid: number }): Leftover => ({ id: 'c', run: 'r', where: 'unix:///var/run/docker.sock', creator });

const held: RunLockState = { state: 'held', where: 'runs/r/run.lock' };
const free: RunLockState = { state: 'free', where: 'runs/r/run.lock' };
const absent: RunLockState = { state: 'absent', where: '/abs/runs' };

describe('which containers clean removes', () => {
  const live = container({ host: hostname(), pid: process.ppid });
  const dead = container({ host: hostname(), pid: deadPid });
  const elsewhere = container({ host: 'another-machine', pid: deadPid });
  const legacy = container();
  const decide = (c: Leftover, lock: RunLockState) => {
    const { remove, keep } = sortOut([c], lock);
    return remove.length ? 'remove' : [...keep.keys()][0];
  };

  it('keeps every container of a run whose lock is held', () => {
    for (const c of [live, dead, elsewhere, legacy]) expect(decide(c, held)).toBe('in use: its lock runs/r/run.lock is held');
  });

  it('keeps the containers of a live process, whatever the lock says', () => {
    for (const lock of [free, absent]) expect(decide(live, lock)).toBe(`made by coop-bench process ${process.ppid}, still running`);
  });

  it('removes what a dead process left, with or without a run store to check', () => {
    for (const lock of [free, absent]) expect(decide(dead, lock)).toBe('remove');
  });

  it('keeps what another machine made: it cannot be checked from here', () => {
    expect(decide(elsewhere, absent)).toBe('made on host "another-machine": whether that run is over cannot be told from here (run clean there)');
  });

  it("keeps all of a run when any of it stays (a resumed run's pods and the policy an earlier process made)", () => {
    const { remove, keep } = sortOut(
      [
        { ...dead, id: 'networkpolicy/p' },
        { ...live, id: 'pod/a' },
      ],
      absent,
    );
    expect(remove).toEqual([]);
    expect([...keep]).toEqual([
      [`made by coop-bench process ${process.ppid}, still running`, 1],
      ['kept with the rest of its run', 1],
    ]);
  });

  it("removes containers of older versions (no creator label) only when the run's lock is free", () => {
    expect(decide(legacy, free)).toBe('remove');
    expect(decide(legacy, absent)).toBe('no run store under /abs/runs to check whether it is over (pass the --runs-dir it ran with)');
  });
});

describe("probing a run's lock", () => {
  const runs = mkdtempSync(join(tmpdir(), 'clean-lock-'));

  it('tells held from free from absent, and never makes a lock file', () => {
    const store = RunStore.open(runs, 'going', { create: true, exclusive: true });
    expect(probeRunLock(store.dir).state).toBe('held');
    store.close();
    const probe = probeRunLock(store.dir);
    expect(probe.state).toBe('free');
    // Taken while clean works: no run starts meanwhile.
    expect(() => lockRun(store.dir, 'going')).toThrow(/run going is in use by another coop-bench process/);
    if (probe.state === 'free') probe.lock.release();
    lockRun(store.dir, 'going').release();
    mkdirSync(join(runs, 'never-locked'));
    expect(probeRunLock(join(runs, 'never-locked')).state).toBe('absent');
    expect(probeRunLock(join(runs, 'never-locked')).state).toBe('absent');
  });
});
