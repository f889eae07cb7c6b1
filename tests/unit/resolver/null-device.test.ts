// A machine where a regular file has replaced /dev/null: git, told to read it as the empty user
// configuration, would fail every merge with "bad config line 1 in file /dev/null".
import { afterAll, describe, expect, it, vi } from 'vitest';
import { mergePatches, MergeSetupError } from '../../../resolver/index.ts';
import { makeRepo, type TestRepo } from './git-fixture.ts';

vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  const statSync = ((file: string) => (file === '/dev/null' ? { isCharacterDevice: () => false } : fs.statSync(file))) as typeof fs.statSync;
  return { ...fs, statSync, default: { ...fs, statSync } };
});

describe('a merge on a machine whose /dev/null is a file', () => {
  const repos: TestRepo[] = [];
  afterAll(async () => {
    await Promise.all(repos.map((r) => r.dispose()));
  });

  it('fails with an error that names /dev/null and how to recreate it', async () => {
    const repo = await makeRepo({ 'a.txt': 'a\n' });
    repos.push(repo);
    const error = await mergePatches({ repoDir: repo.dir, baseRev: 'HEAD', patches: ['', ''] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MergeSetupError);
    expect((error as Error).message).toBe(
      '/dev/null is not a device on this machine (a file has replaced it); recreate it as root: rm /dev/null && mknod -m 666 /dev/null c 1 3',
    );
  });
});
