// Test containers started ahead of need, per engine, image, limits and run: a task that asks for one
// takes one already started, and a taking that leaves none starts the next (a miss starts a spare
// too), so after the first tasks none waits for the engine to create and start a container. A
// container a task is done with is checked in the background (as-new.ts) and, as new, kept for the
// next task; otherwise it is removed ("retired"), counted by reason. Results stay those of a fresh
// container per feature (tests/integration/test-sequence.test.ts). Spares carry the run's labels (not a
// task's: none has taken them yet); Ctrl-C removes them with every tracked container, the end of the
// run with removeSpares.
import type { PendingTestSequence, TestContainerCounts, TestSequenceSpec } from '../types.ts';
import type { RetireReason } from './as-new.ts';
import type { Engine } from './engine.ts';
import { TestContainer, type TestContainerSpec } from './test-run.ts';

/** Spares kept per kind at most: a bound for runs whose tasks take many at once. */
const MAX_SPARES = 32;
/** The check reads the root file system once: far less than this on any machine. */
const CHECK_TIMEOUT_MS = 120_000;

const kindOf = (engine: Engine, spec: TestContainerSpec) => JSON.stringify([engine.host, spec.image.id, spec.run, spec.limits]);

export class WarmTestContainers {
  private readonly spares = new Map<string, TestContainer[]>();
  private readonly starting = new Set<Promise<unknown>>();
  /** Checks and removals under way in the background: removeSpares waits for them. */
  private readonly settling = new Set<Promise<void>>();
  private readonly counts: TestContainerCounts = { started: 0, reused: 0, retired: {} };
  private closed = false;

  /** Test containers started, taken again after a check, and removed for a reason, since this process began. */
  testContainerCounts(): TestContainerCounts {
    return { ...this.counts, retired: { ...this.counts.retired } };
  }

  /** A started test container; `keepWarm`: when none is left, one more is started for a later taker. */
  async take(engine: Engine, spec: TestContainerSpec, keepWarm: boolean): Promise<TestContainer> {
    const key = kindOf(engine, spec);
    const spares = this.spares.get(key) ?? [];
    this.spares.set(key, spares);
    let spare: TestContainer | undefined;
    while ((spare = spares.pop()) && !spare.ready) this.retire(spare, 'stopped');
    if (keepWarm && !this.closed && spares.length === 0) this.startSpare(engine, spec, spares);
    if (spare?.served) this.counts.reused++;
    return spare ?? this.start(engine, spec);
  }

  private start(engine: Engine, spec: TestContainerSpec): Promise<TestContainer> {
    this.counts.started++;
    return TestContainer.start(engine, spec);
  }

  private startSpare(engine: Engine, spec: TestContainerSpec, spares: TestContainer[]): void {
    const started = this.start(engine, spec).then(
      async (container) => {
        if (this.closed) await container.remove();
        else spares.push(container);
      },
      // A start that fails here fails again, and is reported, when a task starts one itself.
      () => undefined,
    );
    this.starting.add(started);
    void started.finally(() => this.starting.delete(started));
  }

  /** An unused container goes back (the cache answered every feature it was started for). */
  async giveBack(engine: Engine, spec: TestContainerSpec, container: TestContainer): Promise<void> {
    const spares = this.spares.get(kindOf(engine, spec));
    if (this.closed || !spares || !container.ready || spares.length >= MAX_SPARES) await container.remove();
    else spares.push(container);
  }

  /** Runs `work` in the background, tracked so that removeSpares waits for it. */
  private background(work: Promise<void>): void {
    // A failed removal leaves a labelled container: removeOwn or `coop-bench clean` removes it.
    const settled = work.catch(() => undefined);
    this.settling.add(settled);
    void settled.finally(() => this.settling.delete(settled));
  }

  /**
   * Removes a container that is not taken again, in the background (a task does not wait for the
   * engine's removal, ~0.1-0.3 s that no test needs). It stays tracked until removed, so Ctrl-C and
   * fatal errors still remove it.
   */
  private retire(container: TestContainer, reason: RetireReason): void {
    this.counts.retired[reason] = (this.counts.retired[reason] ?? 0) + 1;
    this.background(container.remove());
  }

  /** A container a task is done with: checked, then kept for the next task when as new, else retired. */
  private recycle(engine: Engine, spec: TestContainerSpec, container: TestContainer): void {
    this.background(
      (async () => {
        const reason = await container.check(CHECK_TIMEOUT_MS).catch((): RetireReason => 'check failed');
        const spares = this.spares.get(kindOf(engine, spec));
        if (reason) this.retire(container, reason);
        else if (this.closed || !spares || spares.length >= MAX_SPARES) await container.remove();
        else spares.push(container);
      })(),
    );
  }

  /** Waits for the starts, checks and removals under way in the background. */
  async settled(): Promise<void> {
    while (this.starting.size > 0 || this.settling.size > 0) await Promise.all([...this.starting, ...this.settling]);
  }

  /** Removes every spare, after the starts and removals under way. */
  async removeSpares(): Promise<void> {
    this.closed = true;
    await this.settled();
    const all = [...this.spares.values()].flat();
    this.spares.clear();
    await Promise.all(all.map((container) => container.remove().catch(() => undefined)));
    this.closed = false;
  }

  /**
   * A sequence of test runs (see PendingTestSequence) in a container from here. Without `keepWarm`
   * (no removeSpares at the end) the container is removed before the runs' results are returned.
   */
  async startSequence(engine: Engine, spec: TestSequenceSpec): Promise<PendingTestSequence> {
    const keepWarm = spec.keepWarm ?? false;
    let container = await this.take(engine, spec, keepWarm);
    let used = false;
    const done = async (finished: TestContainer) => {
      if (!keepWarm) await finished.remove();
      else if (finished.ready) this.recycle(engine, spec, finished);
      else this.retire(finished, 'stopped');
    };
    return {
      run: async (testsPatches, patch) => {
        used = true;
        const runs = [];
        try {
          for (const testsPatch of testsPatches) {
            // A run that the time limit stopped took the container with it: the next gets another.
            if (!container.ready) {
              await done(container);
              container = await this.take(engine, spec, false);
            }
            runs.push(await container.run(testsPatch, patch, spec.timeoutMs, spec.maxOutputBytes));
          }
          return runs;
        } finally {
          await done(container);
        }
      },
      discard: () => (used ? Promise.resolve() : this.giveBack(engine, spec, container)),
    };
  }
}
