// `coop-bench images push --registry R`, for backends that cannot build (a cluster): each pool's
// image, found or built on the local Docker engine, tagged R/<its content-hashed name> and pushed.
// Pools without a Dockerfile (the CooperBench dataset) keep CooperBench's published image, by name.
import type { Pool } from '../../../tasks/types.ts';
import { poolKey } from '../../../tasks/types.ts';
import { UserError, boundText } from '../../errors.ts';
import { pushedImageName } from '../image-name.ts';
import type { PushedImage } from '../types.ts';
import { progressEnd, type Engine } from './engine.ts';
import { platformImage, poolImage } from './images.ts';
import { registryAuth } from './registry-auth.ts';

/** `host[:port]/path:tag` as repository and tag (a colon after the last slash starts the tag). */
export function splitTag(name: string): { repo: string; tag: string } {
  const colon = name.lastIndexOf(':');
  return colon > name.lastIndexOf('/') ? { repo: name.slice(0, colon), tag: name.slice(colon + 1) } : { repo: name, tag: 'latest' };
}

/** A platform as `docker build --platform` names it: os/arch[/variant]. */
const PLATFORM = /^[a-z0-9]+\/[a-z0-9_]+(\/[a-z0-9]+)?$/;

/**
 * Tags and pushes every pool's image to `registry` through `engine`, built for `platform` (the
 * nodes') when given; returns the names a run with --registry will use (the same for every platform).
 */
export async function pushPoolImages(engine: Engine, pools: Pool[], registry: string, log: (line: string) => void, platform?: string): Promise<PushedImage[]> {
  if (platform !== undefined && !PLATFORM.test(platform)) {
    throw new UserError(`--platform ${JSON.stringify(platform)} is not a platform: give os/arch as docker build does, e.g. linux/amd64 or linux/arm64`);
  }
  const results: PushedImage[] = [];
  // Asked once: a helper may prompt or call out to its provider.
  const authconfig = await registryAuth(registry);
  for (const pool of pools) {
    const name = pool.dockerfilePath ? pushedImageName(pool, registry) : pool.publishedImage;
    if (!pool.dockerfilePath) {
      log(
        `${poolKey(pool)}: no Dockerfile; the cluster pulls CooperBench's published ${name}${platform ? ` (for whatever platforms it was published for, not built for ${platform})` : ''}`,
      );
      results.push({ pool: poolKey(pool), name, pushed: false });
      continue;
    }
    const local = platform ? await platformImage(engine, pool, platform, log) : await poolImage(engine, pool, { log });
    const { repo, tag } = splitTag(name);
    await engine.docker.getImage(local.id).tag({ repo, tag });
    log(`pushing ${name} (${poolKey(pool)})`);
    const stream = await engine.docker.getImage(name).push({ tag, authconfig });
    await progressEnd(engine, stream).catch((failure: Error) => {
      throw new UserError(
        `pushing ${name} failed: ${boundText(failure.message, 2000)} (is ${registry} reachable from the Docker engine, and did \`docker login\` succeed?)`,
      );
    });
    results.push({ pool: poolKey(pool), name, pushed: true });
  }
  return results;
}
