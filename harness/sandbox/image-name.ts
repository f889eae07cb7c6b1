// The name coop-bench gives a pool's image, whatever builds it: the pool's repository and task, and
// the content hash of its build context (so an unchanged pool is never rebuilt, and a changed one
// never runs an old image).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Pool } from '../../tasks/types.ts';

export function filesUnder(dir: string): string[] {
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

/** The name `coop-bench images push --registry R` gives a pool's built image in R. */
export function pushedImageName(pool: Pool, registry: string): string {
  return `${registry.replace(/\/+$/, '')}/${builtImageName(pool)}`;
}
