// What the benchmarks run on: the shipped argkit pool (JavaScript, node --test), its image on the
// local engine (built once per content hash), and its base repository.
import { join } from 'node:path';
import { loadPool } from '../tasks/pools.ts';
import type { Pool } from '../tasks/types.ts';
import { engineAt, requireEngine } from '../harness/docker/engine.ts';
import { poolImage, type PoolImage } from '../harness/docker/images.ts';
import { baseRepo, type BaseRepo } from '../harness/docker/base-repo.ts';
import { SHIPPED_POOLS } from '../harness/paths.ts';

/** Label of every container the benchmarks create: `coop-bench clean --name bench` removes leftovers. */
export const BENCH_RUN = 'bench';

export interface BenchFixture {
  pool: Pool;
  image: PoolImage;
  base: BaseRepo;
}

export async function benchFixture(poolDir = join(SHIPPED_POOLS, 'argkit_task', 'task1')): Promise<BenchFixture> {
  const engine = await requireEngine(engineAt());
  const pool = loadPool(poolDir);
  const image = await poolImage(engine, pool, { log: (line) => console.error(line) });
  return { pool, image, base: await baseRepo(image, BENCH_RUN) };
}
