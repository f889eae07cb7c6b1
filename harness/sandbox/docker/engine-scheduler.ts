// Spreads a run's tasks over its Docker engines: each task starts on the engine with the fewest
// tasks running (ties: the one listed first), or on the engine it asks for when that one is there.
// All containers of a task stay on the engine it was given.
import type { Engine } from './engine.ts';

export class EngineScheduler {
  private readonly running = new Map<Engine, number>();

  constructor(readonly engines: Engine[]) {
    if (engines.length === 0) throw new Error('a run needs at least one Docker engine');
    for (const engine of engines) this.running.set(engine, 0);
  }

  /** An engine for a task; `preferred` (a host address) wins when it is one of the run's engines. */
  acquire(preferred?: string | null): Engine {
    const engine =
      this.engines.find((e) => e.host === preferred) ?? this.engines.reduce((best, e) => (this.running.get(e)! < this.running.get(best)! ? e : best));
    this.running.set(engine, this.running.get(engine)! + 1);
    return engine;
  }

  release(engine: Engine): void {
    this.running.set(engine, this.running.get(engine)! - 1);
  }
}
