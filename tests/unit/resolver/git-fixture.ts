// Real git repositories for the resolver tests: a base commit, and patches made with `git diff`.
import { execa } from 'execa';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export type FileSpec = string | Buffer | null | { content: string | Buffer; executable?: boolean } | { symlinkTo: string };

export interface TestRepo {
  dir: string;
  base: string;
  /** A `git diff --binary` patch of these changes against the base (null deletes a file). */
  patch(changes: Record<string, FileSpec>): Promise<string>;
  /** Applies a patch to a copy of the base with plain `git apply`; returns the given files' contents. */
  applied(patch: string, files: string[]): Promise<Record<string, Buffer | null>>;
  git(...args: string[]): Promise<string>;
  dispose(): Promise<void>;
}

const IDENTITY = ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false'];

export async function makeRepo(files: Record<string, FileSpec>): Promise<TestRepo> {
  const dir = await mkdtemp(path.join(tmpdir(), 'resolver-test-repo-'));
  const git = async (...args: string[]): Promise<string> => (await execa('git', args, { cwd: dir, stripFinalNewline: false })).stdout;
  await git('init', '-q');
  await write(dir, files);
  await git('add', '-A');
  await git(...IDENTITY, 'commit', '-qm', 'base');
  const base = (await git('rev-parse', 'HEAD')).trim();
  const reset = async (): Promise<void> => {
    await git('reset', '-q', '--hard', base);
    await git('clean', '-fdxq');
  };
  return {
    dir,
    base,
    git,
    async patch(changes) {
      await write(dir, changes);
      await git('add', '-A');
      const patch = await git('diff', '--cached', '--binary', '--no-color');
      await reset();
      return patch;
    },
    async applied(patch, names) {
      const patchFile = path.join(dir, '.git', 'test-applied.patch');
      await writeFile(patchFile, patch);
      await git('apply', '--binary', patchFile);
      const out: Record<string, Buffer | null> = {};
      for (const name of names) out[name] = await readFile(path.join(dir, name)).catch(() => null);
      await reset();
      await rm(patchFile);
      return out;
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

async function write(dir: string, files: Record<string, FileSpec>): Promise<void> {
  for (const [name, spec] of Object.entries(files)) {
    const file = path.join(dir, name);
    await rm(file, { force: true, recursive: true });
    if (spec === null) continue;
    await mkdir(path.dirname(file), { recursive: true });
    if (typeof spec === 'object' && 'symlinkTo' in spec) {
      await symlink(spec.symlinkTo, file);
    } else if (typeof spec === 'object' && !Buffer.isBuffer(spec)) {
      await writeFile(file, spec.content);
      await chmod(file, spec.executable ? 0o755 : 0o644);
    } else {
      await writeFile(file, spec);
    }
  }
}

/** `git merge-file` run directly, as the paper does, outside any repository. */
export async function gitMergeFile(
  ours: string | Buffer,
  base: string | Buffer,
  theirs: string | Buffer,
  union = false,
): Promise<{ content: Buffer; exitCode: number }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'resolver-test-mf-'));
  try {
    await Promise.all([writeFile(path.join(dir, 'o'), ours), writeFile(path.join(dir, 'b'), base), writeFile(path.join(dir, 't'), theirs)]);
    const result = await execa(
      'git',
      ['merge-file', '-p', ...(union ? ['--union'] : []), '-L', 'patch_1', '-L', 'repo_state', '-L', 'patch_2', 'o', 'b', 't'],
      {
        cwd: dir,
        encoding: 'buffer',
        stripFinalNewline: false,
        reject: false,
      },
    );
    return { content: Buffer.from(result.stdout as Uint8Array), exitCode: result.exitCode ?? -1 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
