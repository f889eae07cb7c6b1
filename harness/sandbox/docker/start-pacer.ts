// Container starts paced per engine: at most STARTS_AT_ONCE creations-and-starts at a time on an
// engine, the rest queued in order. A start costs the engine ~0.2 s of CPU (docs/performance.md,
// table 5b); 32 agent containers asked for at once (concurrency 16) all finish together seconds
// later, then their agents step, and later test together, in waves that leave cores idle between
// them. Queued, the first containers are ready after one start's time, and the work after them
// spreads out.
import pLimit, { type LimitFunction } from 'p-limit';
import type { Engine } from './engine.ts';

/** Two: one start's engine work overlaps the other's waits (API round trips, runc), without waves. */
const STARTS_AT_ONCE = 2;

const pacers = new Map<string, LimitFunction>();

/** Runs `start` (a container's creation and start) when the engine's turn comes. */
export function pacedStart<T>(engine: Engine, start: () => Promise<T>): Promise<T> {
  let pacer = pacers.get(engine.host);
  if (!pacer) pacers.set(engine.host, (pacer = pLimit(STARTS_AT_ONCE)));
  return pacer(start);
}
