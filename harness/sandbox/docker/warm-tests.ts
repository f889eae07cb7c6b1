// Test containers started ahead of need, per engine, image, limits and run: a task that asks for one
// takes one already started, and its taking starts the next (a miss starts a spare too), so after
// the first tasks none waits for the engine to create and start a container, and the spares grow
// to what the tasks take at once. Spares carry the run's labels (not a task's: none has taken them
// yet); Ctrl-C removes them with every tracked container, the end of the run with removeSpares.
import type { PendingTestSequence, TestSequenceSpec } from '../types.ts';
import type { Engine } from './engine.ts';
import { TestContainer, type TestContainerSpec } from './test-run.ts';

/** Spares kept per kind at most: a bound for runs whose tasks take many at once. */
const MAX_SPARES = 32;

export class WarmTestContainers {
  private readonly spares = new Map<string, TestContainer[]>();
  private readonly starting = new Set<Promise<unknown>>();
  /** Removals under way in the background: removeSpares waits for them. */
  private readonly removing = new Set<Promise<void>>();
  private closed = false;

  /** A started test container; `keepWarm`: one more is started for a later taker. */
  async take(engine: Engine, spec: TestContainerSpec, keepWarm: boolean): Promise<TestContainer> {
    const key = JSON.stringify([engine.host, spec.image.id, spec.run, spec.limits]);
    const spares = this.spares.get(key) ?? [];
    this.spares.set(key, spares);
    let spare: TestContainer | undefined;
    while ((spare = spares.pop()) && !spare.ready) void spare.remove().catch(() => undefined);
    if (keepWarm && !this.closed && spares.length < MAX_SPARES) this.startSpare(engine, spec, spares);
    return spare ?? TestContainer.start(engine, spec);
  }

  private startSpare(engine: Engine, spec: TestContainerSpec, spares: TestContainer[]): void {
    const started = TestContainer.start(engine, spec).then(
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
    const spares = this.spares.get(JSON.stringify([engine.host, spec.image.id, spec.run, spec.limits]));
    if (this.closed || !spares || !container.ready || spares.length >= MAX_SPARES) await container.remove();
    else spares.push(container);
  }

  /**
   * Removes a container a task is done with. With `background` (a run that calls removeSpares at its
   * end) the task does not wait for it: the engine's removal takes ~0.1-0.3 s that no test needs.
   * The container stays tracked until removed, so Ctrl-C and fatal errors still remove it.
   */
  private async retire(container: TestContainer, background: boolean): Promise<void> {
    if (!background) return container.remove();
    // A failed removal leaves a labelled container: removeOwn or `coop-bench clean` removes it.
    const removal = container.remove().catch(() => undefined);
    this.removing.add(removal);
    void removal.finally(() => this.removing.delete(removal));
  }

  /** Waits for the starts and removals under way in the background. */
  async settled(): Promise<void> {
    while (this.starting.size > 0 || this.removing.size > 0) await Promise.all([...this.starting, ...this.removing]);
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

  /** A sequence of test runs (see PendingTestSequence) in a container from here. */
  async startSequence(engine: Engine, spec: TestSequenceSpec): Promise<PendingTestSequence> {
    const keepWarm = spec.keepWarm ?? false;
    let container = await this.take(engine, spec, keepWarm);
    let used = false;
    return {
      run: async (testsPatches, patch) => {
        used = true;
        const runs = [];
        try {
          for (const testsPatch of testsPatches) {
            // A run that the time limit stopped took the container with it: the next gets another.
            if (!container.ready) {
              await this.retire(container, keepWarm);
              container = await this.take(engine, spec, false);
            }
            runs.push(await container.run(testsPatch, patch, spec.timeoutMs, spec.maxOutputBytes));
          }
          return runs;
        } finally {
          await this.retire(container, keepWarm);
        }
      },
      discard: () => (used ? Promise.resolve() : this.giveBack(engine, spec, container)),
    };
  }
}
