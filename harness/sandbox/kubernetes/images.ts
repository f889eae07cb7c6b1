// Pool images for a cluster, which cannot build them: `coop-bench images push --registry R` builds
// (or finds) each pool's image with the local Docker engine, tags it R/<the content-hashed name> and
// pushes it; a run with --registry R then names exactly those. Pools without a Dockerfile (the
// CooperBench dataset) run the image CooperBench publishes, by its name.
import type { Pool } from '../../../tasks/types.ts';
import { pushedImageName } from '../image-name.ts';

/** The image a cluster runs a pool with: --image, else the pushed one, else the published one. */
export function clusterImageName(pool: Pool, options: { image?: string; registry?: string }): string {
  if (options.image) return options.image;
  if (options.registry && pool.dockerfilePath) return pushedImageName(pool, options.registry);
  return pool.publishedImage;
}
