// The agent's repository inside its container: a private copy of the base's git data is kept
// outside the repository so the final patch is right whatever the agent does to .git or its branch.
import type { Sandbox } from '../sandbox/types.ts';
import { WORKSPACE as REPO_PATH } from '../../tasks/prompts.ts';

const BASE_GIT = '/var/lib/coop-bench/base.git';
const DIFF_INDEX = '/var/lib/coop-bench/diff.index';
/** Patches larger than this are an agent error, not something to merge. */
export const MAX_PATCH_BYTES = 20 * 1024 * 1024;
const DIFF_TIMEOUT_MS = 300_000;

/** Records the base commit and hard-links the git data away from the agent's reach. */
export async function snapshotBase(sandbox: Sandbox): Promise<string> {
  const script = `set -e
cd ${REPO_PATH}
git -c safe.directory='*' rev-parse HEAD
mkdir -p /var/lib/coop-bench
cp -al .git ${BASE_GIT} 2>/dev/null || cp -a .git ${BASE_GIT}`;
  const result = await sandbox.exec(['sh', '-c', script], { timeoutMs: 300_000 });
  if (result.exitCode !== 0) throw new Error(`cannot read the base commit of ${REPO_PATH}: ${result.stderr.trim().slice(0, 300)}`);
  return result.stdout.trim();
}

/**
 * The agent's repository yields no patch (too large, too slow to diff, git made unusable): the
 * agent's doing, so it is the agent's error and its patch is empty, not a harness failure.
 */
export class PatchError extends Error {
  override name = 'PatchError';
}

/** `git diff` of the working tree (new files included) against the base commit. */
export async function diffAgainstBase(sandbox: Sandbox, base: string): Promise<string> {
  const script = `set -e
git read-tree ${base}
git add -A
git diff --cached --binary ${base}`;
  const result = await sandbox.exec(['sh', '-c', script], {
    cwd: REPO_PATH,
    env: {
      GIT_DIR: BASE_GIT,
      GIT_WORK_TREE: REPO_PATH,
      GIT_INDEX_FILE: DIFF_INDEX,
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'safe.directory',
      GIT_CONFIG_VALUE_0: '*',
    },
    timeoutMs: DIFF_TIMEOUT_MS,
    maxOutputBytes: MAX_PATCH_BYTES,
  });
  if (result.truncated) throw new PatchError(`the patch is larger than ${MAX_PATCH_BYTES / 1024 / 1024} MiB: dropped`);
  if (result.timedOut) throw new PatchError(`git diff against the base was killed (over ${DIFF_TIMEOUT_MS / 60_000} minutes, or out of memory): no patch`);
  if (result.exitCode !== 0) throw new PatchError(`git diff against the base failed: ${(result.stderr || result.stdout).trim().slice(0, 300)}`);
  return result.stdout;
}
