// `git merge-file` on three versions of one file, exactly as the paper runs it:
//   git merge-file -p -L patch_1 -L repo_state -L patch_2 <ours> <base> <theirs>
// It runs in a scratch directory outside any repository (where git reads no repository config), and
// the conflict style is pinned to the classic two-sided markers anyway.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cleanGitEnv, git } from './git.ts';
import { oneLine } from './bounded-text.ts';

export interface MergeLabels {
  ours: string;
  base: string;
  theirs: string;
}

export const PAPER_LABELS: MergeLabels = { ours: 'patch_1', base: 'repo_state', theirs: 'patch_2' };

export interface MergeFileResult {
  content: Buffer;
  /** Conflict count as git reports it (its exit code, capped at 127 by git). */
  conflicts: number;
}

/** The argument list, shared with the benchmark's bare run so both do the same work. */
export function mergeFileArgs(labels: MergeLabels, files: [string, string, string], union = false): string[] {
  return [
    '-c', 'merge.conflictStyle=merge',
    'merge-file', '-p', ...(union ? ['--union'] : []),
    '-L', labels.ours, '-L', labels.base, '-L', labels.theirs,
    ...files,
  ];
}

/**
 * Merges in `workDir` (a scratch directory that is not inside a repository).
 * Throws when git refuses (e.g. binary input) with its message, bounded.
 */
export async function mergeFile(
  workDir: string,
  versions: { ours: Buffer; base: Buffer; theirs: Buffer },
  labels: MergeLabels,
  union = false,
): Promise<MergeFileResult> {
  const files: [string, string, string] = [
    path.join(workDir, 'ours'),
    path.join(workDir, 'base'),
    path.join(workDir, 'theirs'),
  ];
  await Promise.all([
    writeFile(files[0], versions.ours),
    writeFile(files[1], versions.base),
    writeFile(files[2], versions.theirs),
  ]);
  const out = await git(mergeFileArgs(labels, files, union), { cwd: workDir, env: cleanGitEnv() });
  if (out.exitCode < 0 || out.exitCode > 127) {
    throw new Error(`git merge-file failed: ${oneLine(out.stderr, 200) || `exit ${out.exitCode}`}`);
  }
  return { content: out.stdout, conflicts: out.exitCode };
}

/** Git's own heuristic: a NUL byte in the first 8000 bytes makes a file binary. */
export function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}
