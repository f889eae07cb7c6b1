// Pools are untrusted: the files coop-bench reads are regular files of the pool folder,
// never reached through a symbolic link, each within its bound; the build context never leaves the
// pool. Each case is a copy of the shipped argkit pool, spoiled one way.
import { describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidPoolError, discoverPools, loadPool, readPoolFile, scanPools } from '../../../tasks/pools.ts';
import { contextEntries, contextHash } from '../../../harness/sandbox/image-name.ts';
import { SHIPPED_POOLS } from '../../../harness/paths.ts';

const argkit = join(SHIPPED_POOLS, 'argkit_task', 'task1');
const root = mkdtempSync(join(tmpdir(), 'pool-files-'));
/** A file outside every pool, as a host secret would be. */
const secret = join(root, 'id_rsa');
writeFileSync(secret, '-----BEGIN OPENSSH PRIVATE KEY----- canary');

let datasets = 0;
/** A dataset holding a copy of argkit changed by `spoil`; returns the pool folder. */
function spoiled(spoil: (dir: string) => void): string {
  const dir = join(root, `dataset${++datasets}`, 'argkit_task', 'task1');
  cpSync(argkit, dir, { recursive: true });
  spoil(dir);
  return dir;
}

function problemsOf(dir: string): string[] {
  try {
    loadPool(dir);
  } catch (error) {
    if (error instanceof InvalidPoolError) return error.problems;
    throw error;
  }
  return [];
}

describe('symbolic links', () => {
  it('refuses a feature.md that links to a file outside the pool, naming the link and its target', () => {
    const dir = spoiled((d) => {
      writeFileSync(join(d, 'feature1', 'feature.md'), '');
      cpSync(secret, join(d, '..', 'copy-not-a-link'));
    });
    const linked = spoiled((d) => {
      const md = join(d, 'feature1', 'feature.md');
      execFileSync('rm', [md]);
      symlinkSync(secret, md);
    });
    expect(problemsOf(dir)).toEqual([]);
    expect(problemsOf(linked)).toEqual([
      `feature1/feature.md is a symbolic link (to "${secret}"): coop-bench reads it itself, so it must be a real file (or folder) of the pool; replace the link by what it points to`,
    ]);
    expect(() => discoverPools(join(linked, '..', '..'))).toThrow(/^pool argkit_task\/task1: feature1\/feature\.md is a symbolic link/);
  });

  it('refuses a link even inside the pool for the files coop-bench reads, and a linked feature folder', () => {
    const dir = spoiled((d) => {
      execFileSync('rm', [join(d, 'feature2', 'feature.patch'), join(d, 'runner.sh')]);
      symlinkSync('../feature1/feature.patch', join(d, 'feature2', 'feature.patch'));
      symlinkSync('repo/package.json', join(d, 'runner.sh'));
      symlinkSync('feature1', join(d, 'feature7'));
    });
    expect(
      problemsOf(dir)
        .map((p) => p.split(' (')[0])
        .sort(),
    ).toEqual(['feature2/feature.patch is a symbolic link', 'feature7 is a symbolic link', 'runner.sh is a symbolic link']);
  });

  it('lets the build context link inside the pool, never out of it', () => {
    const dir = spoiled((d) => {
      symlinkSync('package.json', join(d, 'repo', 'inside'));
      symlinkSync('../Dockerfile', join(d, 'repo', 'also-inside'));
      symlinkSync('../../../../id_rsa', join(d, 'repo', 'climbs-out'));
      symlinkSync(secret, join(d, 'repo', 'absolute'));
    });
    expect(problemsOf(dir).sort()).toEqual([
      `repo/absolute is a symbolic link to "${secret}", outside the pool folder: a pool may link only to its own files; replace the link by the file itself`,
      'repo/climbs-out is a symbolic link to "../../../../id_rsa", outside the pool folder: a pool may link only to its own files; replace the link by the file itself',
    ]);
  });

  it('refuses pool folders that are links inside the dataset, but takes a root that is a link', () => {
    const real = spoiled(() => undefined);
    const dataset = join(root, 'linked-dataset');
    mkdirSync(join(dataset, 'argkit_task'), { recursive: true });
    symlinkSync(real, join(dataset, 'argkit_task', 'task1'));
    const scan = scanPools(dataset);
    expect(scan.pools).toEqual([]);
    expect(scan.invalid.map((e) => e.pool)).toEqual(['argkit_task/task1']);
    expect(scan.invalid.map((e) => e.problems[0])).toEqual([
      `${join(dataset, 'argkit_task', 'task1')} is a symbolic link to "${real}": pools are read only from real folders of the dataset; replace the link by the folder itself`,
    ]);
    const rootLink = join(root, 'root-link');
    symlinkSync(join(real, '..', '..'), rootLink);
    expect(discoverPools(rootLink).map((p) => p.features.length)).toEqual([6]);
  });
});

describe('names', () => {
  it('refuses a repository folder whose name would break a line, and shows it escaped', () => {
    const dir = join(root, 'names', 'evil\n_task', 'task1');
    cpSync(argkit, dir, { recursive: true });
    expect(() => loadPool(dir)).toThrow(
      /^pool "evil\\n_task"\/task1: its repository folder's name "evil\\n_task" holds control characters: rename the folder$/,
    );
  });
});

describe('special files', () => {
  it('refuses a FIFO (reading it would hang) and names it', () => {
    const dir = spoiled((d) => {
      execFileSync('rm', [join(d, 'feature1', 'feature.md')]);
      execFileSync('mkfifo', [join(d, 'feature1', 'feature.md'), join(d, 'repo', 'pipe')]);
    });
    expect(problemsOf(dir).sort()).toEqual([
      'feature1/feature.md is a FIFO, not a regular file: remove it from the pool folder',
      'repo/pipe is a FIFO, not a regular file: remove it from the pool folder',
    ]);
  });
});

describe('size bounds', () => {
  it('names each file over its bound, with its size and the bound, one line each', () => {
    const dir = spoiled((d) => {
      writeFileSync(join(d, 'feature1', 'feature.md'), 'x'.repeat(32 * 1024 + 1));
      // Sparse: the size is what counts, and nothing is read.
      truncateSync(join(d, 'feature2', 'feature.md'), 50 * 1024 * 1024);
      truncateSync(join(d, 'feature3', 'tests.patch'), 21 * 1024 * 1024);
      truncateSync(join(d, 'combined.patch'), 20 * 1024 * 1024 + 1);
      truncateSync(join(d, 'runner.sh'), 2 * 1024 * 1024);
      truncateSync(join(d, 'Dockerfile'), 1024 * 1024 + 512);
    });
    expect(problemsOf(dir).sort()).toEqual([
      'Dockerfile is 1 MiB, over the 1 MiB bound on a Dockerfile: shorten it',
      'combined.patch is 20 MiB, over the 20 MiB bound on a patch: shorten it',
      'feature1/feature.md is 32 KiB, over the 32 KiB bound on a feature description (the text sent to the model): shorten it',
      'feature2/feature.md is 50 MiB, over the 32 KiB bound on a feature description (the text sent to the model): shorten it',
      'feature3/tests.patch is 21 MiB, over the 20 MiB bound on a patch: shorten it',
      'runner.sh is 2 MiB, over the 1 MiB bound on a test runner: shorten it',
    ]);
  });

  it('keeps the real CooperBench samples and the shipped pools well within the bounds', () => {
    expect(scanPools(join(import.meta.dirname, '../../fixtures/cooperbench-dataset')).invalid).toEqual([]);
    expect(scanPools(SHIPPED_POOLS).invalid).toEqual([]);
  });

  it('reads a pool file as checked even if it changed since: no link, no more than its bound', () => {
    const dir = spoiled(() => undefined);
    const patch = join(dir, 'feature1', 'feature.patch');
    expect(readPoolFile(patch).toString()).toBe(readFileSync(patch, 'utf8'));
    execFileSync('rm', [patch]);
    symlinkSync(secret, patch);
    expect(() => readPoolFile(patch)).toThrow(/feature\.patch is a symbolic link: pool files are read only as regular files/);
    const md = join(dir, 'feature1', 'feature.md');
    truncateSync(md, 40 * 1024);
    expect(() => readPoolFile(md)).toThrow(/feature\.md is 40 KiB, over the 32 KiB bound/);
  });
});

describe('the Docker build context', () => {
  it("holds the pool's links as links and never reads through them", () => {
    const outside = join(root, 'outside.txt');
    writeFileSync(outside, 'one');
    const dir = spoiled((d) => {
      symlinkSync('package.json', join(d, 'repo', 'inside'));
      // loadPool refuses this one; the context must not follow it even so.
      symlinkSync(outside, join(d, 'repo', 'out'));
    });
    expect(contextEntries(dir).filter((p) => p.includes(`${join('repo', 'inside')}`) || p.endsWith(join('repo', 'out')))).toHaveLength(2);
    const before = contextHash(dir);
    writeFileSync(outside, 'two');
    expect(contextHash(dir)).toBe(before);
  });
});
