// Git plumbing for the merge, run against a scratch area: a temporary index per tree and a
// temporary object directory that borrows the repository's objects as an alternate, so the
// user's repository is only read, never written. Patch content goes through stdin, never a shell.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { existsSync, statSync } from 'node:fs';
import { copyFile, mkdtemp, rm, mkdir, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
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
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_QUARANTINE_PATH',
];

/**
 * The environment git runs in: no variable pointing it elsewhere, and no system or user configuration
 * (upstream runs git in a fresh container where there is none); the repository's own applies.
 */
export function cleanGitEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !LOCATION_VARIABLES.includes(key) && !key.startsWith('GIT_CONFIG')) env[key] = value;
  }
  return { ...env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', ...extra };
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
  const child = fork(fileURLToPath(new URL('./git-spawner.mjs', import.meta.url)), [], {
    execArgv: [],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  child.on('message', (reply: SpawnerReply) => {
    const request = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (waiting.size === 0) child.channel?.unref();
    if (!request) return;
    if (reply.error) request.reject(new Error(oneLine(reply.error)));
    else
      request.resolve({
        exitCode: reply.exitCode,
        stdout: Buffer.from(reply.stdout.buffer, reply.stdout.byteOffset, reply.stdout.byteLength),
        stderr: reply.stderr,
      });
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

export interface GitCommand {
  args: string[];
  cwd: string;
  env: Record<string, string>;
  input?: string | Buffer;
}

/** Runs git (through the git-spawner process) with its input on stdin and its output as bytes. */
export function git(args: string[], options: Omit<GitCommand, 'args'>): Promise<GitOutput> {
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

/** An entry of a tree listing. */
export interface TreeEntry {
  path: string;
  mode: string;
  sha: string;
}

/** Sees every git command a merge runs, the files it copies, and its scratch folder before removal (the benchmark replays them). */
export interface GitTrace {
  command(command: GitCommand): void;
  copy?(from: string, to: string): void;
  scratch?(dir: string): Promise<void>;
}

export interface CommitObject {
  id: string;
  body: Buffer;
}

// Commits made for `git merge-tree` (it merges commits): a fixed identity and date, so the same
// trees always give the same commits.
const COMMIT_IDENTITY = 'coop-bench <merge@coop-bench.invalid> 1700000000 +0000';

/** A commit of `tree` with these parents, and its id, computed as git does (so a child can name it before it is written). */
export function commitObject(tree: string, parents: string[]): CommitObject {
  const body = Buffer.from(
    [`tree ${tree}`, ...parents.map((p) => `parent ${p}`), `author ${COMMIT_IDENTITY}`, `committer ${COMMIT_IDENTITY}`, '', 'coop-bench merge', ''].join('\n'),
  );
  // The repository's object format: SHA-1 ids have 40 digits, SHA-256 ids 64.
  const id = createHash(tree.length === 64 ? 'sha256' : 'sha1')
    .update(`commit ${body.length}\0`)
    .update(body)
    .digest('hex');
  return { id, body };
}

/** A scratch area over one repository; `dispose()` removes every temporary file. */
export class GitScratch {
  private count = 0;
  private readonly changeCache = new Map<string, Promise<Map<string, TreeChange>>>();

  private constructor(
    readonly gitDir: string,
    readonly dir: string,
    private readonly env: Record<string, string>,
    private readonly trace?: GitTrace,
  ) {}

  /**
   * A scratch area over the repository at `repoDir`, with the tree of `baseRev` and whether the
   * repository tracks executable bits (core.fileMode). Throws MergeSetupError naming what is wrong.
   */
  static async open(repoDir: string, baseRev: string, trace?: GitTrace): Promise<{ scratch: GitScratch; baseTree: string; fileMode: boolean }> {
    if (!existsSync(repoDir)) throw new MergeSetupError(`repository directory not found: ${oneLine(repoDir, 200)}`);
    // Git reads /dev/null as the empty user configuration (cleanGitEnv). Where a file has replaced the
    // device, every git call fails with "bad config line 1 in file /dev/null", which hides the fault.
    if (!statSync('/dev/null').isCharacterDevice()) {
      throw new MergeSetupError(
        '/dev/null is not a device on this machine (a file has replaced it); recreate it as root: rm /dev/null && mknod -m 666 /dev/null c 1 3',
      );
    }
    const inRepo = (args: string[]): Promise<GitOutput> => {
      const command = { args, cwd: repoDir, env: cleanGitEnv() };
      trace?.command(command);
      return git(args, command).catch((error: unknown) => {
        throw new MergeSetupError(`cannot use ${repoDir}: ${oneLine(String((error as Error).message))}`);
      });
    };
    const [probe, fileMode] = await Promise.all([
      inRepo(['rev-parse', '--absolute-git-dir', '--git-path', 'objects', '--verify', '--quiet', '--end-of-options', `${baseRev}^{tree}`]),
      inRepo(['config', '--type=bool', '--get', 'core.fileMode']),
    ]);
    const [gitDir, objects, baseTree] = probe.stdout.toString('utf8').trim().split('\n');
    if (!gitDir || !objects) throw new MergeSetupError(`${repoDir} is not a git repository (${oneLine(probe.stderr, 200)})`);
    if (probe.exitCode !== 0 || !baseTree) throw new MergeSetupError(`unknown base revision '${oneLine(baseRev, 100)}'`);
    const dir = await mkdtemp(path.join(tmpdir(), 'coop-bench-merge-'));
    await mkdir(path.join(dir, 'objects'));
    const env = cleanGitEnv({
      GIT_DIR: gitDir,
      GIT_OBJECT_DIRECTORY: path.join(dir, 'objects'),
      GIT_ALTERNATE_OBJECT_DIRECTORIES: path.resolve(repoDir, objects),
      // No index unless one is given: git must not read the repository's own (attributes fall back to it).
      GIT_INDEX_FILE: path.join(dir, 'no-index'),
    });
    // Unset, git's default: executable bits are tracked.
    return {
      scratch: new GitScratch(gitDir, dir, env, trace),
      baseTree,
      fileMode: fileMode.exitCode !== 0 || fileMode.stdout.toString('utf8').trim() === 'true',
    };
  }

  async dispose(): Promise<void> {
    await this.trace?.scratch?.(this.dir);
    await rm(this.dir, { recursive: true, force: true });
  }

  /** A new path inside the scratch folder. */
  newPath(prefix: string): string {
    return path.join(this.dir, `${prefix}-${this.count++}`);
  }

  /**
   * Runs git in the scratch area, with `index` as the index file when given, and `workTree` as the
   * work tree (where git reads .gitattributes) when given.
   */
  run(args: string[], options: { index?: string; input?: string | Buffer; workTree?: string } = {}): Promise<GitOutput> {
    const env = { ...this.env, ...(options.index ? { GIT_INDEX_FILE: options.index } : {}), ...(options.workTree ? { GIT_WORK_TREE: options.workTree } : {}) };
    const command = { args, cwd: options.workTree ?? this.dir, env, input: options.input };
    this.trace?.command(command);
    return git(args, command);
  }

  async runOk(args: string[], options: { index?: string; input?: string | Buffer; workTree?: string } = {}): Promise<Buffer> {
    const out = await this.run(args, options);
    if (out.exitCode !== 0) throw new Error(`git ${args[0]} failed: ${oneLine(out.stderr)}`);
    return out.stdout;
  }

  /** A fresh temporary index holding `tree`. */
  async indexOf(tree: string): Promise<string> {
    const index = this.newPath('index');
    await this.runOk(['read-tree', tree], { index });
    return index;
  }

  /** A copy of an index (cheaper than reading its tree again). */
  async copyIndex(index: string): Promise<string> {
    const copy = this.newPath('index');
    this.trace?.copy?.(index, copy);
    await copyFile(index, copy);
    return copy;
  }

  /** Applies a patch to the index; returns git's message when it does not apply. */
  async apply(index: string, patch: string): Promise<string | undefined> {
    const out = await this.run(['apply', '--cached', '--whitespace=nowarn', '-'], { index, input: patch });
    return out.exitCode === 0 ? undefined : out.stderr.trim() || `git apply exited with ${out.exitCode}`;
  }

  async writeTree(index: string): Promise<string> {
    return (await this.runOk(['write-tree'], { index })).toString('utf8').trim();
  }

  /** Writes commit objects (from commitObject) with one git command. */
  async writeCommits(commits: CommitObject[]): Promise<void> {
    if (commits.length === 0) return;
    const files = await Promise.all(
      commits.map(async ({ body }) => {
        const file = this.newPath('commit');
        await writeFile(file, body);
        return file;
      }),
    );
    await this.runOk(['hash-object', '-t', 'commit', '-w', '--stdin-paths'], { input: files.join('\n') + '\n' });
  }

  /** Paths that differ between two trees (memoized: trees are immutable). */
  changes(fromTree: string, toTree: string): Promise<Map<string, TreeChange>> {
    return this.changesFrom(fromTree, [toTree]).then(([changes]) => changes!);
  }

  /** The changes from one tree to each of several, with one `git diff-tree --stdin`. */
  changesFrom(fromTree: string, toTrees: string[]): Promise<Map<string, TreeChange>[]> {
    const key = (to: string) => `${fromTree}..${to}`;
    const missing = [...new Set(toTrees)].filter((to) => !this.changeCache.has(key(to)));
    if (missing.length > 0) {
      const diffed = this.runOk(['diff-tree', '-r', '-z', '--no-renames', '--stdin'], { input: missing.map((to) => `${fromTree} ${to}\n`).join('') }).then(
        parseDiffTrees,
      );
      missing.forEach((to, i) =>
        this.changeCache.set(
          key(to),
          diffed.then((all) => all[i] ?? new Map()),
        ),
      );
    }
    return Promise.all(toTrees.map((to) => this.changeCache.get(key(to))!));
  }

  /** The files of a tree (all, or those at `paths`). */
  async listTree(tree: string, paths: string[] = []): Promise<TreeEntry[]> {
    const pathspec = paths.length > 0 ? ['--', ...paths] : [];
    const raw = (await this.runOk(['--literal-pathspecs', 'ls-tree', '-r', '-z', '--full-tree', tree, ...pathspec])).toString('utf8');
    return raw
      .split('\0')
      .filter(Boolean)
      .map((line) => {
        const tab = line.indexOf('\t');
        const [mode, , sha] = line.slice(0, tab).split(' ') as [string, string, string];
        return { path: line.slice(tab + 1), mode, sha };
      });
  }

  /** Reads blobs, named by id or as `<tree>:<path>` (no line break), with one `git cat-file --batch`. */
  async readBlobs(names: string[]): Promise<Map<string, Buffer>> {
    const unique = [...new Set(names)];
    const blobs = new Map<string, Buffer>();
    if (unique.length === 0) return blobs;
    const out = await this.runOk(['cat-file', '--batch'], { input: unique.join('\n') + '\n' });
    let at = 0;
    for (const sha of unique) {
      const headerEnd = out.indexOf(0x0a, at);
      const [, type, size] = out.subarray(at, headerEnd).toString('utf8').split(' ');
      if (type !== 'blob') throw new Error(`object ${oneLine(sha, 200)} is not a blob`);
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
  async updateIndex(index: string, entries: TreeEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const input = entries
      .map((entry) => (entry.mode === ABSENT_MODE ? `0 ${'0'.repeat(entry.sha.length)}\t${entry.path}\0` : `${entry.mode} ${entry.sha}\t${entry.path}\0`))
      .join('');
    await this.runOk(['update-index', '-z', '--index-info'], { index, input });
  }

  /**
   * `git diff <from> <to>` as upstream writes the merged patch (renames detected, git's default
   * options), but with --binary, so that a binary file changes instead of reading "Binary files
   * differ". Format options are fixed so that the repository's configuration cannot change them;
   * attributes (diff drivers, binary) come from `workTree`, as they come from upstream's checkout.
   */
  async diffPatch(fromTree: string, toTree: string, workTree: string): Promise<string> {
    const out = await this.runOk(
      [
        'diff',
        '--binary',
        '--no-color',
        '--no-ext-diff',
        '--no-textconv',
        '-M',
        '--no-relative',
        '-U3',
        '--diff-algorithm=myers',
        '--indent-heuristic',
        '--src-prefix=a/',
        '--dst-prefix=b/',
        fromTree,
        toTree,
      ],
      { workTree },
    );
    return out.toString('utf8');
  }
}

/** `git diff-tree -r -z --stdin` output: per input pair a `<from> <to>\n` line, then `:<modes> <ids> <status>\0<path>\0` records. */
function parseDiffTrees(out: Buffer): Map<string, TreeChange>[] {
  const text = out.toString('utf8');
  const all: Map<string, TreeChange>[] = [];
  let at = 0;
  while (at < text.length) {
    if (text[at] !== ':') {
      at = text.indexOf('\n', at) + 1;
      all.push(new Map());
      continue;
    }
    const metaEnd = text.indexOf('\0', at);
    const pathEnd = text.indexOf('\0', metaEnd + 1);
    const [oldMode, newMode, oldSha, newSha] = text.slice(at + 1, metaEnd).split(' ') as [string, string, string, string];
    const file = text.slice(metaEnd + 1, pathEnd);
    all[all.length - 1]!.set(file, { path: file, oldMode, newMode, oldSha, newSha });
    at = pathEnd + 1;
  }
  return all;
}
