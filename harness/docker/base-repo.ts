// The base repository of a pool image, copied once to this machine (per image id, so per engine
// when each engine built its own image): merges and pool validation run real git here against it.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { PoolImage } from './images.ts';
import { createContainer, removeContainer, DEFAULT_LIMITS } from './sandbox.ts';
import { containerLabels } from './containers.ts';

export const REPO_PATH = '/workspace/repo';

export interface BaseRepo {
  dir: string;
  /** Commit id of HEAD in the image: what agents start from. */
  rev: string;
}

export function cacheRoot(): string {
  return process.env.COOP_BENCH_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'coop-bench');
}

const pending = new Map<string, Promise<BaseRepo>>();

export function baseRepo(image: PoolImage, run: string): Promise<BaseRepo> {
  let result = pending.get(image.id);
  if (!result) {
    result = extractBaseRepo(image, run);
    pending.set(image.id, result);
    result.catch(() => pending.delete(image.id));
  }
  return result;
}

async function extractBaseRepo(image: PoolImage, run: string): Promise<BaseRepo> {
  const dir = join(cacheRoot(), 'repos', image.id.replace(/^sha256:/, '').slice(0, 16));
  if (!existsSync(join(dir, '.git'))) {
    const staging = `${dir}.tmp-${process.pid}-${Date.now()}`;
    mkdirSync(staging, { recursive: true });
    const container = await createContainer(image.engine, { image: image.id, labels: containerLabels(run, 'extract'), limits: DEFAULT_LIMITS });
    try {
      const archive = await container.getArchive({ path: REPO_PATH });
      // The archive's top folder is `repo/`.
      const tar = execa('tar', ['-x', '--no-same-owner', '-C', staging]);
      archive.pipe(tar.stdin!);
      await tar;
      if (existsSync(join(dir, '.git'))) rmSync(staging, { recursive: true, force: true });
      else renameSync(join(staging, 'repo'), dir);
    } finally {
      await removeContainer(container);
      rmSync(staging, { recursive: true, force: true });
    }
  }
  const { stdout } = await execa('git', ['-c', 'safe.directory=*', '-C', dir, 'rev-parse', 'HEAD']);
  return { dir, rev: stdout.trim() };
}
