// Benchmark tables without running the benchmarks: time to first step (bench/first-step.ts) beside
// image preparation, and table 4 (bench/end-to-end.ts) with the achievable bound beside the
// model-latency bound: the smaller of that bound and the CPU bound (cores over the CPU a pair
// needed in the same run), and the run's pairs per hour against it.
import { describe, expect, it } from 'vitest';
import { endToEndTable, type LevelResult } from '../../../bench/end-to-end.ts';
import { firstStepTable, readTimeline } from '../../../bench/first-step.ts';

/** A concurrency-16 level of 45 pairs (3 waves of 20 s: a 60 s latency bound) in a 100 s window; the machine: (1.5 - 0.1) x 110 s / 45 = 3.42 CPU s per pair. */
const level = (cpuPerPair: number): LevelResult => ({
  concurrency: 16,
  execChannel: true,
  tasks: 45,
  done: 45,
  passed: 0,
  wallS: 110,
  windowS: 100,
  meanTaskS: 30,
  callsPerAgent: 20,
  meanTestS: 0.6,
  busyCores: 1.5,
  backgroundCores: 0.1,
  harnessCpuPerPair: 0.4,
  engineMsPerStep: 15,
  backgroundEngineMsPerS: 2,
  cpuPerPair,
});

const column = (table: ReturnType<typeof endToEndTable>, name: string) => table.rows[0]![table.columns.indexOf(name)];

describe('table 4', () => {
  it('has the latency bound, the CPU bound, the achievable bound and the run against each', () => {
    const table = endToEndTable([level(4)], 'argkit_task', 2);
    for (const name of ['latency bound/h', 'CPU bound/h', 'achievable/h', 'of ideal', 'of achievable', 'CPU s/pair', 'machine CPU s/pair'])
      expect(table.columns).toContain(name);
    expect(table.rows[0]).toHaveLength(table.columns.length);
    // 45 pairs over 60 s; 2 cores / 4 s per pair = 1800 per hour, the smaller: 45 x 4 / 2 = 90 s.
    expect(column(table, 'latency bound/h')).toBe('2700');
    expect(column(table, 'CPU bound/h')).toBe('1800');
    expect(column(table, 'achievable/h')).toBe('1800');
    expect(column(table, 'of achievable')).toBe('90%');
    expect(table.target?.value).toBeCloseTo(0.9);
  });

  it("takes the whole machine's CPU per pair for the bound when the machine was busier than the processes counted", () => {
    // (1.9 busy - 0.1 before) x 110 s / 45 pairs = 4.40 CPU s: 2 cores x 3600 / 4.4 = 1636 pairs/h; the run: 1620.
    const table = endToEndTable([{ ...level(4), busyCores: 1.9 }], 'argkit_task', 2);
    expect(column(table, 'CPU s/pair')).toBe('4.00');
    expect(column(table, 'machine CPU s/pair')).toBe('4.40');
    expect(column(table, 'CPU bound/h')).toBe('1636');
    expect(column(table, 'of achievable')).toBe('99%');
  });

  it('takes the latency bound when the CPU allows more', () => {
    const table = endToEndTable([{ ...level(1), busyCores: 0.5 }], 'argkit_task', 2);
    expect(column(table, 'achievable/h')).toBe('2700');
    expect(column(table, 'of achievable')).toBe(column(table, 'of ideal'));
  });
});

describe('the time-to-first-step table', () => {
  /** Rounds' first calls, each [seconds from the spawn, CPU seconds by then]. */
  const calls = (...rounds: [number, number][]) => rounds.map(([s, cpuS]) => ({ s, cpuS }));

  it('prints the first model call beside image preparation, and their difference against the target', () => {
    const table = firstStepTable('argkit_task', [1, 1.2], calls([2.5, 1.2], [2.9, 1.4]), calls([2.4, 1.1], [2.6, 1.3]));
    expect(table.columns).toEqual(['run', 'first call s', 'run CPU s', 'image s', 'beyond image s', 'ratio']);
    expect(table.rows).toEqual([
      ['default (live preflight)', '2.70', '1.30', '1.10', '1.60', '2.45x'],
      ['--no-preflight', '2.50', '1.20', '1.10', '1.40', '2.27x'],
    ]);
    expect(table.target).toMatchObject({ value: expect.closeTo(1.6), met: true });
  });

  it("says where the time goes: each moment of the runs' timelines at its median, in order", () => {
    const timelines = ['310 command line loaded\n900 preflight answered\n', "290 command line loaded\n1100 preflight answered\n1500 agent1's base recorded\n"];
    const table = firstStepTable('argkit_task', [1, 1.2], calls([2.5, 1.2], [2.9, 1.4]), calls([2.4, 1.1], [2.6, 1.3]), timelines.map(readTimeline));
    expect(table.notes.at(-1)).toContain("command line loaded 0.30, preflight answered 1.00, agent1's base recorded 1.50; first call 2.70");
  });
});
