// `coop-bench images push --registry R`, for backends that cannot build (a cluster): each pool's
// image, found or built on the local Docker engine, tagged R/<its content-hashed name> and pushed.
// Pools without a Dockerfile (the CooperBench dataset) keep CooperBench's published image, by name.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Pool } from '../../../tasks/types.ts';
import { poolKey } from '../../../tasks/types.ts';
import { UserError, boundText } from '../../errors.ts';
import { pushedImageName } from '../image-name.ts';
import type { PushedImage } from '../types.ts';
import { progressEnd, type Engine } from './engine.ts';
import { poolImage } from './images.ts';

/** `host[:port]/path:tag` as repository and tag (a colon after the last slash starts the tag). */
export function splitTag(name: string): { repo: string; tag: string } {
  const colon = name.lastIndexOf(':');
  return colon > name.lastIndexOf('/') ? { repo: name.slice(0, colon), tag: name.slice(colon + 1) } : { repo: name, tag: 'latest' };
}

/** Credentials `docker login R` stored for the registry (~/.docker/config.json `auths`), if any. */
function registryAuth(registry: string): { auth: string; serveraddress: string } | undefined {
  const host = registry.split('/')[0];
  try {
    const config = JSON.parse(readFileSync(join(process.env.DOCKER_CONFIG ?? join(homedir(), '.docker'), 'config.json'), 'utf8')) as {
      auths?: Record<string, { auth?: string }>;
    };
    const auth = config.auths?.[host]?.auth;
    return auth ? { auth, serveraddress: host } : undefined;
  } catch {
    return undefined;
  }
}

/** Tags and pushes every pool's image to `registry` through `engine`; returns the names a run with --registry will use. */
export async function pushPoolImages(engine: Engine, pools: Pool[], registry: string, log: (line: string) => void): Promise<PushedImage[]> {
  const results: PushedImage[] = [];
  for (const pool of pools) {
    const name = pool.dockerfilePath ? pushedImageName(pool, registry) : pool.publishedImage;
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
    await progressEnd(engine, stream).catch((failure: Error) => {
      throw new UserError(
        `pushing ${name} failed: ${boundText(failure.message, 2000)} (is ${registry} reachable from the Docker engine, and did \`docker login\` succeed?)`,
      );
    });
    results.push({ pool: poolKey(pool), name, pushed: true });
  }
  return results;
}
