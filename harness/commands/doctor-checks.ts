// What `coop-bench doctor` checks: everything a run needs from the machine, each with what to do
// when it is missing. No check changes anything or calls a model API.
import { accessSync, constants, existsSync, readFileSync, statfsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { execa } from 'execa';
import type { Pool } from '../../tasks/types.ts';
import { poolKey } from '../../tasks/types.ts';
import { discoverPools } from '../../tasks/pools.ts';
import { diagnoseEngine, engineAddress, engineAt } from '../docker/engine.ts';
import { builtImageName, imageId } from '../docker/images.ts';
import { isBuiltinAgent, modelSpecOf } from '../agents/registry.ts';
import { PLACEHOLDER_KEY, resolveModel } from '../models/resolve.ts';
import type { ModelOptions } from '../models/index.ts';
import { errorMessage } from '../errors.ts';

/** Doctor looks at the local engine (DOCKER_HOST or the default socket). */
const imageExists = async (name: string) => (await imageId(engineAt(), name)) !== undefined;

export type CheckStatus = 'ok' | 'warn' | 'FAIL' | 'skip';

export interface CheckResult {
  status: CheckStatus;
  name: string;
  /** What was found; for warn and FAIL, also what to do. */
  detail: string;
}

export interface DoctorOptions {
  models: string[];
  poolsDir: string;
  runsDir: string;
  modelOptions: ModelOptions;
}

const GIB = 1024 ** 3;
/** Below this a run fails to build images or store results; below WARN_FREE_BYTES it may. */
const MIN_FREE_BYTES = 2 * GIB;
const WARN_FREE_BYTES = 10 * GIB;
/** The base image of the shipped pools: seeded locally, there is no registry to pull it from. */
const SEEDED_BASE = 'debian:bookworm-slim';

const result = (status: CheckStatus, name: string, detail: string): CheckResult => ({ status, name, detail });

export function checkNode(version = process.versions.node): CheckResult {
  const major = Number(version.split('.')[0]);
  return major >= 20 ? result('ok', 'node', version) : result('FAIL', 'node', `${version}: coop-bench needs Node 20 or later: install it (nodejs.org, or your distribution's nodejs package)`);
}

export async function checkHostTools(): Promise<CheckResult> {
  const found: string[] = [];
  const missing: string[] = [];
  for (const tool of ['git', 'tar']) {
    const run = await execa(tool, ['--version'], { reject: false });
    if (run.exitCode === 0) found.push(run.stdout.split('\n')[0]);
    else missing.push(tool);
  }
  if (missing.length) return result('FAIL', 'host tools', `${missing.join(' and ')} not found (merges and base repositories need them): apt-get install -y ${missing.join(' ')}`);
  return result('ok', 'host tools', found.join(', '));
}

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
  const fixes = missing.map((image) => (image === SEEDED_BASE ? `${image}: run \`bash scripts/setup-docker.sh\` (seeds it with debootstrap)` : `${image}: docker pull ${image}, or docker load it`));
  return result('FAIL', 'base images', `missing, pools cannot be built: ${fixes.join('; ')}`);
}

export async function checkPoolImages(pools: Pool[]): Promise<CheckResult[]> {
  let ready = 0;
  let toBuild = 0;
  const problems: CheckResult[] = [];
  for (const pool of pools) {
    if ((await imageExists(pool.publishedImage)) || (pool.dockerfilePath && (await imageExists(builtImageName(pool))))) ready++;
    else if (pool.dockerfilePath) toBuild++;
    else problems.push(result('FAIL', `pool ${poolKey(pool)}`, `no Dockerfile and image ${pool.publishedImage} is not present: docker pull ${pool.publishedImage}, or run with --image <name>`));
  }
  const summary = result('ok', 'pool images', `${ready} ready, ${toBuild} to be built on first use (a minute or so each)`);
  return [summary, ...problems];
}

/** Each model spec: the key it would use, or the one line that says what is missing. */
export function checkModels(specs: string[], options: ModelOptions): CheckResult[] {
  if (specs.length === 0) return [result('skip', 'models', 'pass --models <list> to check their API keys')];
  return specs.map((spec) => {
    if (isBuiltinAgent(spec)) return result('ok', `model ${spec}`, 'built in, needs no key');
    const warnings: string[] = [];
    try {
      const model = resolveModel(modelSpecOf(spec), { ...options, warn: (w) => warnings.push(w) });
      const key = model.apiKey === PLACEHOLDER_KEY ? 'no key needed' : `key from ${model.keyVariable} (not verified online)`;
      if (!model.price) return result('warn', `model ${spec}`, `${key}; no price for ${model.model}: its calls count as $0 (add it to a --prices file)`);
      return result('ok', `model ${spec}`, `${model.model} at ${new URL(model.baseURL).host}, ${key}`);
    } catch (error) {
      return result('FAIL', `model ${spec}`, errorMessage(error));
    }
  });
}

function nearestExisting(path: string): string {
  let dir = resolve(path);
  while (!existsSync(dir)) dir = dirname(dir);
  return dir;
}

export function diskCheck(name: string, path: string, freeBytes: number): CheckResult {
  const free = `${(freeBytes / GIB).toFixed(1)} GiB free at ${path}`;
  if (freeBytes < MIN_FREE_BYTES) return result('FAIL', name, `${free}: images and results need more; free some space (docker image prune, old runs) or use another --runs-dir`);
  if (freeBytes < WARN_FREE_BYTES) return result('warn', name, `${free}: pool images take about 0.5-3 GiB each; a large run may fill it`);
  return result('ok', name, free);
}

function freeBytes(path: string): number {
  const stats = statfsSync(path);
  return stats.bavail * stats.bsize;
}

export function checkRunsDir(runsDir: string): CheckResult[] {
  const dir = nearestExisting(runsDir);
  try {
    if (!statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`);
    accessSync(dir, constants.W_OK);
  } catch (error) {
    return [result('FAIL', 'runs dir', `${resolve(runsDir)} cannot be written (${errorMessage(error)}): choose a writable --runs-dir`)];
  }
  return [result('ok', 'runs dir', `${resolve(runsDir)} is writable`), diskCheck('disk (runs)', dir, freeBytes(dir))];
}

/** Free space where the engine keeps images, when that folder is on this machine. */
export async function checkEngineDisk(): Promise<CheckResult | undefined> {
  const root = ((await engineAt().docker.info()) as { DockerRootDir?: string }).DockerRootDir;
  if (!root || !existsSync(root)) return undefined;
  return diskCheck('disk (docker)', root, freeBytes(root));
}

export async function runChecks(options: DoctorOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = [checkNode(), await checkHostTools()];
  let pools: Pool[] = [];
  try {
    pools = discoverPools(options.poolsDir);
  } catch (error) {
    results.push(result('FAIL', 'pools', errorMessage(error)));
  }
  const engine = await checkEngine();
  results.push(engine);
  if (engine.status === 'ok') {
    results.push(await checkBaseImages(pools), ...(await checkPoolImages(pools)));
    const disk = await checkEngineDisk().catch(() => undefined);
    if (disk) results.push(disk);
  } else {
    results.push(result('skip', 'images', 'base and pool images need the Docker engine'));
  }
  results.push(...checkModels(options.models, options.modelOptions), ...checkRunsDir(options.runsDir));
  return results;
}
