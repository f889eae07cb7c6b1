// What a run's pairs cost in CPU: stored per `run` command, read back per pair over all of them,
// printed as the summary's CPU line; a run.db from before CPU was stored opens and has none to print.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../../../harness/store/run-store.ts';
import { recordCpuUsage, runCpuUsage } from '../../../../harness/store/cpu-usage.ts';
import { cpuLine } from '../../../../harness/run/cpu-summary.ts';
import { writeLegacyRun } from '../../../helpers/legacy-run.ts';

const runs = mkdtempSync(join(tmpdir(), 'cpu-usage-'));
afterAll(() => rmSync(runs, { recursive: true, force: true }));

describe('CPU per pair', () => {
  it('adds up the commands of a resumed run and prints per pair, the engine scaled from the commands that read it', () => {
    const store = RunStore.open(runs, 'resumed', { create: true });
    recordCpuUsage(store, { pairs: 4, agentS: 2, testS: 5, engineS: 1.2, harnessS: 1 });
    recordCpuUsage(store, { pairs: 6, agentS: 3, testS: 7.5, harnessS: 2 });
    const usage = runCpuUsage(store)!;
    expect(usage).toEqual({ pairs: 10, agentS: 5, testS: 12.5, engineS: 3, harnessS: 3 });
    expect(cpuLine(usage)).toBe(
      'CPU per pair (10 pairs): test containers 1.25 s, agent containers 0.50 s, engine daemons 0.30 s (dockerd and containerd, every user of the engine), harness 0.30 s; 2.35 s in all',
    );
    store.close();
  });

  it('leaves out what was not measured: no line without a command that ran pairs, no engine when none read it', () => {
    const store = RunStore.open(runs, 'empty', { create: true });
    recordCpuUsage(store, { pairs: 0, agentS: 0, testS: 0, harnessS: 0.1 });
    expect(runCpuUsage(store)).toBeUndefined();
    recordCpuUsage(store, { pairs: 1, agentS: 0.5, testS: 1, harnessS: 0.25 });
    expect(cpuLine(runCpuUsage(store)!)).toBe('CPU per pair (1 pair): test containers 1.00 s, agent containers 0.50 s, harness 0.25 s; 1.75 s in all');
    expect(() => recordCpuUsage(store, { pairs: 1, agentS: Number.NaN, testS: 1, harnessS: 0 })).toThrow(/finite/);
    store.close();
  });

  it('opens a run.db written before CPU was stored: nothing to print, and the next command records', () => {
    writeLegacyRun(runs, 'old', [{ features: [1, 2], merge: { status: 'clean' }, passed: true }]);
    const store = RunStore.open(runs, 'old', { create: false });
    expect(runCpuUsage(store)).toBeUndefined();
    recordCpuUsage(store, { pairs: 1, agentS: 1, testS: 2, harnessS: 0.5 });
    expect(runCpuUsage(store)?.pairs).toBe(1);
    store.close();
  });
});
