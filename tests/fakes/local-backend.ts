// A sandbox backend without Docker, for the core pipeline's unit tests: a sandbox is a folder of
// this machine standing in for the container's filesystem (its /workspace/repo, /tmp, /patches,
// /var/lib/coop-bench), commands run as local processes under the same bounded-run discipline, and
// a pool's "image" is its repo/ folder committed as the shipped pools' Dockerfiles do. Absolute
// sandbox paths in a command's arguments, its environment and the pool's runner.sh are rewritten to
// the sandbox's folder. It isolates nothing: it runs only the harness's own agents (oracle, noop)
// and pools whose tests run on this machine (argkit: node).
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, chmodSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import type { Pool } from '../../tasks/types.ts';
import { cachedBaseRepo } from '../../harness/sandbox/base-repo-cache.ts';
import { boundedCommand, DEFAULT_MAX_OUTPUT_BYTES, EXEC_GRACE_MS, limitSeconds } from '../../harness/sandbox/bounded-run.ts';
import { SandboxStoppedError } from '../../harness/sandbox/errors.ts';
import { builtImageName, contextHash } from '../../harness/sandbox/image-name.ts';
import { BoundedSink } from '../../harness/sandbox/output.ts';
import type {
  AgentSandbox,
  BackendSlot,
  BaseRepo,
  ExecOptions,
  ExecResult,
  HostFile,
  PendingTestRun,
  SandboxBackend,
  SandboxImage,
  TestRunSpec,
} from '../../harness/sandbox/types.ts';

const WORKSPACE = '/workspace/repo';
/** The sandbox paths the harness and the pools use; everything else is the host's (sh, git, node). */
const SANDBOX_PATHS = /(^|[\s'"=:;(])(\/workspace|\/var\/lib\/coop-bench|\/patches|\/tmp|\/usr\/local\/bin\/runner\.sh)(?=[/\s'";)]|$)/g;

export class LocalSandboxStopped extends SandboxStoppedError {}

/** One sandbox: a folder that stands for the container's filesystem. */
class LocalSandbox implements AgentSandbox {
  private removed = false;

  constructor(
    readonly root: string,
    private readonly onRemove: (sandbox: LocalSandbox) => void,
  ) {}

  get id(): string {
    return this.root;
  }

  /** A sandbox path (or text holding some) as the host sees it. */
  host(text: string): string {
    return text.replace(SANDBOX_PATHS, (_, before: string, path: string) => `${before}${this.root}${path}`);
  }

  async exec(cmd: string[], options: ExecOptions = {}): Promise<ExecResult> {
    if (this.removed) throw new LocalSandboxStopped('sandbox removed', 'removed');
    const seconds = limitSeconds(options.timeoutMs);
    const max = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    options.signal?.throwIfAborted();
    const env = Object.fromEntries(Object.entries(options.env ?? {}).map(([key, value]) => [key, this.host(value)]));
    const child = spawn(
      boundedCommand(cmd, seconds)[0],
      boundedCommand(
        cmd.map((arg) => this.host(arg)),
        seconds,
      ).slice(1),
      {
        cwd: this.host(options.cwd ?? WORKSPACE),
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(this.root, 'root'), LANG: 'C.UTF-8', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    );
    const stdout = new BoundedSink(max);
    const stderr = new BoundedSink(max);
    child.stdout.on('data', (chunk: Buffer) => options.onStdout?.(chunk));
    child.stdout.pipe(stdout);
    child.stderr.pipe(stderr);
    let hostTimedOut = false;
    const exitCode = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          hostTimedOut = true;
          killGroup(child.pid);
        },
        seconds * 1000 + EXEC_GRACE_MS,
      );
      const abort = () => {
        clearTimeout(timer);
        killGroup(child.pid);
        reject(options.signal!.reason);
      };
      options.signal?.addEventListener('abort', abort, { once: true });
      child.on('error', reject);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', abort);
        resolve(code ?? (signal ? 137 : 1));
      });
    });
    return {
      exitCode,
      stdout: stdout.text(),
      stderr: stderr.text(),
      timedOut: hostTimedOut || exitCode === 137,
      truncated: stdout.truncated || stderr.truncated,
    };
  }

  async readFile(path: string, maxBytes = 16 * 1024 * 1024): Promise<string> {
    const file = this.host(path);
    if (!existsSync(file)) throw new Error(`${path}: no such file`);
    const stats = statSync(file);
    if (!stats.isFile()) throw new Error(`${path} is not a regular file`);
    if (stats.size > maxBytes) throw new Error(`${path} is ${stats.size} bytes, over the ${maxBytes}-byte limit`);
    return readFileSync(file, 'utf8');
  }

  async writeFile(path: string, content: string | Buffer | HostFile): Promise<void> {
    if (!path.startsWith('/')) throw new Error(`writeFile needs an absolute path, got ${path}`);
    const file = this.host(path);
    mkdirSync(dirname(file), { recursive: true });
    if (typeof content === 'string' || Buffer.isBuffer(content)) writeFileSync(file, content);
    else copyFileSync(content.hostPath, file);
    chmodSync(file, typeof content === 'object' && !Buffer.isBuffer(content) ? (content.mode ?? 0o644) : 0o644);
  }

  async remove(): Promise<void> {
    this.removed = true;
    rmSync(this.root, { recursive: true, force: true });
    this.onRemove(this);
  }
}

function killGroup(pid: number | undefined): void {
  try {
    if (pid) process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/** The pool's repository as its image holds it: repo/ with gitignore renamed, one commit. */
async function commitPoolRepo(pool: Pool, staging: string): Promise<void> {
  const repo = join(staging, 'repo');
  cpSync(join(pool.dir, 'repo'), repo, { recursive: true });
  if (existsSync(join(repo, 'gitignore'))) renameSync(join(repo, 'gitignore'), join(repo, '.gitignore'));
  const identity = {
    GIT_AUTHOR_NAME: pool.repo,
    GIT_AUTHOR_EMAIL: `${pool.repo}@example.invalid`,
    GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
    GIT_COMMITTER_NAME: pool.repo,
    GIT_COMMITTER_EMAIL: `${pool.repo}@example.invalid`,
    GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
  };
  const git = (...args: string[]) => execa('git', ['-c', 'core.fileMode=false', ...args], { cwd: repo, env: identity });
  await git('init', '-q');
  await git('add', '-A');
  await git('commit', '-q', '-m', 'base');
}

export interface LocalBackend extends SandboxBackend {
  /** Sandboxes started and not removed. */
  readonly live: ReadonlySet<string>;
  /** Agent sandboxes started so far, and test runs made (a test sandbox discarded unused is none). */
  readonly started: { agent: number; testRuns: number };
}

export function createLocalBackend(): LocalBackend {
  const live = new Set<string>();
  const counts = { agent: 0, testRuns: 0 };
  const pools = new Map<string, Pool>();
  const newRoot = () => {
    const root = mkdtempSync(join(tmpdir(), 'coop-bench-local-sandbox-'));
    live.add(root);
    return root;
  };
  const forget = (sandbox: LocalSandbox) => live.delete(sandbox.root);

  const baseRepo = (image: SandboxImage): Promise<BaseRepo> => cachedBaseRepo(image.id, (staging) => commitPoolRepo(pools.get(image.id)!, staging));

  /** A sandbox holding a copy of the image's repository (git data included). */
  const sandboxOf = async (image: SandboxImage): Promise<LocalSandbox> => {
    const base = await baseRepo(image);
    const sandbox = new LocalSandbox(newRoot(), forget);
    mkdirSync(sandbox.host('/tmp'), { recursive: true });
    cpSync(base.dir, sandbox.host(WORKSPACE), { recursive: true });
    return sandbox;
  };

  const startTestRun = async (spec: TestRunSpec): Promise<PendingTestRun> => {
    const sandbox = await sandboxOf(spec.image);
    await sandbox.writeFile('/patches/tests.patch', spec.testsPatch);
    // exec rewrites its sandbox paths, as it does every command's.
    const runner = readFileSync(join(pools.get(spec.image.id)!.dir, 'runner.sh'), 'utf8');
    return {
      async run(patch: string) {
        counts.testRuns++;
        const started = Date.now();
        try {
          if (patch) await sandbox.writeFile('/patches/patch.patch', patch);
          const args = patch ? ['tests.patch', 'patch.patch'] : ['tests.patch'];
          const result = await sandbox.exec(['bash', '-c', runner, 'runner.sh', ...args], { timeoutMs: spec.timeoutMs, maxOutputBytes: spec.maxOutputBytes });
          const timedOut = result.timedOut && Date.now() - started >= spec.timeoutMs;
          return { exitCode: timedOut ? null : result.exitCode, timedOut, output: result.stdout + result.stderr, durationMs: Date.now() - started };
        } finally {
          await sandbox.remove();
        }
      },
      discard: () => sandbox.remove(),
    };
  };

  const slot: BackendSlot = {
    where: 'local',
    async prepareImage(pool) {
      const image = { name: `local/${builtImageName(pool)}`, id: `local-${contextHash(pool.dir)}` };
      pools.set(image.id, pool);
      return image;
    },
    baseRepo: (image) => baseRepo(image),
    startAgentSandbox: (spec) => {
      counts.agent++;
      return sandboxOf(spec.image);
    },
    startTestRun,
  };

  const removeAll = async () => {
    const roots = [...live];
    for (const root of roots) rmSync(root, { recursive: true, force: true });
    live.clear();
    return roots.length;
  };

  return {
    name: 'local',
    placeCount: 1,
    live,
    started: counts,
    async prepareRun() {},
    acquire: () => slot,
    release: () => undefined,
    gitUnsupported: () => 'the local test backend has no --git',
    createTeamRepos: () => Promise.reject(new Error('the local test backend has no --git')),
    sandboxNoun: 'folder',
    removeLeftovers: removeAll,
    listLeftovers: async () => [...live].map((root) => ({ id: root, run: 'local', where: 'local' })),
    removeSandboxes: async (leftovers) => {
      for (const { id } of leftovers) rmSync(id, { recursive: true, force: true });
      for (const { id } of leftovers) live.delete(id);
      return leftovers.length;
    },
    removeOwn: removeAll,
    // The sandboxes' processes are this process's children: their CPU once they have exited (Linux).
    // The oracle needs no agent sandbox here, so it is all the tests'.
    cpuUsage: () => ({ agentS: 0, testS: finishedChildrenCpu() }),
    isInfrastructureError: (error) => error instanceof SandboxStoppedError,
  };
}

/** CPU seconds (user + system) of this process's children that have exited: cutime and cstime of proc(5). */
function finishedChildrenCpu(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[16 - 3]) + Number(fields[17 - 3])) / 100;
}
