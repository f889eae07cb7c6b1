// The base repository of a pool image, copied once to the host: merges and pool validation run
// real git on the host against it.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { docker } from './engine.ts';
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

export function baseRepo(image: string, run: string): Promise<BaseRepo> {
  let result = pending.get(image);
  if (!result) {
    result = extractBaseRepo(image, run);
    pending.set(image, result);
    result.catch(() => pending.delete(image));
  }
  return result;
}

async function extractBaseRepo(image: string, run: string): Promise<BaseRepo> {
  const imageId = (await docker().getImage(image).inspect()).Id.replace(/^sha256:/, '').slice(0, 16);
  const dir = join(cacheRoot(), 'repos', imageId);
  if (!existsSync(join(dir, '.git'))) {
    const staging = `${dir}.tmp-${process.pid}-${Date.now()}`;
    mkdirSync(staging, { recursive: true });
    const container = await createContainer({ image, labels: containerLabels(run, 'extract'), limits: DEFAULT_LIMITS });
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
