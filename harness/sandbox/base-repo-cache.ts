// Base repositories copied to this machine once per image id (merges and pool validation run real
// git here against them), whichever backend copied them.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { BaseRepo } from './types.ts';

export function cacheRoot(): string {
  return process.env.COOP_BENCH_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'coop-bench');
}

const pending = new Map<string, Promise<BaseRepo>>();

/** The folder an image's repository is cached in: by the digest in its id. */
export function baseRepoDir(imageId: string): string {
  const digest = imageId.includes('sha256:') ? imageId.slice(imageId.lastIndexOf('sha256:') + 'sha256:'.length) : imageId.replace(/[^A-Za-z0-9]/g, '-');
  return join(cacheRoot(), 'repos', digest.slice(0, 16));
}

/**
 * The image's repository, extracted once: `extract` writes the image's /workspace/repo as
 * `<staging>/repo`; concurrent callers share one extraction, and a failed one is tried again next time.
 */
export function cachedBaseRepo(imageId: string, extract: (staging: string) => Promise<void>): Promise<BaseRepo> {
  let result = pending.get(imageId);
  if (!result) {
    result = extractOnce(baseRepoDir(imageId), extract);
    pending.set(imageId, result);
    result.catch(() => pending.delete(imageId));
  }
  return result;
}

async function extractOnce(dir: string, extract: (staging: string) => Promise<void>): Promise<BaseRepo> {
  if (!existsSync(join(dir, '.git'))) {
    const staging = `${dir}.tmp-${process.pid}-${Date.now()}`;
    mkdirSync(staging, { recursive: true });
    try {
      await extract(staging);
      // Another process may have finished first: its copy is as good.
      if (!existsSync(join(dir, '.git'))) renameSync(join(staging, 'repo'), dir);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  // Loaded here, beside the agents' start, rather than on the way to it.
  const { execa } = await import('execa');
  const { stdout } = await execa('git', ['-c', 'safe.directory=*', '-C', dir, 'rev-parse', 'HEAD']);
  return { dir, rev: stdout.trim() };
}
