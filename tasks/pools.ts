// Loads feature pools in the CooperBench layout: <root>/<repo>/task<id>/feature<N>/{feature.md,feature.patch,tests.patch}.
// A pool is untrusted input (a downloaded dataset). The files coop-bench reads itself (feature.md,
// the patches, runner.sh, Dockerfile) must be regular files of the pool folder, reached through no
// symbolic link, each within a size bound: feature.md goes to the model provider as it is. The rest
// of the pool folder is only the Docker build context (e.g. a repo/ folder): there a symbolic link
// may point inside the pool (Docker receives it as a link) but never out of it. No device, FIFO or
// socket anywhere. `pools validate` and `run` load pools here, so both refuse the same pools.
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  statSync,
  type Dirent,
  type Stats,
} from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import type { Feature, Pool } from './types.ts';
import { quoted } from '../resolver/bounded-text.ts';
import { TaskInputError } from './errors.ts';

const TASK_DIR = /^task(\d+)$/;
const FEATURE_DIR = /^feature(\d+)$/;
/** Repository folder names become parts of paths, messages and reports: no line breaks or terminal controls. */
const CONTROL_CHARACTERS = /[\p{Cc}\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const FEATURE_FILES = ['feature.md', 'feature.patch', 'tests.patch'];

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * The largest pool file coop-bench reads, per file name. The largest of CooperBench's samples are a
 * 4.7 KiB feature.md and a 21 KiB combined.patch; a patch may be as large as an agent's (20 MiB).
 */
export const POOL_FILE_BOUNDS: Record<string, { bytes: number; what: string }> = {
  'feature.md': { bytes: 32 * KiB, what: 'a feature description (the text sent to the model)' },
  'feature.patch': { bytes: 20 * MiB, what: 'a patch' },
  'tests.patch': { bytes: 20 * MiB, what: 'a patch' },
  'combined.patch': { bytes: 20 * MiB, what: 'a patch' },
  'runner.sh': { bytes: 1 * MiB, what: 'a test runner' },
  Dockerfile: { bytes: 1 * MiB, what: 'a Dockerfile' },
};

/** A pool that cannot be used, with each of its problems in one line. */
export class InvalidPoolError extends TaskInputError {
  constructor(
    readonly pool: string,
    /** The pool folder, as messages show it. */
    readonly dir: string,
    readonly problems: string[],
  ) {
    const more = problems.length - 1;
    super(`pool ${pool}: ${problems[0]}${more > 0 ? ` (and ${more} more problem${more > 1 ? 's' : ''}: coop-bench pools validate lists them)` : ''}`);
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= MiB) return `${(bytes / MiB).toFixed(1).replace(/\.0$/, '')} MiB`;
  if (bytes >= KiB) return `${(bytes / KiB).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${bytes} bytes`;
}

/** A path as a message shows it: quoted and escaped when it holds anything unusual. */
function shown(path: string): string {
  return /^[\w./+@-]+$/.test(path) ? path : quoted(path);
}

function kindOf(stat: Pick<Stats, 'isFIFO' | 'isSocket' | 'isBlockDevice' | 'isCharacterDevice'>): string {
  if (stat.isFIFO()) return 'FIFO';
  if (stat.isSocket()) return 'socket';
  if (stat.isBlockDevice()) return 'block device';
  if (stat.isCharacterDevice()) return 'character device';
  return 'special file';
}

function isInside(dir: string, path: string): boolean {
  return path === dir || path.startsWith(dir + sep);
}

/** Whether coop-bench reads this entry of the pool itself (then it must be real, no link). */
function readByCoopBench(rel: string): boolean {
  const parts = rel.split(sep);
  if (parts.length === 1) return FEATURE_DIR.test(parts[0]) || parts[0] in POOL_FILE_BOUNDS;
  return parts.length === 2 && FEATURE_DIR.test(parts[0]) && FEATURE_FILES.includes(parts[1]);
}

/** Links and special files anywhere in the pool folder, one problem each. */
function inspectTree(poolDir: string, rel: string, problems: string[]): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(poolDir, rel), { withFileTypes: true });
  } catch (error) {
    problems.push(`${shown(rel || '.')} cannot be read: ${(error as Error).message}`);
    return;
  }
  for (const entry of entries) {
    const path = join(rel, entry.name);
    if (entry.isDirectory()) {
      inspectTree(poolDir, path, problems);
    } else if (entry.isSymbolicLink()) {
      const target = readlinkSync(join(poolDir, path));
      if (readByCoopBench(path)) {
        problems.push(
          `${shown(path)} is a symbolic link (to ${quoted(target)}): coop-bench reads it itself, so it must be a real file (or folder) of the pool; replace the link by what it points to`,
        );
      } else if (!isInside(poolDir, resolve(poolDir, dirname(path), target))) {
        problems.push(
          `${shown(path)} is a symbolic link to ${quoted(target)}, outside the pool folder: a pool may link only to its own files; replace the link by the file itself`,
        );
      }
    } else if (!entry.isFile()) {
      problems.push(`${shown(path)} is a ${kindOf(entry)}, not a regular file: remove it from the pool folder`);
    }
  }
}

/** The path of a pool file that passes its size bound; undefined when absent or not a regular file (inspectTree said why). */
function poolFile(poolDir: string, rel: string, problems: string[]): string | undefined {
  const path = join(poolDir, rel);
  let stat: Stats;
  try {
    stat = lstatSync(path);
  } catch {
    return undefined;
  }
  if (!stat.isFile()) return undefined;
  const bound = POOL_FILE_BOUNDS[basename(rel)];
  if (stat.size > bound.bytes) {
    problems.push(`${rel} is ${formatBytes(stat.size)}, over the ${formatBytes(bound.bytes)} bound on ${bound.what}: shorten it`);
    return undefined;
  }
  return path;
}

/**
 * Reads a pool file as loadPool checked it: a regular file (never through a link at its last step)
 * within its bound, however it changed since.
 */
export function readPoolFile(path: string): Buffer {
  const bound = POOL_FILE_BOUNDS[basename(path)]?.bytes ?? Infinity;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const link = (error as { code?: string }).code === 'ELOOP';
    throw new TaskInputError(
      link
        ? `${shown(path)} is a symbolic link: pool files are read only as regular files (coop-bench pools validate explains)`
        : `cannot read ${shown(path)}: ${(error as Error).message}`,
    );
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new TaskInputError(`${shown(path)} is a ${kindOf(stat)}, not a regular file: remove it from the pool folder`);
    if (stat.size > bound)
      throw new TaskInputError(
        `${shown(path)} is ${formatBytes(stat.size)}, over the ${formatBytes(bound)} bound on ${POOL_FILE_BOUNDS[basename(path)].what}: shorten it`,
      );
    // No more than fstat saw, should the file grow meanwhile.
    const buffer = Buffer.alloc(stat.size);
    let filled = 0;
    while (filled < buffer.length) {
      const n = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** CooperBench publishes `akhatua/cooperbench-<repo without _task, _ as ->:task<id>`. */
export function publishedImageName(repo: string, taskId: number): string {
  const name = repo
    .replace(/_task$/, '')
    .replace(/_/g, '-')
    .toLowerCase();
  return `akhatua/cooperbench-${name}:task${taskId}`;
}

/** Loads one pool folder (`.../<repo>/task<id>`); an unusable one throws InvalidPoolError with every problem. */
export function loadPool(dir: string): Pool {
  const taskMatch = TASK_DIR.exec(basename(dir));
  if (!taskMatch) throw new TaskInputError(`${shown(dir)} is not a pool folder: its name must be task<id>`);
  const repo = basename(resolve(dir, '..'));
  const taskId = Number(taskMatch[1]);
  const key = `${shown(repo)}/task${taskId}`;
  const problems: string[] = [];
  if (CONTROL_CHARACTERS.test(repo)) problems.push(`its repository folder's name ${quoted(repo)} holds control characters: rename the folder`);
  const poolDir = resolve(dir);
  inspectTree(poolDir, '', problems);

  const features: Feature[] = [];
  for (const entry of readdirSync(poolDir, { withFileTypes: true })) {
    const m = FEATURE_DIR.exec(entry.name);
    if (!m) continue;
    if (!entry.isDirectory()) {
      if (entry.isFile()) problems.push(`${entry.name} is a file: each feature is a folder holding feature.md, feature.patch and tests.patch`);
      continue;
    }
    const featureDir = join(poolDir, entry.name);
    const missing = FEATURE_FILES.filter((f) => !existsSync(join(featureDir, f)) && !isLink(join(featureDir, f)));
    if (missing.length > 0) {
      problems.push(`${entry.name} lacks ${missing.join(', ')} (each feature needs feature.md, feature.patch and tests.patch)`);
      continue;
    }
    const [description, patchPath, testsPatchPath] = FEATURE_FILES.map((f) => poolFile(poolDir, join(entry.name, f), problems));
    if (!description || !patchPath || !testsPatchPath) continue;
    features.push({ id: Number(m[1]), dir: featureDir, description: readPoolFile(description).toString('utf8'), patchPath, testsPatchPath });
  }
  const optional = (name: string) => (existsSync(join(poolDir, name)) || isLink(join(poolDir, name)) ? poolFile(poolDir, name, problems) : undefined);
  const [combinedPatchPath, dockerfilePath, runnerPath] = ['combined.patch', 'Dockerfile', 'runner.sh'].map(optional);
  if (features.length === 0 && problems.length === 0) problems.push(`${shown(dir)} has no feature<N>/ folders`);
  if (problems.length > 0) throw new InvalidPoolError(key, shown(dir), problems);
  features.sort((a, b) => a.id - b.id);
  return { repo, taskId, dir, features, combinedPatchPath, dockerfilePath, runnerPath, publishedImage: publishedImageName(repo, taskId) };
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function isDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** The pools under a root, and those that cannot be used (each with its problems). */
export interface PoolScan {
  pools: Pool[];
  invalid: InvalidPoolError[];
}

/**
 * Every pool under a root. The root may be a dataset folder (<root>/<repo>/task<id>), a repository
 * folder (<repo>/task<id>) or a single pool folder (task<id>); the root is the user's own path and
 * may be a link, but below it pools are read only from real folders.
 */
export function scanPools(root: string): PoolScan {
  if (!isDir(root)) throw new TaskInputError(`pool folder ${shown(root)} does not exist (pass --pools <dir> pointing at a dataset in the CooperBench layout)`);
  const scan: PoolScan = { pools: [], invalid: [] };
  const load = (dir: string) => {
    try {
      scan.pools.push(loadPool(dir));
    } catch (error) {
      if (!(error instanceof InvalidPoolError)) throw error;
      scan.invalid.push(error);
    }
  };
  /** A pool folder (`<repo>/task<id>`) or a repository folder (`<repo>/*`) that is a link. */
  const linked = (dir: string, name: string, key: string) => {
    const path = join(dir, name);
    const problem = `${shown(path)} is a symbolic link to ${quoted(readlinkSync(path))}: pools are read only from real folders of the dataset; replace the link by the folder itself`;
    scan.invalid.push(new InvalidPoolError(shown(key), shown(path), [problem]));
  };
  /** task<id> folders of a folder; links among them are refused. */
  const poolsIn = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true }).filter(
      (e) => TASK_DIR.test(e.name) && (e.isDirectory() || (e.isSymbolicLink() && isDir(join(dir, e.name)))),
    );
    for (const e of entries) {
      if (e.isSymbolicLink()) linked(dir, e.name, `${basename(resolve(dir))}/${e.name}`);
      else load(join(dir, e.name));
    }
    return entries.length;
  };
  if (TASK_DIR.test(basename(resolve(root)))) load(root);
  else if (poolsIn(root) === 0) {
    for (const e of readdirSync(root, { withFileTypes: true })) {
      const path = join(root, e.name);
      if (e.isDirectory()) poolsIn(path);
      else if (e.isSymbolicLink() && isDir(path) && readdirSync(path).some((name) => TASK_DIR.test(name))) linked(root, e.name, `${e.name}/*`);
    }
  }
  scan.pools.sort((a, b) => a.repo.localeCompare(b.repo) || a.taskId - b.taskId);
  return scan;
}

/** Every pool under a root (see scanPools); the first unusable pool is an error. */
export function discoverPools(root: string): Pool[] {
  const { pools, invalid } = scanPools(root);
  if (invalid.length > 0) throw invalid[0];
  return pools;
}

export function findFeature(pool: Pool, id: number): Feature {
  const feature = pool.features.find((f) => f.id === id);
  if (!feature) throw new TaskInputError(`pool ${pool.repo}/task${pool.taskId} has no feature ${id} (it has ${pool.features.map((f) => f.id).join(', ')})`);
  return feature;
}
