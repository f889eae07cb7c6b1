// What `coop-bench doctor` checks for the Docker backend: the engine, the base images the pools
// are built from, the pools' images, and the engine's disk.
import { existsSync, readFileSync } from 'node:fs';
import type { Pool } from '../../../tasks/types.ts';
import { poolKey } from '../../../tasks/types.ts';
import { diskCheck, freeBytes, result } from '../disk-check.ts';
import { builtImageName } from '../image-name.ts';
import type { CheckResult } from '../types.ts';
import { diagnoseEngine, engineAddress, engineAt } from './engine.ts';
import { imageId } from './images.ts';

/** The base image of the shipped pools: seeded locally, there is no registry to pull it from. */
const SEEDED_BASE = 'debian:bookworm-slim';

/** Doctor looks at the local engine (DOCKER_HOST or the default socket). */
const imageExists = async (name: string) => (await imageId(engineAt(), name)) !== undefined;

/** The engine's version, or the one line that says how to get an engine. */
export async function checkEngine(): Promise<CheckResult> {
  try {
    const version = await engineAt().docker.version();
    return result('ok', 'docker engine', `Docker ${version.Version} at ${engineAddress()}`);
  } catch (error) {
    return result('FAIL', 'docker engine', diagnoseEngine(error));
  }
}

/** Images named by FROM lines, except earlier build stages. */
export function baseImagesOf(dockerfile: string): string[] {
  const stages = new Set<string>();
  const images: string[] = [];
  for (const m of dockerfile.matchAll(/^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/gim)) {
    if (!stages.has(m[1].toLowerCase())) images.push(m[1]);
    if (m[2]) stages.add(m[2].toLowerCase());
  }
  return images;
}

export async function checkBaseImages(pools: Pool[]): Promise<CheckResult> {
  const images = [...new Set(pools.flatMap((p) => (p.dockerfilePath ? baseImagesOf(readFileSync(p.dockerfilePath, 'utf8')) : [])))];
  if (images.length === 0) return result('ok', 'base images', 'no pool is built from a Dockerfile');
  const missing: string[] = [];
  for (const image of images) if (!(await imageExists(image))) missing.push(image);
  if (missing.length === 0) return result('ok', 'base images', images.join(', '));
  const fixes = missing.map((image) =>
    image === SEEDED_BASE ? `${image}: run \`bash scripts/setup-docker.sh\` (seeds it with debootstrap)` : `${image}: docker pull ${image}, or docker load it`,
  );
  return result('FAIL', 'base images', `missing, pools cannot be built: ${fixes.join('; ')}`);
}

export async function checkPoolImages(pools: Pool[]): Promise<CheckResult[]> {
  let ready = 0;
  let toBuild = 0;
  const problems: CheckResult[] = [];
  for (const pool of pools) {
    if ((await imageExists(pool.publishedImage)) || (pool.dockerfilePath && (await imageExists(builtImageName(pool))))) ready++;
    else if (pool.dockerfilePath) toBuild++;
    else
      problems.push(
        result(
          'FAIL',
          `pool ${poolKey(pool)}`,
          `no Dockerfile and image ${pool.publishedImage} is not present: docker pull ${pool.publishedImage}, or run with --image <name>`,
        ),
      );
  }
  const summary = result('ok', 'pool images', `${ready} ready, ${toBuild} to be built on first use (a minute or so each)`);
  return [summary, ...problems];
}

/** Free space where the engine keeps images, when that folder is on this machine. */
export async function checkEngineDisk(): Promise<CheckResult | undefined> {
  const root = ((await engineAt().docker.info()) as { DockerRootDir?: string }).DockerRootDir;
  if (!root || !existsSync(root)) return undefined;
  return diskCheck('disk (docker)', root, freeBytes(root));
}

export async function dockerChecks(pools: Pool[]): Promise<CheckResult[]> {
  const engine = await checkEngine();
  if (engine.status !== 'ok') return [engine, result('skip', 'images', 'base and pool images need the Docker engine')];
  const results = [engine, await checkBaseImages(pools), ...(await checkPoolImages(pools))];
  const disk = await checkEngineDisk().catch(() => undefined);
  return disk ? [...results, disk] : results;
}
