// Agent CLI builds pinned as optional dependencies: read from package.json and the lockfile, and
// fetched with the machine's own npm on first use (a small real package stands in for a CLI build).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageDir, pinnedPackage } from '../../../../../harness/agents/cli/binaries.ts';
import { AGENT_CLIS } from '../../../../../harness/agents/cli/index.ts';

const TINY = {
  name: 'is-number',
  version: '7.0.0',
  integrity: 'sha512-41Cifkg6e8TylSpdtTpeLVMqvSBEVzTttHvERD741+pnZ8ANv0004MRL43QKPDlK9cGvNp6NZWZUBlbGXYxxng==',
};
let root: string;

function project(range: string, integrity?: string): void {
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'p', optionalDependencies: { [TINY.name]: range } }));
  if (integrity)
    writeFileSync(join(root, 'package-lock.json'), JSON.stringify({ packages: { [`node_modules/${TINY.name}`]: { version: TINY.version, integrity } } }));
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'coop-bench-bin-'));
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('pinned CLI builds', () => {
  it('every build a CLI can ask for is an exact-pinned optional dependency of coop-bench, with its integrity locked', () => {
    for (const cli of AGENT_CLIS) {
      for (const platform of [
        { arch: 'x64', libc: 'glibc' },
        { arch: 'x64', libc: 'musl' },
        { arch: 'arm64', libc: 'glibc' },
        { arch: 'arm64', libc: 'musl' },
      ] as const) {
        const pin = pinnedPackage(cli.build(platform).packageName);
        expect(pin.version, pin.name).toMatch(/^\d+\.\d+\.\d+/);
        expect(pin.integrity, pin.name).toMatch(/^sha512-/);
        expect(cli.title).toContain(pin.version.replace(/-linux-.*/, ''));
      }
    }
  });

  it('reads aliases (`npm:<package>@<version>`) and refuses ranges', () => {
    project('npm:is-number@7.0.0');
    expect(pinnedPackage(TINY.name, root)).toEqual({ name: TINY.name, spec: 'is-number@7.0.0', version: '7.0.0', integrity: undefined });
    project('^7.0.0');
    expect(() => pinnedPackage(TINY.name, root)).toThrow(/exact version/);
  });
});

describe('fetching a build on first use', () => {
  it('fetches it once with npm into the cache, checked against the lockfile, with a progress line', async () => {
    project(TINY.version, TINY.integrity);
    const cacheDir = join(root, 'cache');
    const lines: string[] = [];
    const [dir, again] = await Promise.all([
      packageDir(TINY.name, { root, cacheDir, log: (l) => lines.push(l) }),
      packageDir(TINY.name, { root, cacheDir, log: (l) => lines.push(l) }),
    ]);
    expect(again).toBe(dir);
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version).toBe('7.0.0');
    expect(lines).toEqual([expect.stringMatching(/^installing is-number@7\.0\.0 with npm \(first use/)]);
    expect(await packageDir(TINY.name, { root, cacheDir, log: (l) => lines.push(l) })).toBe(dir);
    expect(lines).toHaveLength(1);
  });

  it('refuses a package that does not match the lockfile, and keeps nothing of it', async () => {
    project(TINY.version, `sha512-${Buffer.alloc(64).toString('base64')}`);
    const cacheDir = join(root, 'cache');
    await expect(packageDir(TINY.name, { root, cacheDir })).rejects.toThrow(/does not match the lockfile's integrity/);
    expect(readdirSync(cacheDir)).toEqual([]);
  });
});
