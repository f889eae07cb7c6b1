import { describe, expect, it } from 'vitest';
import {
  difficultyBuckets,
  difficultyCounts,
  curvePoints,
  difference,
  emptyBuckets,
  poolBuckets,
  proportion,
  rawDifficulty,
  rescale,
  retention,
  summarizeCurve,
  trapezoidAuc,
  wilson,
} from '../../../reports/stats.ts';

const round2 = (x: number | null) => (x === null ? null : Math.round(x * 100) / 100);

describe('Wilson interval', () => {
  it("matches the paper's human validation: 48 of 50 gives [86%, 99%] (appendix G)", () => {
    const { low, high } = wilson(48, 50);
    expect(low).toBeCloseTo(0.86, 1);
    expect(Math.abs(low - 0.86)).toBeLessThan(0.01);
    expect(round2(high)).toBe(0.99);
  });

  it("brackets figure 4's Solo rates (652 tasks per model)", () => {
    expect(round2(proportion(315, 652).p)).toBe(0.48);
    expect(round2(proportion(183, 652).p)).toBe(0.28);
    const { low, high } = proportion(315, 652);
    expect(low).toBeGreaterThan(0.44);
    expect(high).toBeLessThan(0.53);
  });

  it('stays inside [0, 1] at the edges and is wide for tiny samples', () => {
    expect(wilson(0, 5).low).toBe(0);
    expect(wilson(5, 5).high).toBe(1);
    expect(wilson(0, 5).high).toBeGreaterThan(0.4);
    expect(wilson(1, 1).low).toBeGreaterThan(0.2);
    expect(() => wilson(0, 0)).toThrow(RangeError);
  });
});

describe('difference of rates', () => {
  it('is centred on the difference and contains zero when the samples cannot tell them apart', () => {
    const d = difference(proportion(10, 20), proportion(9, 20));
    expect(d.diff).toBeCloseTo(0.05);
    expect(d.low).toBeLessThan(0);
    expect(d.high).toBeGreaterThan(0);
  });

  it('excludes zero for a large gap (gpt-5 Solo vs Coop in the paper)', () => {
    const d = difference(proportion(315, 652), proportion(183, 652));
    expect(d.low).toBeGreaterThan(0.14);
    expect(d.high).toBeLessThan(0.26);
  });
});

describe('retention (table 5, from its AUCs)', () => {
  const table5: [string, number, number, number][] = [
    ['gpt-5', 0.506, 0.325, 0.64],
    ['claude', 0.469, 0.283, 0.6],
    ['minimax', 0.374, 0.171, 0.46],
    ['qwen coder', 0.236, 0.148, 0.63],
    ['qwen', 0.106, 0.072, 0.68],
    ['pooled', 0.338, 0.2, 0.59],
  ];
  it.each(table5)('%s: %f / %f -> %f', (_model, solo, coop, expected) => {
    expect(round2(retention(solo, coop))).toBe(expected);
  });

  it('is undefined when Solo never succeeds', () => {
    expect(retention(0, 0)).toBeNull();
  });
});

describe('relative difficulty', () => {
  it('is one minus the mean Solo success over models', () => {
    expect(rawDifficulty([true, true, false, false])).toBe(0.5);
    expect(rawDifficulty([true])).toBe(0);
    expect(rawDifficulty([false, false])).toBe(1);
  });

  it('is rescaled linearly by the benchmark min and max; a constant difficulty stays as it is', () => {
    rescale([0.2, 0.4, 0.6]).forEach((d, i) => expect(d).toBeCloseTo([0, 0.5, 1][i]));
    expect(rescale([0, 0])).toEqual([0, 0]);
    expect(rescale([1])).toEqual([1]);
  });

  it('falls in 10 equal buckets of the rescaled range, 1.0 in the last', () => {
    const d = (failures: number, runs: number) => ({ failures, runs });
    expect(difficultyBuckets([d(0, 20), d(1, 20), d(2, 20), d(11, 20), d(19, 20), d(20, 20)])).toEqual([0, 0, 1, 5, 9, 9]);
    expect(difficultyCounts([true, false, false])).toEqual({ failures: 2, runs: 3 });
  });

  it('computes buckets from counts, exactly: 1 − 4/5 is 0.2, on the edge of bucket 2, not 0.1999...', () => {
    // Five models: one pair every model solves, one that one model fails, one nobody solves.
    const counts = [
      difficultyCounts([true, true, true, true, true]),
      difficultyCounts([true, true, true, true, false]),
      difficultyCounts([false, false, false, false, false]),
    ];
    expect(1 - 4 / 5).toBe(0.19999999999999996);
    expect(difficultyBuckets(counts)).toEqual([0, 2, 9]);
    // Thirds rescaled by a range of thirds: (2/3 − 1/3) / (1 − 1/3) = 0.5 exactly.
    expect(difficultyBuckets([difficultyCounts([true, true, false]), difficultyCounts([true, false, false]), difficultyCounts([false, false, false])])).toEqual(
      [0, 5, 9],
    );
    // Every pair as hard as the others: the raw value decides.
    expect(difficultyBuckets([difficultyCounts([true, false]), difficultyCounts([false, true])])).toEqual([5, 5]);
  });
});

describe('difficulty curves (Algorithm 1)', () => {
  it('places points at the midpoints of non-empty buckets with Wilson intervals', () => {
    const buckets = emptyBuckets();
    buckets[0] = { n: 10, kSolo: 9, kCoop: 6 };
    buckets[5] = { n: 4, kSolo: 2, kCoop: 1 };
    const points = curvePoints(buckets);
    expect(points.map((p) => p.x)).toEqual([0.05, 0.55]);
    expect(points[0].solo).toMatchObject({ k: 9, n: 10, p: 0.9 });
    expect(points[1].coop.low).toBeLessThan(0.25);
  });

  it('integrates plainly by trapezoids between the points, as Algorithm 1 states (no division by their span)', () => {
    expect(trapezoidAuc([{ x: 0.05, y: 0.4 }])).toBe(0);
    expect(
      trapezoidAuc([
        { x: 0.05, y: 0.5 },
        { x: 0.95, y: 0.5 },
      ]),
    ).toBeCloseTo(0.45);
    // 1 -> 0 linearly over [0.05, 0.45], then flat at 0 over [0.45, 0.95]: area 0.2.
    expect(
      trapezoidAuc([
        { x: 0.05, y: 1 },
        { x: 0.45, y: 0 },
        { x: 0.95, y: 0 },
      ]),
    ).toBeCloseTo(0.2);
  });

  it('summarises a model as table 5 does and pools by summing counts, not averaging rates', () => {
    const strong = emptyBuckets();
    strong[1] = { n: 100, kSolo: 80, kCoop: 40 };
    strong[8] = { n: 100, kSolo: 20, kCoop: 10 };
    const weak = emptyBuckets();
    weak[1] = { n: 10, kSolo: 2, kCoop: 2 };
    weak[8] = { n: 10, kSolo: 0, kCoop: 0 };

    const s = summarizeCurve(strong)!;
    expect(s).toMatchObject({ n: 200, kSolo: 100, kCoop: 50 });
    // Points at 0.15 and 0.85: trapezoids over a span of 0.7.
    expect(s.aucSolo).toBeCloseTo(0.7 * 0.5);
    expect(s.aucCoop).toBeCloseTo(0.7 * 0.25);
    expect(s.deltaAuc).toBeCloseTo(0.7 * 0.25);
    expect(s.retention).toBeCloseTo(0.5);

    const pooled = poolBuckets([strong, weak]);
    expect(pooled[1]).toEqual({ n: 110, kSolo: 82, kCoop: 42 });
    const p = summarizeCurve(pooled)!;
    expect(p.aucSolo).toBeCloseTo((0.7 * (82 / 110 + 20 / 110)) / 2);
    expect(p.retention).toBeCloseTo((42 / 110 + 10 / 110) / (82 / 110 + 20 / 110));
  });

  it('has no summary without tasks', () => {
    expect(summarizeCurve(emptyBuckets())).toBeNull();
  });
});
