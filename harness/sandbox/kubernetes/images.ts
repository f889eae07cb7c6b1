// Pool images for a cluster, which cannot build them: `coop-bench images push --registry R` builds
// (or finds) each pool's image with the local Docker engine, tags it R/<the content-hashed name> and
// pushes it; a run with --registry R then names exactly those. Pools without a Dockerfile (the
// CooperBench dataset) run the image CooperBench publishes, by its name.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Pool } from '../../../tasks/types.ts';
import { poolKey } from '../../../tasks/types.ts';
import { builtImageName, poolImage } from '../../docker/images.ts';
import type { Engine } from '../../docker/engine.ts';
import { UserError, boundText } from '../../errors.ts';

/** The image a cluster runs a pool with: --image, else the pushed one, else the published one. */
export function clusterImageName(pool: Pool, options: { image?: string; registry?: string }): string {
  if (options.image) return options.image;
  if (options.registry && pool.dockerfilePath) return `${options.registry.replace(/\/+$/, '')}/${builtImageName(pool)}`;
  return pool.publishedImage;
}

/** `host[:port]/path:tag` as repository and tag (a colon after the last slash starts the tag). */
export function splitTag(name: string): { repo: string; tag: string } {
  const colon = name.lastIndexOf(':');
  return colon > name.lastIndexOf('/') ? { repo: name.slice(0, colon), tag: name.slice(colon + 1) } : { repo: name, tag: 'latest' };
}

/** Credentials `docker login R` stored for the registry (~/.docker/config.json `auths`), if any. */
function registryAuth(registry: string): { auth: string; serveraddress: string } | undefined {
  const host = registry.split('/')[0];
  try {
    const config = JSON.parse(readFileSync(join(process.env.DOCKER_CONFIG ?? join(homedir(), '.docker'), 'config.json'), 'utf8')) as { auths?: Record<string, { auth?: string }> };
    const auth = config.auths?.[host]?.auth;
    return auth ? { auth, serveraddress: host } : undefined;
  } catch {
    return undefined;
  }
}

export interface PushedImage {
  pool: string;
  name: string;
  /** False for pools that use CooperBench's published image. */
  pushed: boolean;
}

/** Tags and pushes every pool's image to `registry` through `engine`; returns the names a run with --registry will use. */
export async function pushPoolImages(engine: Engine, pools: Pool[], registry: string, log: (line: string) => void): Promise<PushedImage[]> {
  const results: PushedImage[] = [];
  for (const pool of pools) {
    const name = clusterImageName(pool, { registry });
    if (!pool.dockerfilePath) {
      log(`${poolKey(pool)}: no Dockerfile; the cluster pulls CooperBench's published ${name}`);
      results.push({ pool: poolKey(pool), name, pushed: false });
      continue;
    }
    const local = await poolImage(engine, pool, { log });
    const { repo, tag } = splitTag(name);
    await engine.docker.getImage(local.id).tag({ repo, tag });
    log(`pushing ${name} (${poolKey(pool)})`);
    const stream = await engine.docker.getImage(name).push({ tag, authconfig: registryAuth(registry) });
    await new Promise<void>((resolve, reject) => {
      engine.docker.modem.followProgress(stream, (error: Error | null, events: { error?: string }[]) => {
        const failure = error?.message ?? events.find((e) => e.error)?.error;
        if (failure) reject(new UserError(`pushing ${name} failed: ${boundText(failure.trim(), 2000)} (is ${registry} reachable from the Docker engine, and did \`docker login\` succeed?)`));
        else resolve();
      });
    });
    results.push({ pool: poolKey(pool), name, pushed: true });
  }
  return results;
}
