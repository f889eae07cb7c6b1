// The CPU a run's pairs cost (schema.ts, cpu_usage): recorded once per `run` command that ran tasks,
// read back per pair over all of them for the summary.
import type { RunStore } from './run-store.ts';
import { sqlOf } from './database.ts';

/** CPU seconds of `pairs` pairs: containers by role, the engine's daemons when known, the harness process. */
export interface CpuUsage {
  pairs: number;
  agentS: number;
  testS: number;
  /** Absent when the engine's daemons could not be read (a remote engine, another backend). */
  engineS?: number;
  harnessS: number;
}

const finite = (n: number | undefined) => n === undefined || (Number.isFinite(n) && n >= 0);

export function recordCpuUsage(store: RunStore, usage: CpuUsage): void {
  if (usage.pairs <= 0) return;
  if (![usage.agentS, usage.testS, usage.engineS, usage.harnessS].every(finite))
    throw new Error(`CPU figures must be finite and not negative: ${JSON.stringify(usage)}`);
  sqlOf(store)
    .prepare('INSERT INTO cpu_usage (recorded_at, pairs, agent_s, test_s, engine_s, harness_s) VALUES (?, ?, ?, ?, ?, ?)')
    .run(new Date().toISOString(), usage.pairs, usage.agentS, usage.testS, usage.engineS ?? null, usage.harnessS);
}

/** All the run's recorded CPU together (engine only over the commands that read it), or undefined when none was recorded. */
export function runCpuUsage(store: RunStore): CpuUsage | undefined {
  const row = sqlOf(store)
    .prepare(
      `SELECT SUM(pairs) AS pairs, SUM(agent_s) AS agentS, SUM(test_s) AS testS, SUM(harness_s) AS harnessS,
        SUM(engine_s) AS engineS, SUM(CASE WHEN engine_s IS NULL THEN 0 ELSE pairs END) AS enginePairs FROM cpu_usage`,
    )
    .get() as { pairs: number | null; agentS: number; testS: number; harnessS: number; engineS: number | null; enginePairs: number };
  if (!row.pairs) return undefined;
  // The engine's share per pair holds over the commands that measured it; scaled to all pairs.
  const engineS = row.engineS !== null && row.enginePairs > 0 ? (row.engineS / row.enginePairs) * row.pairs : undefined;
  return { pairs: row.pairs, agentS: row.agentS, testS: row.testS, harnessS: row.harnessS, ...(engineS !== undefined && { engineS }) };
}
