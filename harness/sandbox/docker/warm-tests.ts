// Test containers started ahead of need, per engine, image, limits and run: a task that asks for one
// takes one already started, so after the first tasks none waits for the engine to create and start
// a container. A container a task is done with is checked in the background (as-new.ts) and, as new,
// kept for the next task; otherwise it is removed ("retired"), counted by reason. Results stay those
// of a fresh container per feature (tests/integration/test-sequence.test.ts). Spares carry the run's
// labels (not a task's: none has taken them yet); Ctrl-C removes them with every tracked container,
// the end of the run with removeSpares.
// How many are started: a container under its check comes back in ~0.12 s, a start costs the engine
// ~160 ms of CPU (docs/performance.md, table 6) on the cores the tests need. So the containers of a
// kind that are coming (a spare starting, a used one under its check) count as much as those ready:
// a spare is started only when a taking leaves a kind with none ready and none coming, and a taker
// that finds none ready while some are coming waits for the first of them, 10 s at most (a check that retires its
// container lets it go on to the next, or to a start of its own). Without retirements a kind then
// never has more containers than tasks holding one at once, plus one spare.
import { setTimeout as delay } from 'node:timers/promises';
import type { TestContainerCounts, TestSequence, TestSequenceSpec } from '../types.ts';
import type { RetireReason } from './as-new.ts';
import type { Engine } from './engine.ts';
import { TestContainer, type TestContainerSpec } from './test-run.ts';

/** Spares kept per kind at most: a bound for runs whose tasks take many at once. */
const MAX_SPARES = 32;
/** The check reads the root file system once: far less than this on any machine. */
const CHECK_TIMEOUT_MS = 120_000;
/** How long a taker waits for containers coming: longer than a start takes under load, far less than a hung check. */
const WAIT_FOR_COMING_MS = 10_000;

/** The containers of one kind that no task holds: ready to take, or coming (each settles once it is ready or gone). */
interface Kind {
  ready: TestContainer[];
  coming: Set<Promise<void>>;
}

export class WarmTestContainers {
  private readonly kinds = new Map<string, Kind>();
  /** Starts, checks and removals under way in the background: removeSpares waits for them. */
  private readonly settling = new Set<Promise<void>>();
  private readonly counts: TestContainerCounts = { started: 0, reused: 0, retired: {} };
  private closed = false;

  /** Test containers started, taken again after a check, and removed for a reason, since this process began. */
  testContainerCounts(): TestContainerCounts {
    return { ...this.counts, retired: { ...this.counts.retired } };
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
      while ((spare = kind.ready.pop()) && !spare.ready) this.retire(spare, 'stopped');
      // While closing, those coming are removed, not kept: nothing to wait for.
      if (spare || this.closed || kind.coming.size === 0 || Date.now() >= giveUp) break;
      const waited = new AbortController();
      await Promise.race([...kind.coming, delay(giveUp - Date.now(), undefined, { signal: waited.signal }).catch(() => undefined)]);
      waited.abort();
    }
    if (spare?.served) this.counts.reused++;
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

  /** An unused container goes back (the cache answered every feature it was started for). */
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
   * Removes a container that is not taken again, in the background (a task does not wait for the
   * engine's removal, ~0.1-0.3 s that no test needs). It stays tracked until removed, so Ctrl-C and
   * fatal errors still remove it.
   */
  private retire(container: TestContainer, reason: RetireReason): void {
    this.counts.retired[reason] = (this.counts.retired[reason] ?? 0) + 1;
    void this.background(container.remove());
  }

  /** A container a task is done with: checked, then kept for the next task when as new, else retired. */
  private recycle(engine: Engine, spec: TestContainerSpec, container: TestContainer): void {
    const kind = this.kindOf(engine, spec);
    this.arriving(
      kind,
      (async () => {
        const reason = await container.check(CHECK_TIMEOUT_MS).catch((): RetireReason => 'check failed');
        if (reason) this.retire(container, reason);
        else await this.keep(kind, container);
      })(),
    );
  }

  /** Waits for the starts, checks and removals under way in the background. */
  async settled(): Promise<void> {
    while (this.settling.size > 0) await Promise.all([...this.settling]);
  }

  /** Removes every spare, after the starts, checks and removals under way. */
  async removeSpares(): Promise<void> {
    this.closed = true;
    await this.settled();
    const all = [...this.kinds.values()].flatMap((kind) => kind.ready);
    this.kinds.clear();
    await Promise.all(all.map((container) => container.remove().catch(() => undefined)));
    this.closed = false;
  }

  /**
   * A test sandbox held by a task (see TestSequence), from here. Without `keepWarm` (no removeSpares
   * at the end) its container is removed when released, used or not.
   */
  async startSequence(engine: Engine, spec: TestSequenceSpec): Promise<TestSequence> {
    const keepWarm = spec.keepWarm ?? false;
    let container = await this.take(engine, spec, keepWarm);
    let used = false;
    const done = async (finished: TestContainer) => {
      if (!keepWarm) await finished.remove();
      else if (finished.ready) this.recycle(engine, spec, finished);
      else this.retire(finished, 'stopped');
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
