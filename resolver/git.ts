// Git plumbing for the merge, run against a scratch area: a temporary index per tree and a
// temporary object directory that borrows the repository's objects as an alternate, so the
// user's repository is only read, never written. Patch content goes through stdin, never a shell.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { oneLine } from './bounded-text.ts';

/** The caller's request cannot be served (not a repository, unknown revision); one line. */
export class MergeSetupError extends Error {
  override name = 'MergeSetupError';
}

const MAX_GIT_OUTPUT = 512 * 1024 * 1024;

export interface GitOutput {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
}

// Variables that would point git at another repository, index or object store than ours.
const LOCATION_VARIABLES = [
  'GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR', 'GIT_NAMESPACE', 'GIT_PREFIX', 'GIT_QUARANTINE_PATH',
];

export function cleanGitEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !LOCATION_VARIABLES.includes(key)) env[key] = value;
  }
  return { ...env, GIT_TERMINAL_PROMPT: '0', ...extra };
}

interface SpawnerReply {
  id: number;
  error?: string;
  exitCode: number;
  stdout: Uint8Array;
  stderr: string;
}

let spawner: ChildProcess | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve: (out: GitOutput) => void; reject: (error: Error) => void }>();

/** The git-spawner process, started at the first git command; its channel keeps us alive only while git runs. */
function gitSpawner(): ChildProcess {
  if (spawner) return spawner;
  const child = fork(fileURLToPath(new URL('./git-spawner.mjs', import.meta.url)), [], { execArgv: [], serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  child.on('message', (reply: SpawnerReply) => {
    const request = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (waiting.size === 0) child.channel?.unref();
    if (!request) return;
    if (reply.error) request.reject(new Error(oneLine(reply.error)));
    else request.resolve({ exitCode: reply.exitCode, stdout: Buffer.from(reply.stdout.buffer, reply.stdout.byteOffset, reply.stdout.byteLength), stderr: reply.stderr });
  });
  child.on('exit', (code, signal) => {
    spawner = undefined;
    for (const request of waiting.values()) request.reject(new Error(`cannot run git: the git-spawner process exited (${signal ?? code})`));
    waiting.clear();
  });
  child.unref();
  spawner = child;
  return child;
}

/** Runs git (through the git-spawner process) with its input on stdin and its output as bytes. */
export function git(
  args: string[],
  options: { cwd: string; env: Record<string, string>; input?: string | Buffer },
): Promise<GitOutput> {
  return new Promise((resolve, reject) => {
    const child = gitSpawner();
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    child.channel?.ref();
    child.send({ id, args, cwd: options.cwd, env: options.env, input: options.input ?? '', maxOutput: MAX_GIT_OUTPUT });
  });
}

/** One changed path between two trees, from `git diff-tree -r --raw`. Mode '000000' = absent. */
export interface TreeChange {
  path: string;
  oldMode: string;
  newMode: string;
  oldSha: string;
  newSha: string;
}

export const ABSENT_MODE = '000000';

/** A scratch area over one repository; `dispose()` removes every temporary file. */
export class GitScratch {
  private indexCount = 0;
  private readonly changeCache = new Map<string, Promise<Map<string, TreeChange>>>();

  private constructor(
    readonly gitDir: string,
    readonly dir: string,
    private readonly env: Record<string, string>,
  ) {}

  static async open(repoDir: string): Promise<GitScratch> {
    if (!existsSync(repoDir)) throw new MergeSetupError(`repository directory not found: ${oneLine(repoDir, 200)}`);
    const probe = await git(['rev-parse', '--absolute-git-dir', '--git-path', 'objects'], {
      cwd: repoDir,
      env: cleanGitEnv(),
    }).catch((error: unknown) => {
      throw new MergeSetupError(`cannot use ${repoDir}: ${oneLine(String((error as Error).message))}`);
    });
    if (probe.exitCode !== 0) {
      throw new MergeSetupError(`${repoDir} is not a git repository (${oneLine(probe.stderr, 200)})`);
    }
    const [gitDir, objects] = probe.stdout.toString('utf8').trim().split('\n') as [string, string];
    const dir = await mkdtemp(path.join(tmpdir(), 'coop-bench-merge-'));
    await mkdir(path.join(dir, 'objects'));
    const env = cleanGitEnv({
      GIT_DIR: gitDir,
      GIT_OBJECT_DIRECTORY: path.join(dir, 'objects'),
      GIT_ALTERNATE_OBJECT_DIRECTORIES: path.resolve(repoDir, objects),
    });
    return new GitScratch(gitDir, dir, env);
  }

  async dispose(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Runs git in the scratch area, with `index` as the index file when given. */
  run(args: string[], options: { index?: string; input?: string | Buffer } = {}): Promise<GitOutput> {
    const env = options.index ? { ...this.env, GIT_INDEX_FILE: options.index } : this.env;
    return git(args, { cwd: this.dir, env, input: options.input });
  }

  async runOk(args: string[], options: { index?: string; input?: string | Buffer } = {}): Promise<Buffer> {
    const out = await this.run(args, options);
    if (out.exitCode !== 0) throw new Error(`git ${args[0]} failed: ${oneLine(out.stderr)}`);
    return out.stdout;
  }

  /** The tree of a revision, or a MergeSetupError naming it. */
  async resolveTree(rev: string): Promise<string> {
    const out = await this.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{tree}`]);
    if (out.exitCode !== 0) throw new MergeSetupError(`unknown base revision '${oneLine(rev, 100)}'`);
    return out.stdout.toString('utf8').trim();
  }

  /** A fresh temporary index holding `tree`. */
  async indexOf(tree: string): Promise<string> {
    const index = path.join(this.dir, `index-${this.indexCount++}`);
    await this.runOk(['read-tree', tree], { index });
    return index;
  }

  /** Applies a patch to the index; returns git's message when it does not apply. */
  async apply(index: string, patch: string): Promise<string | undefined> {
    const out = await this.run(['apply', '--cached', '--whitespace=nowarn', '-'], { index, input: patch });
    return out.exitCode === 0 ? undefined : out.stderr.trim() || `git apply exited with ${out.exitCode}`;
  }

  async writeTree(index: string): Promise<string> {
    return (await this.runOk(['write-tree'], { index })).toString('utf8').trim();
  }

  /** Paths that differ between two trees (memoized: trees are immutable). */
  changes(fromTree: string, toTree: string): Promise<Map<string, TreeChange>> {
    const key = `${fromTree}..${toTree}`;
    if (!this.changeCache.has(key)) this.changeCache.set(key, this.diffTrees(fromTree, toTree));
    return this.changeCache.get(key)!;
  }

  private async diffTrees(fromTree: string, toTree: string): Promise<Map<string, TreeChange>> {
    const raw = await this.runOk(['diff-tree', '-r', '-z', '--no-renames', fromTree, toTree]);
    const fields = raw.toString('utf8').split('\0');
    const changes = new Map<string, TreeChange>();
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const [oldMode, newMode, oldSha, newSha] = fields[i]!.slice(1).split(' ') as [string, string, string, string];
      const file = fields[i + 1]!;
      changes.set(file, { path: file, oldMode, newMode, oldSha, newSha });
    }
    return changes;
  }

  /** Reads blobs with one `git cat-file --batch`. */
  async readBlobs(shas: string[]): Promise<Map<string, Buffer>> {
    const unique = [...new Set(shas)];
    const blobs = new Map<string, Buffer>();
    if (unique.length === 0) return blobs;
    const out = await this.runOk(['cat-file', '--batch'], { input: unique.join('\n') + '\n' });
    let at = 0;
    for (const sha of unique) {
      const headerEnd = out.indexOf(0x0a, at);
      const [, type, size] = out.subarray(at, headerEnd).toString('utf8').split(' ');
      if (type !== 'blob') throw new Error(`object ${sha} is not a blob`);
      const start = headerEnd + 1;
      blobs.set(sha, out.subarray(start, start + Number(size)));
      at = start + Number(size) + 1;
    }
    return blobs;
  }

  /** Writes one blob into the scratch object directory. */
  async writeBlob(content: Buffer): Promise<string> {
    return (await this.runOk(['hash-object', '-w', '--stdin'], { input: content })).toString('utf8').trim();
  }

  /** Sets index entries: mode '000000' removes the path. */
  async updateIndex(index: string, entries: { path: string; mode: string; sha: string }[]): Promise<void> {
    if (entries.length === 0) return;
    const input = entries
      .map((entry) => entry.mode === ABSENT_MODE ? `0 ${'0'.repeat(entry.sha.length)}\t${entry.path}\0` : `${entry.mode} ${entry.sha}\t${entry.path}\0`)
      .join('');
    await this.runOk(['update-index', '-z', '--index-info'], { index, input });
  }

  /** `git diff --binary` between two trees, with options fixed so user configuration cannot change it. */
  async diffPatch(fromTree: string, toTree: string): Promise<string> {
    const out = await this.runOk([
      'diff', '--binary', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--no-relative',
      '-U3', '--src-prefix=a/', '--dst-prefix=b/', fromTree, toTree,
    ]);
    return out.toString('utf8');
  }
}
