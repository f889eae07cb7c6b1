// What the benchmarks run on: the shipped argkit pool (JavaScript, node --test), its image on the
// local engine (built once per content hash), and its base repository.
import { join } from 'node:path';
import { loadPool } from '../tasks/pools.ts';
import type { Pool } from '../tasks/types.ts';
import { engineAt, requireEngine } from '../harness/sandbox/docker/engine.ts';
import { poolImage, type PoolImage } from '../harness/sandbox/docker/images.ts';
import { baseRepo } from '../harness/sandbox/docker/base-repo.ts';
import type { BackendSlot, BaseRepo } from '../harness/sandbox/types.ts';
import { createDockerBackend } from '../harness/sandbox/docker/backend.ts';
import { SHIPPED_POOLS } from '../harness/paths.ts';

/** Label of every container the benchmarks create: `coop-bench clean --name bench` removes leftovers. */
export const BENCH_RUN = 'bench';

export interface BenchFixture {
  pool: Pool;
  image: PoolImage;
  base: BaseRepo;
  /** The local engine as the Docker backend gives it to a task (test runs start there). */
  slot: BackendSlot;
}

export async function benchFixture(poolDir = join(SHIPPED_POOLS, 'argkit_task', 'task1')): Promise<BenchFixture> {
  const engine = await requireEngine(engineAt());
  const pool = loadPool(poolDir);
  const image = await poolImage(engine, pool, { log: (line) => console.error(line) });
  const slot = (await createDockerBackend({ log: (line) => console.error(line) })).acquire();
  return { pool, image, base: await baseRepo(image, BENCH_RUN), slot };
}
