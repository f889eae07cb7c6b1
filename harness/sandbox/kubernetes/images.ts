// Pool images for a cluster, which cannot build them: `coop-bench images push --registry R` builds
// (or finds) each pool's image with the local Docker engine, tags it R/<the content-hashed name> and
// pushes it; a run with --registry R then names exactly those. Pools without a Dockerfile (the
// CooperBench dataset) run the image CooperBench publishes, by its name.
import type { Pool } from '../../../tasks/types.ts';
import { pushedImageName } from '../image-name.ts';
import type { SandboxImage } from '../types.ts';

/** The image a cluster runs a pool with: --image, else the pushed one, else the published one. */
export function clusterImageName(pool: Pool, options: { image?: string; registry?: string }): string {
  if (options.image) return options.image;
  if (options.registry && pool.dockerfilePath) return pushedImageName(pool, options.registry);
  return pool.publishedImage;
}

/**
 * What pods run: the digest the node resolved the image to when the extract pod started (its
 * containerStatuses[].imageID, `repo@sha256:…`, or `docker-pullable://repo@sha256:…` from
 * dockershim), so that a tag pushed again meanwhile, or a node whose IfNotPresent cache holds older
 * content under the tag, cannot run other code than the repository copied from it. A runtime that
 * reports only a local image ID (no registry digest) leaves the name.
 */
export function pinnedImage(image: SandboxImage): string {
  const m = /^(?:[a-z-]+:\/\/)?([^@\s/][^@\s]*@sha256:[0-9a-f]{64})$/.exec(image.id);
  return m ? m[1] : image.name;
}
