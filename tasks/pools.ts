// Loads feature pools in the CooperBench layout: <root>/<repo>/task<id>/feature<N>/{feature.md,feature.patch,tests.patch}.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Feature, Pool } from './types.ts';
import { UserError } from '../harness/errors.ts';

const TASK_DIR = /^task(\d+)$/;
const FEATURE_DIR = /^feature(\d+)$/;

function isDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

function optionalFile(path: string): string | undefined {
  return existsSync(path) ? path : undefined;
}

/** CooperBench publishes `akhatua/cooperbench-<repo without _task, _ as ->:task<id>`. */
export function publishedImageName(repo: string, taskId: number): string {
  const name = repo.replace(/_task$/, '').replace(/_/g, '-').toLowerCase();
  return `akhatua/cooperbench-${name}:task${taskId}`;
}

/** Loads one pool folder (`.../<repo>/task<id>`). */
export function loadPool(dir: string): Pool {
  const taskMatch = TASK_DIR.exec(basename(dir));
  if (!taskMatch) throw new UserError(`${dir} is not a pool folder: its name must be task<id>`);
  const repo = basename(resolve(dir, '..'));
  const taskId = Number(taskMatch[1]);
  const features: Feature[] = [];
  for (const entry of readdirSync(dir)) {
    const m = FEATURE_DIR.exec(entry);
    if (!m) continue;
    const featureDir = join(dir, entry);
    const missing = ['feature.md', 'feature.patch', 'tests.patch'].filter((f) => !existsSync(join(featureDir, f)));
    if (missing.length > 0) {
      throw new UserError(`pool ${repo}/task${taskId}: ${entry} lacks ${missing.join(', ')} (each feature needs feature.md, feature.patch and tests.patch)`);
    }
    features.push({
      id: Number(m[1]),
      dir: featureDir,
      description: readFileSync(join(featureDir, 'feature.md'), 'utf8'),
      patchPath: join(featureDir, 'feature.patch'),
      testsPatchPath: join(featureDir, 'tests.patch'),
    });
  }
  if (features.length === 0) throw new UserError(`pool ${repo}/task${taskId} (${dir}) has no feature<N>/ folders`);
  features.sort((a, b) => a.id - b.id);
  return {
    repo,
    taskId,
    dir,
    features,
    combinedPatchPath: optionalFile(join(dir, 'combined.patch')),
    dockerfilePath: optionalFile(join(dir, 'Dockerfile')),
    runnerPath: optionalFile(join(dir, 'runner.sh')),
    publishedImage: publishedImageName(repo, taskId),
  };
}

/**
 * Finds every pool under a root. The root may be a dataset folder (<root>/<repo>/task<id>),
 * a repository folder (<repo>/task<id>) or a single pool folder (task<id>).
 */
export function discoverPools(root: string): Pool[] {
  if (!isDir(root)) throw new UserError(`pool folder ${root} does not exist (pass --pools <dir> pointing at a dataset in the CooperBench layout)`);
  if (TASK_DIR.test(basename(resolve(root)))) return [loadPool(root)];
  const taskDirsOf = (dir: string) =>
    readdirSync(dir)
      .filter((e) => TASK_DIR.test(e) && isDir(join(dir, e)))
      .map((e) => join(dir, e));
  const direct = taskDirsOf(root);
  const dirs = direct.length > 0 ? direct : readdirSync(root)
    .filter((e) => isDir(join(root, e)))
    .flatMap((e) => taskDirsOf(join(root, e)));
  const pools = dirs.map(loadPool);
  return pools.sort((a, b) => a.repo.localeCompare(b.repo) || a.taskId - b.taskId);
}

export function readFeaturePatch(feature: Feature): string {
  return readFileSync(feature.patchPath, 'utf8');
}

export function findFeature(pool: Pool, id: number): Feature {
  const feature = pool.features.find((f) => f.id === id);
  if (!feature) throw new UserError(`pool ${pool.repo}/task${pool.taskId} has no feature ${id} (it has ${pool.features.map((f) => f.id).join(', ')})`);
  return feature;
}
