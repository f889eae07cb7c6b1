// How a task's features' tests are spread over test sandboxes: by the cores each task testing on
// the place gets, one per feature where the backend gives each sandbox cores of its own.
import { describe, expect, it } from 'vitest';
import { enterTesting, splitFeatures, testWidth } from '../../../harness/evaluation/test-groups.ts';
import type { BackendSlot } from '../../../harness/sandbox/types.ts';

describe('test sandboxes of a task', () => {
  it('a task alone on 2 cores runs its 2 features side by side; with another testing, one after the other', () => {
    expect(testWidth(2, 2, 1)).toBe(2);
    expect(testWidth(2, 2, 2)).toBe(1);
    expect(testWidth(2, 2, 16)).toBe(1);
  });

  it('tasks on one place count together, whatever slot object each holds (a wrapper of it, a copy)', async () => {
    const place = { where: 'engine-a', sharedCores: async () => 2, startTestSequence: async () => ({}) } as unknown as BackendSlot;
    const first = await enterTesting(place, 2);
    const second = await enterTesting({ ...place }, 2);
    const elsewhere = await enterTesting({ ...place, where: 'engine-b' }, 2);
    expect([first.width, second.width, elsewhere.width]).toEqual([2, 1, 2]);
    second.done();
    second.done();
    const third = await enterTesting(place, 2);
    expect(third.width).toBe(1);
    for (const task of [first, third, elsewhere]) task.done();
    const alone = await enterTesting(place, 2);
    expect(alone.width).toBe(2);
    alone.done();
  });

  it('never more sandboxes than features, never fewer than one', () => {
    expect(testWidth(2, 64, 1)).toBe(2);
    expect(testWidth(3, 1, 1)).toBe(1);
    expect(testWidth(4, 8, 3)).toBe(2);
  });

  it('a cluster (no shared cores) gives every feature its own sandbox', () => {
    expect(testWidth(3, undefined, 50)).toBe(3);
  });

  it('features split into consecutive groups of near-equal size, in order', () => {
    expect(splitFeatures([1, 2], 1)).toEqual([[1, 2]]);
    expect(splitFeatures([1, 2], 2)).toEqual([[1], [2]]);
    expect(splitFeatures([1, 2, 3], 2)).toEqual([[1, 2], [3]]);
    expect(splitFeatures([1, 2, 3, 4, 5], 3)).toEqual([[1, 2], [3, 4], [5]]);
    expect(splitFeatures([1], 0)).toEqual([[1]]);
  });
});
