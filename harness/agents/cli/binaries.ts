// The agent CLIs' binaries: npm packages, one per platform, pinned in package.json as optional
// dependencies (exact versions; the lockfile holds their integrity). npm installs the one that
// matches this machine; a container may need another (musl, arm64), and a machine may have skipped
// optional packages: such a package is fetched on first use with the machine's own npm
// (`npm pack`, its registry settings), checked against the lockfile's integrity, and unpacked into
// a cache folder.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { execa } from 'execa';
import { extract as tarExtract } from 'tar-stream';
import { PROJECT_ROOT } from '../../paths.ts';
import { UserError, errorMessage } from '../../errors.ts';

export interface PinnedPackage {
  /** The dependency's name in package.json (an alias for `@openai/codex` platform builds). */
  name: string;
  /** What `npm pack` fetches: `<package>@<exact version>`. */
  spec: string;
  version: string;
  /** sha512 SRI from the lockfile, when there is one (an installed package has none). */
  integrity?: string;
}

/** The parts of package.json, package-lock.json and an installed package's manifest read here. */
interface PackageFiles {
  version?: string;
  optionalDependencies?: Record<string, unknown>;
  packages?: Record<string, { integrity?: unknown } | undefined>;
}

function readJson(path: string): PackageFiles {
  return JSON.parse(readFileSync(path, 'utf8')) as PackageFiles;
}

/** The pin of an optional dependency of coop-bench, from package.json and package-lock.json. */
export function pinnedPackage(name: string, root = PROJECT_ROOT): PinnedPackage {
  const range: unknown = readJson(join(root, 'package.json')).optionalDependencies?.[name];
  if (typeof range !== 'string') throw new Error(`${name} is not an optional dependency of coop-bench`);
  // `npm:<package>@<version>` for aliases, else an exact version.
  const spec = range.startsWith('npm:') ? range.slice(4) : `${name}@${range}`;
  const version = spec.slice(spec.lastIndexOf('@') + 1);
  if (!/^\d+\.\d+\.\d+(-[\w.-]+)?$/.test(version)) throw new Error(`${name} must be pinned to an exact version in package.json, not "${range}"`);
  const lockPath = join(root, 'package-lock.json');
  const integrity: unknown = existsSync(lockPath) ? readJson(lockPath).packages?.[`node_modules/${name}`]?.integrity : undefined;
  return { name, spec, version, integrity: typeof integrity === 'string' ? integrity : undefined };
}

export function defaultCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'coop-bench', 'cli');
}

export interface PackageOptions {
  /** Where packages fetched on first use are kept (default: ~/.cache/coop-bench/cli). */
  cacheDir?: string;
  /** Project root whose package.json pins the package (default: coop-bench's own). */
  root?: string;
  /** Progress lines ("installing ... once"). */
  log?: (line: string) => void;
}

const installing = new Map<string, Promise<string>>();

/**
 * The folder of a pinned platform package (its package.json at the top): node_modules if npm
 * installed it, else the cache, fetched there on first use. Concurrent callers share one fetch.
 */
export function packageDir(name: string, options: PackageOptions = {}): Promise<string> {
  const pin = pinnedPackage(name, options.root);
  const installed = join(options.root ?? PROJECT_ROOT, 'node_modules', name);
  if (existsSync(join(installed, 'package.json')) && readJson(join(installed, 'package.json')).version === pin.version) return Promise.resolve(installed);
  const cached = join(options.cacheDir ?? defaultCacheDir(), `${name.replace('/', '+')}@${pin.version}`);
  if (existsSync(join(cached, '.complete'))) return Promise.resolve(cached);
  let pending = installing.get(cached);
  if (!pending) {
    pending = fetchPackage(pin, cached, options).finally(() => installing.delete(cached));
    installing.set(cached, pending);
  }
  return pending;
}

async function fetchPackage(pin: PinnedPackage, target: string, options: PackageOptions): Promise<string> {
  options.log?.(`installing ${pin.spec} with npm (first use of this build; kept in ${dirname(target)})`);
  mkdirSync(dirname(target), { recursive: true });
  const work = mkdtempSync(`${target}.partial-`);
  try {
    let packed: { filename: string }[];
    try {
      const { stdout } = await execa('npm', ['pack', pin.spec, '--json', '--pack-destination', work], {
        cwd: options.root ?? PROJECT_ROOT,
        timeout: 15 * 60_000,
      });
      packed = JSON.parse(stdout);
    } catch (error) {
      throw new UserError(
        `cannot fetch ${pin.spec} with npm: ${errorMessage(error).split('\n').slice(-3).join(' ').slice(0, 300)}; check that npm reaches its registry, or install it with \`npm install\``,
      );
    }
    const tarball = join(work, packed[0]!.filename);
    if (pin.integrity) {
      const [algorithm, expected] = pin.integrity.split(/-(.*)/s) as [string, string];
      const actual = await digest(tarball, algorithm);
      if (actual !== expected) throw new UserError(`${pin.spec} from npm does not match the lockfile's integrity (${algorithm}): refusing to use it`);
    }
    const unpacked = join(work, 'package');
    await unpack(tarball, unpacked);
    writeFileSync(join(unpacked, '.complete'), '');
    try {
      renameSync(unpacked, target);
    } catch (error) {
      // Another coop-bench process finished the same package first.
      if (!existsSync(join(target, '.complete'))) throw error;
    }
    return target;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function digest(path: string, algorithm: string): Promise<string> {
  const hash = createHash(algorithm);
  await pipeline(createReadStream(path), hash);
  return hash.digest('base64');
}

/** Unpacks an npm tarball's `package/` folder, keeping file modes; refuses paths that leave it. */
async function unpack(tarball: string, into: string): Promise<void> {
  const extract = tarExtract();
  extract.on('entry', (header, body, next) => {
    const relative = normalize(header.name.replace(/^package\//, ''));
    if (header.type !== 'file' || relative.startsWith('..') || relative.startsWith('/')) {
      body.resume();
      body.on('end', next);
      return;
    }
    const path = join(into, relative);
    mkdirSync(dirname(path), { recursive: true });
    pipeline(body, createWriteStream(path, { mode: header.mode ?? 0o644 })).then(() => next(), next);
  });
  await pipeline(createReadStream(tarball), createGunzip(), extract);
}
