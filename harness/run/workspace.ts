// The agent's repository inside its container: a private copy of the base's git data is kept
// outside the repository so the final patch is right whatever the agent does to .git or its branch.
import type { AgentSandbox, Sandbox } from '../sandbox/types.ts';
import { WORKSPACE as REPO_PATH } from '../../tasks/prompts.ts';

const BASE_GIT = '/var/lib/coop-bench/base.git';
const DIFF_INDEX = '/var/lib/coop-bench/diff.index';
/** Patches larger than this are an agent error, not something to merge. */
export const MAX_PATCH_BYTES = 20 * 1024 * 1024;
const DIFF_TIMEOUT_MS = 300_000;
/** The diff's exit status when the files a patch adds or changes are over MAX_PATCH_BYTES. */
const OVERSIZED = 93;

/**
 * Records the base commit and copies the git data away from the agent's reach. The objects are
 * hard-linked (a repository's bulk; git never changes an object file, it writes new ones) and made
 * root's, so an agent of another user may replace them but not change what the base copy holds;
 * the rest (config, refs, logs, which git rewrites or appends to) is copied.
 */
export async function snapshotBase(sandbox: AgentSandbox): Promise<string> {
  const script = `set -e
cd ${REPO_PATH}
git -c safe.directory='*' rev-parse HEAD
mkdir -p ${BASE_GIT}
for entry in .git/* .git/.[!.]*; do
  [ -e "$entry" ] || continue
  if [ "$entry" = .git/objects ]; then cp -al "$entry" ${BASE_GIT}/ 2>/dev/null || cp -a "$entry" ${BASE_GIT}/; else cp -a "$entry" ${BASE_GIT}/; fi
done
[ "$(id -u)" != 0 ] || chown -R 0:0 ${BASE_GIT}`;
  const result = await sandbox.exec(['sh', '-c', script], { privileged: true, timeoutMs: 300_000 });
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

/**
 * `git diff` of the working tree (new files included) against the base commit, taken once the
 * agent's processes are stopped (AgentSandbox.stopProcesses), so that none of them can change the
 * repository while it is read nor forge what the harness reads. The limit applies to the real size
 * of every file the patch adds or changes (a 150 MB file of zeros compresses to a small binary
 * patch), and to the patch itself.
 */
export async function diffAgainstBase(sandbox: AgentSandbox, base: string): Promise<string> {
  const unstopped = await sandbox.stopProcesses?.();
  if (unstopped) throw new PatchError(`the agent's processes could not be stopped before the patch was taken (${unstopped}): no patch`);
  // `--raw` lines are ":<old mode> <new mode> <old blob> <new blob> <status>\t<path>"; a gitlink's
  // commit is not a blob of this repository and has no size here.
  const script = `set -e
git read-tree ${base}
git add -A
size=$(git diff --cached --no-renames --diff-filter=AMT --raw --no-abbrev ${base} | cut -d' ' -f4 | git cat-file --batch-check='%(objecttype) %(objectsize)' |
  { total=0; while read -r type bytes; do [ "$type" != blob ] || total=$((total + bytes)); done; echo "$total"; })
if [ "$size" -gt ${MAX_PATCH_BYTES} ]; then echo "$size"; exit ${OVERSIZED}; fi
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
    privileged: true,
  });
  const tooLarge = `the patch is larger than ${MAX_PATCH_BYTES / 1024 / 1024} MiB`;
  if (result.exitCode === OVERSIZED && /^\d+\s*$/.test(result.stdout)) {
    throw new PatchError(`${tooLarge}: the files it adds or changes hold ${(Number(result.stdout) / 1024 / 1024).toFixed(1)} MiB; dropped`);
  }
  if (result.truncated) throw new PatchError(`${tooLarge}: dropped`);
  if (result.timedOut) throw new PatchError(`git diff against the base was killed (over ${DIFF_TIMEOUT_MS / 60_000} minutes, or out of memory): no patch`);
  if (result.exitCode !== 0) throw new PatchError(`git diff against the base failed: ${(result.stderr || result.stdout).trim().slice(0, 300)}`);
  return result.stdout;
}

/** Bounds of what a partner may read of an agent's work at once (--visibility). */
const PEEK_BYTES = 64 * 1024;
const PEEK_TIMEOUT_MS = 60_000;

/** Output for a partner: the head of a long answer, and a line that says what was cut. */
function peeked(result: { stdout: string; truncated: boolean }): string {
  if (!result.truncated && Buffer.byteLength(result.stdout) <= PEEK_BYTES) return result.stdout;
  return `${Buffer.from(result.stdout).subarray(0, PEEK_BYTES).toString()}\n[... cut at ${PEEK_BYTES / 1024} KiB ...]`;
}

/**
 * The agent's changes as they are now, for a partner to read (--visibility diff): like the final
 * patch, against the base's private git data, through an index of its own so that no read
 * disturbs another. The agent's processes keep running: it is a snapshot, not the patch.
 */
export async function liveDiff(sandbox: Sandbox, base: string, signal?: AbortSignal): Promise<string> {
  const script = `set -e
export GIT_INDEX_FILE=$(mktemp /tmp/coop-bench-peek.XXXXXX)
trap 'rm -f "$GIT_INDEX_FILE"' EXIT
git read-tree ${base}
git add -A
git diff --cached ${base}`;
  const result = await sandbox.exec(['sh', '-c', script], {
    cwd: REPO_PATH,
    env: { GIT_DIR: BASE_GIT, GIT_WORK_TREE: REPO_PATH, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: '*' },
    timeoutMs: PEEK_TIMEOUT_MS,
    maxOutputBytes: PEEK_BYTES,
    signal,
    // The base snapshot is root's (an agent cannot rewrite it), and `git add` writes objects into it.
    privileged: true,
  });
  if (result.exitCode !== 0) throw new Error(`git diff failed in the partner's repository: ${(result.stderr || result.stdout).trim().slice(0, 300)}`);
  return peeked(result);
}

/**
 * A file of the agent's working tree (its text) or a folder (its entries), for a partner to read
 * (--visibility files). `path` comes from the partner's model: it is resolved in the container and
 * refused unless it stays inside the repository (symbolic links included).
 */
export async function peekFile(sandbox: Sandbox, path: string, signal?: AbortSignal): Promise<string> {
  const script = `p=$(realpath -e -- "$1" 2>/dev/null) || { echo "no such file or folder: $1"; exit 3; }
case "$p" in ${REPO_PATH}|${REPO_PATH}/*) ;; *) echo "$1 is outside the repository: give a path relative to its root"; exit 3;; esac
if [ -d "$p" ]; then ls -1Ap -- "$p"; elif [ -f "$p" ]; then cat -- "$p"; else echo "$1 is neither a file nor a folder"; exit 3; fi`;
  const result = await sandbox.exec(['sh', '-c', script, 'sh', path], { cwd: REPO_PATH, timeoutMs: PEEK_TIMEOUT_MS, maxOutputBytes: PEEK_BYTES, signal });
  if (result.exitCode === 3) throw new Error(result.stdout.trim());
  if (result.exitCode !== 0) throw new Error(`reading ${path} failed: ${(result.stderr || result.stdout).trim().slice(0, 300)}`);
  return peeked(result);
}
