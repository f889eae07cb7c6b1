// When and where a task's features' tests run: on a place whose sandboxes share cores, every run
// takes one of its cores, first come first served across tasks, in a sandbox its task holds; a core
// that ends a run goes on with its task's next feature, else to the next task waiting. A cluster
// gives every feature a sandbox of its own, all at once. The sandboxes here are fakes whose runs end
// when the test says, so the test sees which runs are under way at each step.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { taskTests } from '../../../../harness/evaluation/feature-runs.ts';
import type { TestRunOptions } from '../../../../harness/evaluation/run-tests.ts';
import { DEFAULT_LIMITS, type BackendSlot, type RawTestRun } from '../../../../harness/sandbox/types.ts';
import type { Feature } from '../../../../tasks/types.ts';

const dir = mkdtempSync(join(tmpdir(), 'feature-runs-'));

/** Features whose tests patch holds their name, so that a fake run says whose tests it runs. */
function features(task: string, count: number): Feature[] {
  return Array.from({ length: count }, (_, i) => {
    const testsPatchPath = join(dir, `${task}${i + 1}.patch`);
    writeFileSync(testsPatchPath, `${task}${i + 1}`);
    return { id: i + 1, dir, description: '', patchPath: '', testsPatchPath };
  });
}

interface FakeRun {
  /** Whose tests: task name and feature number. */
  tests: string;
  sandbox: number;
  end(): void;
  /** The engine failed under the run. */
  fail(): void;
}

const PASSED: RawTestRun = { exitCode: 0, timedOut: false, output: '1 passed', durationMs: 1 };

/** A place with `cores` shared cores (or a cluster: undefined) whose sandboxes' runs end on demand. */
function fakePlace(where: string, cores: number | undefined) {
  const place = { active: [] as FakeRun[], most: 0, sandboxes: 0, released: [] as number[] };
  const arrived: FakeRun[] = [];
  const waiters: ((run: FakeRun) => void)[] = [];
  const begin = (tests: string, sandbox: number) =>
    new Promise<RawTestRun>((resolve, reject) => {
      const settle = (done: () => void) => {
        place.active.splice(place.active.indexOf(run), 1);
        done();
      };
      const run: FakeRun = {
        tests,
        sandbox,
        end: () => settle(() => resolve(PASSED)),
        fail: () => settle(() => reject(new Error('engine gone'))),
      };
      place.active.push(run);
      place.most = Math.max(place.most, place.active.length);
      const waiter = waiters.shift();
      if (waiter) waiter(run);
      else arrived.push(run);
    });
  const slot = {
    where,
    startTestRun: async (spec: { testsPatch: Buffer }) => {
      const sandbox = ++place.sandboxes;
      return { run: () => begin(spec.testsPatch.toString(), sandbox), discard: async () => void place.released.push(sandbox) };
    },
    ...(cores === undefined
      ? {}
      : {
          sharedCores: async () => cores,
          startTestSequence: async () => {
            const sandbox = ++place.sandboxes;
            return { run: (testsPatch: Buffer) => begin(testsPatch.toString(), sandbox), release: async () => void place.released.push(sandbox) };
          },
        }),
  } as unknown as BackendSlot;
  /** The next run to begin (one already begun and not yet taken, or the next to come). */
  const nextRun = () => new Promise<FakeRun>((resolve) => (arrived.length > 0 ? resolve(arrived.shift()!) : waiters.push(resolve)));
  /** The next `n` runs to begin, by whose tests. */
  const nextRuns = async (n: number) => {
    const runs: FakeRun[] = [];
    for (let i = 0; i < n; i++) runs.push(await nextRun());
    return runs.sort((a, b) => a.tests.localeCompare(b.tests));
  };
  return { place, slot, nextRuns };
}

const options = (slot: BackendSlot): TestRunOptions => ({
  slot,
  image: { name: 'pool', id: 'sha256:pool' },
  run: 'run',
  limits: DEFAULT_LIMITS,
  timeoutMs: 60_000,
});

describe("a task's feature runs on shared cores", () => {
  it('a task alone on 2 cores runs its 2 features at once, in 2 sandboxes (one started ahead, while the merge ran)', async () => {
    const { place, slot, nextRuns } = fakePlace('alone', 2);
    const tests = taskTests(features('a', 2), options(slot), true);
    const verdict = tests.run('patch');
    const [a1, a2] = await nextRuns(2);
    expect([a1!.tests, a2!.tests]).toEqual(['a1', 'a2']);
    expect(a1!.sandbox).not.toBe(a2!.sandbox);
    a1!.end();
    a2!.end();
    expect((await verdict).map((run) => run.passed)).toEqual([true, true]);
    await tests.close();
    expect(place.released.sort()).toEqual([1, 2]);
  });

  it('on 1 core, a task runs its features one after another in the one sandbox it holds', async () => {
    const { place, slot, nextRuns } = fakePlace('one-core', 1);
    const tests = taskTests(features('a', 2), options(slot), true);
    const verdict = tests.run('patch');
    const [first] = await nextRuns(1);
    expect(place.active).toHaveLength(1);
    first!.end();
    const [second] = await nextRuns(1);
    expect([first!.tests, second!.tests]).toEqual(['a1', 'a2']);
    expect(second!.sandbox).toBe(first!.sandbox);
    second!.end();
    await verdict;
    expect(place.sandboxes).toBe(1);
    expect(place.released).toEqual([1]);
  });

  it('two tasks at once on 2 cores: never more runs than cores, and a core freed by one task goes to the other at once', async () => {
    const { place, slot, nextRuns } = fakePlace('two-tasks', 2);
    const first = taskTests(features('a', 2), options(slot), true);
    const second = taskTests(features('b', 2), options(slot), true);
    const firstVerdict = first.run('patch a');
    const [a1, a2] = await nextRuns(2);
    // The second task's merge ends while the first task's tests run: its features wait for cores.
    const secondVerdict = second.run('patch b');
    a1!.end();
    // a1's core: the first task has nothing left, so the second task's first feature runs on it,
    // while a2 is still under way.
    const [b1] = await nextRuns(1);
    expect(b1!.tests).toBe('b1');
    expect(place.active.map((run) => run.tests).sort()).toEqual(['a2', 'b1']);
    a2!.end();
    const [b2] = await nextRuns(1);
    expect(b2!.tests).toBe('b2');
    b1!.end();
    b2!.end();
    await Promise.all([firstVerdict, secondVerdict]);
    expect(place.most).toBe(2);
  });

  it('a task that got one core of two goes on with its next feature on that core, in the same sandbox', async () => {
    const { slot, nextRuns } = fakePlace('goes-on', 2);
    const first = taskTests(features('a', 1), options(slot), true);
    const second = taskTests(features('b', 3), options(slot), true);
    const firstVerdict = first.run('patch a');
    const secondVerdict = second.run('patch b');
    const [a1, b1] = await nextRuns(2);
    b1!.end();
    const [b2] = await nextRuns(1);
    expect(b2!.tests).toBe('b2');
    expect(b2!.sandbox).toBe(b1!.sandbox);
    a1!.end();
    // a1's core: the second task's last feature, in a sandbox of its own, beside b2.
    const [b3] = await nextRuns(1);
    expect(b3!.tests).toBe('b3');
    expect(b3!.sandbox).not.toBe(b2!.sandbox);
    b2!.end();
    b3!.end();
    await Promise.all([firstVerdict, secondVerdict]);
  });

  it('tasks on one place share its cores whatever slot object each holds (a copy, a wrapper); another place has its own', async () => {
    const { place, slot, nextRuns } = fakePlace('shared', 1);
    const elsewhere = fakePlace('elsewhere', 1);
    const runs = [taskTests(features('a', 1), options(slot), false), taskTests(features('b', 1), options({ ...slot }), false)].map((tests) =>
      tests.run('patch'),
    );
    const there = taskTests(features('c', 1), options(elsewhere.slot), false).run('patch');
    const [first] = await nextRuns(1);
    const [c1] = await elsewhere.nextRuns(1);
    expect(place.active).toHaveLength(1);
    first!.end();
    const [other] = await nextRuns(1);
    expect([first!.tests, other!.tests].sort()).toEqual(['a1', 'b1']);
    other!.end();
    c1!.end();
    await Promise.all([...runs, there]);
  });

  it('a run the engine failed under fails the task once its other runs end: no feature of it starts after, its sandboxes are handed back', async () => {
    const { place, slot, nextRuns } = fakePlace('failing', 2);
    const tests = taskTests(features('a', 3), options(slot), true);
    const verdict = tests.run('patch');
    let runningAtFailure: number | undefined;
    verdict.catch(() => (runningAtFailure = place.active.length));
    const [a1, a2] = await nextRuns(2);
    a1!.fail();
    // Everything the failure set off in this process happens before the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    a2!.end();
    await expect(verdict).rejects.toThrow('engine gone');
    expect(runningAtFailure).toBe(0);
    expect(place.sandboxes).toBe(2);
    expect(place.released.sort()).toEqual([1, 2]);
  });

  it('a sandbox started ahead that no run needed is handed back', async () => {
    const { place, slot } = fakePlace('unused', 2);
    const tests = taskTests(features('a', 2), options(slot), true);
    await tests.close();
    expect(place.released).toEqual([1]);
  });
});

describe("a task's feature runs on a cluster", () => {
  it('every feature gets a sandbox of its own, started ahead, all at once', async () => {
    const { place, slot, nextRuns } = fakePlace('cluster', undefined);
    const tests = taskTests(features('a', 3), options(slot), true);
    const verdict = tests.run('patch');
    const runs = await nextRuns(3);
    expect(runs.map((run) => run.tests)).toEqual(['a1', 'a2', 'a3']);
    expect(new Set(runs.map((run) => run.sandbox)).size).toBe(3);
    for (const run of runs) run.end();
    expect(await verdict).toHaveLength(3);
    expect(place.sandboxes).toBe(3);
  });
});
