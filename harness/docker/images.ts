// Pool images: a given --image, the CooperBench-published name if present locally, or a build of
// the pool's Dockerfile tagged by the content hash of its folder (so an unchanged pool is never rebuilt).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Pool } from '../../tasks/types.ts';
import { poolKey } from '../../tasks/types.ts';
import { docker } from './engine.ts';
import { UserError, boundText } from '../errors.ts';

/** A pool whose image can neither be found nor built (e.g. dataset samples without a Dockerfile). */
export class CannotBuildError extends UserError {}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}

/** Hash of every file of the build context, with its path and executable bit. */
export function contextHash(dir: string): string {
  const hash = createHash('sha256');
  for (const path of filesUnder(dir).sort()) {
    hash.update(relative(dir, path));
    hash.update(statSync(path).mode & 0o111 ? 'x' : '-');
    hash.update(readFileSync(path));
  }
  return hash.digest('hex').slice(0, 12);
}

export function builtImageName(pool: Pool): string {
  return `coop-bench/${pool.repo.toLowerCase().replace(/[^a-z0-9_.-]/g, '-')}:task${pool.taskId}-${contextHash(pool.dir)}`;
}

export async function imageExists(name: string): Promise<boolean> {
  try {
    await docker().getImage(name).inspect();
    return true;
  } catch {
    return false;
  }
}

async function build(pool: Pool, tag: string, log: (line: string) => void): Promise<void> {
  const context = pool.dir;
  const src = filesUnder(context).map((p) => relative(context, p));
  log(`building image ${tag} for ${poolKey(pool)} (first use of this pool version)`);
  const stream = await docker().buildImage({ context, src }, { t: tag, labels: { 'coop-bench': 'true' }, rm: true, forcerm: true });
  const output: string[] = [];
  await new Promise<void>((resolve, reject) => {
    docker().modem.followProgress(
      stream,
      (error: Error | null, events: { error?: string; errorDetail?: { message?: string } }[]) => {
        const failure = error?.message ?? events.find((e) => e.error)?.error;
        if (failure) reject(new UserError(`building ${poolKey(pool)} from ${pool.dockerfilePath} failed: ${failure.trim()}\n${boundText(output.join(''), 4000)}`));
        else resolve();
      },
      (event: { stream?: string }) => {
        if (event.stream) output.push(event.stream);
      },
    );
  });
}

const pending = new Map<string, Promise<string>>();

/** The image to run a pool with, building it once if needed. */
export function poolImage(pool: Pool, options: { image?: string; log?: (line: string) => void } = {}): Promise<string> {
  const key = `${pool.dir}|${options.image ?? ''}`;
  let result = pending.get(key);
  if (!result) {
    result = resolvePoolImage(pool, options.image, options.log ?? (() => undefined));
    pending.set(key, result);
    result.catch(() => pending.delete(key));
  }
  return result;
}

/** --image: the user's own image, which must be present (there is nothing to build it from). */
export async function requireImage(image: string): Promise<string> {
  if (await imageExists(image)) return image;
  throw new UserError(`image ${image} (given with --image) is not present in the Docker engine: docker pull or build it first`);
}

async function resolvePoolImage(pool: Pool, image: string | undefined, log: (line: string) => void): Promise<string> {
  if (image) return requireImage(image);
  if (await imageExists(pool.publishedImage)) return pool.publishedImage;
  if (!pool.dockerfilePath) {
    throw new CannotBuildError(
      `cannot build ${poolKey(pool)}: ${pool.dir} has no Dockerfile and image ${pool.publishedImage} is not present locally (docker pull it, or pass --image <name>)`,
    );
  }
  const tag = builtImageName(pool);
  if (!(await imageExists(tag))) await build(pool, tag, log);
  return tag;
}
