// Test containers started ahead of need, per engine, image, limits and run: a task that asks for one
// takes one already started, so after the first tasks none waits for the engine to create and start
// a container. Each container serves one task only: once the task is done with it, it is removed
// (in the background: no task waits for the engine's removal), never taken again, so nothing a
// task's tests did (a file in site-packages, a replaced system tool, a process left running)
// reaches another task's, and every verdict is a fresh container's by construction, as in
// CooperBench's evaluation (one container per pair). Within a task, features run one after another
// with the repository reset between them (test-run.ts), as CooperBench runs a pair's two features.
// Spares carry the run's labels (not a task's: none has taken them yet); Ctrl-C removes them with
// every tracked container, the end of the run with removeSpares.
// How many are started: a start costs the engine ~160 ms of CPU (docs/performance.md, table 6) on
// the cores the tests need, so a spare is started only when a taking leaves a kind with none ready
// and none starting, and a taker that finds none ready while one is starting waits for it, 10 s at
// most, instead of starting its own. A kind then has at most one spare beyond the tasks holding one.
import { setTimeout as delay } from 'node:timers/promises';
import type { TestContainerCounts, TestSequence, TestSequenceSpec } from '../types.ts';
import type { Engine } from './engine.ts';
import { TestContainer, type TestContainerSpec } from './test-run.ts';

/** Spares kept per kind at most: a bound for runs whose tasks take many at once. */
const MAX_SPARES = 32;
/** How long a taker waits for containers coming: longer than a start takes under load. */
const WAIT_FOR_COMING_MS = 10_000;

/** The containers of one kind that no task has taken: ready, or coming (starting: each settles once it is ready or gone). */
interface Kind {
  ready: TestContainer[];
  coming: Set<Promise<void>>;
}

export class WarmTestContainers {
  private readonly kinds = new Map<string, Kind>();
  /** Starts and removals under way in the background: removeSpares waits for them. */
  private readonly settling = new Set<Promise<void>>();
  private readonly counts: TestContainerCounts = { started: 0 };
  private closed = false;

  /** Test containers started since this process began. */
  testContainerCounts(): TestContainerCounts {
    return { ...this.counts };
  }

  private kindOf(engine: Engine, spec: TestContainerSpec): Kind {
    const key = JSON.stringify([engine.host, spec.image.id, spec.run, spec.limits]);
    let kind = this.kinds.get(key);
    if (!kind) this.kinds.set(key, (kind = { ready: [], coming: new Set() }));
    return kind;
  }

  /**
   * A started test container: a ready one, else the first of those coming, else one started now.
   * `keepWarm`: a taking that leaves none ready and none coming starts a spare for a later taker.
   */
  async take(engine: Engine, spec: TestContainerSpec, keepWarm: boolean): Promise<TestContainer> {
    const kind = this.kindOf(engine, spec);
    let spare: TestContainer | undefined;
    const giveUp = Date.now() + WAIT_FOR_COMING_MS;
    for (;;) {
      while ((spare = kind.ready.pop()) && !spare.ready) this.removeLater(spare);
      // While closing, those coming are removed, not kept: nothing to wait for.
      if (spare || this.closed || kind.coming.size === 0 || Date.now() >= giveUp) break;
      const waited = new AbortController();
      await Promise.race([...kind.coming, delay(giveUp - Date.now(), undefined, { signal: waited.signal }).catch(() => undefined)]);
      waited.abort();
    }
    const taken = spare ? Promise.resolve(spare) : this.start(engine, spec);
    if (keepWarm && !this.closed && kind.ready.length === 0 && kind.coming.size === 0) this.startSpare(engine, spec, kind);
    return taken;
  }

  private start(engine: Engine, spec: TestContainerSpec): Promise<TestContainer> {
    this.counts.started++;
    return TestContainer.start(engine, spec);
  }

  private startSpare(engine: Engine, spec: TestContainerSpec, kind: Kind): void {
    this.arriving(
      kind,
      this.start(engine, spec).then(
        (container) => this.keep(kind, container),
        // A start that fails here fails again, and is reported, when a task starts one itself.
        () => undefined,
      ),
    );
  }

  /** `work` ends with a container of `kind` kept or gone: counted as coming until then, and tracked. */
  private arriving(kind: Kind, work: Promise<void>): void {
    const settled = this.background(work);
    kind.coming.add(settled);
    // Registered before any taker waits on it, so a taker it wakes no longer counts it.
    void settled.finally(() => kind.coming.delete(settled));
  }

  /** A ready container goes to the next taker of its kind, unless the run is ending or MAX_SPARES are kept. */
  private async keep(kind: Kind, container: TestContainer): Promise<void> {
    if (this.closed || !container.ready || kind.ready.length >= MAX_SPARES) await container.remove();
    else kind.ready.push(container);
  }

  /** An unused container goes back (the cache answered every feature it was started for): it ran nothing. */
  giveBack(engine: Engine, spec: TestContainerSpec, container: TestContainer): Promise<void> {
    return this.keep(this.kindOf(engine, spec), container);
  }

  /** Runs `work` in the background, tracked so that removeSpares waits for it; settles when it does, never rejects. */
  private background(work: Promise<void>): Promise<void> {
    // A failed removal leaves a labelled container: removeOwn or `coop-bench clean` removes it.
    const settled = work.catch(() => undefined);
    this.settling.add(settled);
    void settled.finally(() => this.settling.delete(settled));
    return settled;
  }

  /**
   * Removes a container in the background (a task does not wait for the engine's removal, ~0.1-0.3 s
   * that no test needs). It stays tracked until removed, so Ctrl-C and fatal errors still remove it.
   */
  private removeLater(container: TestContainer): void {
    void this.background(container.remove());
  }

  /** Waits for the starts and removals under way in the background. */
  async settled(): Promise<void> {
    while (this.settling.size > 0) await Promise.all([...this.settling]);
  }

  /** Removes every spare, after the starts and removals under way. */
  async removeSpares(): Promise<void> {
    this.closed = true;
    await this.settled();
    const all = [...this.kinds.values()].flatMap((kind) => kind.ready);
    this.kinds.clear();
    await Promise.all(all.map((container) => container.remove().catch(() => undefined)));
    this.closed = false;
  }

  /**
   * A test sandbox held by a task (see TestSequence), from here. A container that ran tests is
   * removed when released (in the background with `keepWarm`); an unused one goes back with
   * `keepWarm`, and is removed without it (no removeSpares at the end).
   */
  async startSequence(engine: Engine, spec: TestSequenceSpec): Promise<TestSequence> {
    const keepWarm = spec.keepWarm ?? false;
    let container = await this.take(engine, spec, keepWarm);
    let used = false;
    const done = async (finished: TestContainer) => {
      if (keepWarm) this.removeLater(finished);
      else await finished.remove();
    };
    return {
      run: async (testsPatch, patch) => {
        // A run that the time limit stopped took the container with it: the next gets another.
        if (!container.ready) {
          await done(container);
          container = await this.take(engine, spec, false);
        }
        used = true;
        return container.run(testsPatch, patch, spec.timeoutMs, spec.maxOutputBytes);
      },
      release: () => (used || !keepWarm ? done(container) : this.giveBack(engine, spec, container)),
    };
  }
}
