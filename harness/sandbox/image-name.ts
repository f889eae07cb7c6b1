// The name coop-bench gives a pool's image, whatever builds it: the pool's repository and task, and
// the content hash of its build context (so an unchanged pool is never rebuilt, and a changed one
// never runs an old image).
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Pool } from '../../tasks/types.ts';

/**
 * The build context: regular files, and symbolic links as links (tar never follows them, so nothing
 * outside the pool folder is read or sent; loadPool refuses links leading out of it anyway).
 */
export function contextEntries(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? contextEntries(path) : entry.isFile() || entry.isSymbolicLink() ? [path] : [];
  });
}

/** Hash of every entry of the build context, with its path and executable bit (a link: its target). */
export function contextHash(dir: string): string {
  const hash = createHash('sha256');
  for (const path of contextEntries(dir).sort()) {
    hash.update(relative(dir, path));
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) {
      hash.update('l');
      hash.update(readlinkSync(path));
    } else {
      hash.update(stat.mode & 0o111 ? 'x' : '-');
      hash.update(readFileSync(path));
    }
  }
  return hash.digest('hex').slice(0, 12);
}

export function builtImageName(pool: Pool): string {
  return `coop-bench/${pool.repo.toLowerCase().replace(/[^a-z0-9_.-]/g, '-')}:task${pool.taskId}-${contextHash(pool.dir)}`;
}

/** The name `coop-bench images push --registry R` gives a pool's built image in R. */
export function pushedImageName(pool: Pool, registry: string): string {
  return `${registry.replace(/\/+$/, '')}/${builtImageName(pool)}`;
}
