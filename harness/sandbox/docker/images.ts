// Pool images: a given --image, the CooperBench-published name if present on the engine, or a build
// of the pool's Dockerfile tagged by the content hash of its folder (so an unchanged pool is never
// rebuilt). Each engine of a run has its own images: a pool is built on an engine at its first task there.
import { relative } from 'node:path';
import type { Pool } from '../../../tasks/types.ts';
import { poolKey } from '../../../tasks/types.ts';
import { enginesAt, progressEnd, requireEngine, type Engine } from './engine.ts';
import { UserError, boundText } from '../../errors.ts';
import { builtImageName, contextEntries } from '../image-name.ts';

/** A pool whose image can neither be found nor built (e.g. dataset samples without a Dockerfile). */
export class CannotBuildError extends UserError {}

/** A pool's image on one engine: its name, and its id (what containers are created from). */
export interface PoolImage {
  engine: Engine;
  name: string;
  id: string;
}

/** The image's id, or undefined when the engine has no image of that name. */
export async function imageId(engine: Engine, name: string): Promise<string | undefined> {
  try {
    return (await engine.docker.getImage(name).inspect()).Id;
  } catch {
    return undefined;
  }
}

/** Builds the pool's Dockerfile as `tag`; for `platform` (`linux/arm64`), else the engine's own. */
async function build(engine: Engine, pool: Pool, tag: string, log: (line: string) => void, platform?: string): Promise<void> {
  const context = pool.dir;
  const src = contextEntries(context).map((p) => relative(context, p));
  log(`building image ${tag} for ${poolKey(pool)} on ${engine.host}${platform ? ` for ${platform}` : ' (first use of this pool version there)'}`);
  const stream = await engine.docker.buildImage(
    { context, src },
    { t: tag, labels: { 'coop-bench': 'true' }, rm: true, forcerm: true, ...(platform && { platform }) },
  );
  const output: string[] = [];
  await progressEnd<{ error?: string; stream?: string }>(engine, stream, (event) => {
    if (event.stream) output.push(event.stream);
  }).catch((failure: Error) => {
    throw new UserError(`building ${poolKey(pool)} from ${pool.dockerfilePath} failed: ${failure.message}\n${boundText(output.join(''), 4000)}`);
  });
}

/**
 * The pool's image built for another platform (`images push --platform`), under a tag of its own so
 * that the engine's native image, which its runs use, stays as it is; built once per pool version.
 */
export async function platformImage(engine: Engine, pool: Pool, platform: string, log: (line: string) => void): Promise<PoolImage> {
  const name = `${builtImageName(pool)}-${platform.replace(/[^A-Za-z0-9]+/g, '-')}`;
  const existing = await imageId(engine, name);
  if (existing) return { engine, name, id: existing };
  await build(engine, pool, name, log, platform);
  const id = await imageId(engine, name);
  if (!id) throw new Error(`the build of ${name} ended but the engine has no image of that name`);
  return { engine, name, id };
}

const pending = new Map<string, Promise<PoolImage>>();

/** The image to run a pool with on an engine, building it there once if needed. */
export function poolImage(engine: Engine, pool: Pool, options: { image?: string; log?: (line: string) => void } = {}): Promise<PoolImage> {
  const key = `${engine.host}|${pool.dir}|${options.image ?? ''}`;
  let result = pending.get(key);
  if (!result) {
    result = resolvePoolImage(engine, pool, options.image, options.log ?? (() => undefined));
    pending.set(key, result);
    result.catch(() => pending.delete(key));
  }
  return result;
}

/** --image: the user's own image, which must be present (there is nothing to build it from). */
export async function requireImage(engine: Engine, image: string): Promise<PoolImage> {
  const id = await imageId(engine, image);
  if (id) return { engine, name: image, id };
  throw new UserError(`image ${image} (given with --image) is not present in the Docker engine at ${engine.host}: docker pull or build it there first`);
}

/** The run's engines, checked before anything is written: each answers, and holds --image if given. */
export async function readyEngines(hosts: readonly string[] | undefined, image: string | undefined): Promise<Engine[]> {
  const engines = await Promise.all(enginesAt(hosts).map((engine) => requireEngine(engine)));
  if (image) await Promise.all(engines.map((engine) => requireImage(engine, image)));
  return engines;
}

async function resolvePoolImage(engine: Engine, pool: Pool, image: string | undefined, log: (line: string) => void): Promise<PoolImage> {
  const found = async (name: string) => {
    const id = await imageId(engine, name);
    return id ? { engine, name, id } : undefined;
  };
  if (image) return requireImage(engine, image);
  const published = await found(pool.publishedImage);
  if (published) return published;
  if (!pool.dockerfilePath) {
    throw new CannotBuildError(
      `cannot build ${poolKey(pool)}: ${pool.dir} has no Dockerfile and image ${pool.publishedImage} is not present on ${engine.host} (docker pull it, or pass --image <name>)`,
    );
  }
  const tag = builtImageName(pool);
  const built = await found(tag);
  if (built) return built;
  await build(engine, pool, tag, log);
  const id = await imageId(engine, tag);
  if (!id) throw new Error(`image ${tag} was built but ${engine.host} does not list it`);
  return { engine, name: tag, id };
}
