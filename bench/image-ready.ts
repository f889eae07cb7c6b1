// Image preparation alone, in a process of its own as `coop-bench run` is (the first-step benchmark's
// reference): start, reach the engine, find the pool's image (built already: a warm engine). Argument:
// the pool's folder. Exits when the image is ready.
import { loadPool } from '../tasks/pools.ts';
import { engineAt, requireEngine } from '../harness/sandbox/docker/engine.ts';
import { poolImage } from '../harness/sandbox/docker/images.ts';

await poolImage(await requireEngine(engineAt()), loadPool(process.argv[2]!));
