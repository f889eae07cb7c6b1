// Hostile datasets and careless operators, through the real command line: a pool that
// links to a host file, a 50 MB feature description, a pool of 200 features planned with 3 and 4
// agents, a read-only runs folder. Each is refused (or listed) before any container starts, in one
// line, with bounded memory; the model endpoint never hears of the host file or the 50 MB.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { CLI, coopBench, containersOf, tempDir } from '../helpers/cli.ts';
import { trackPeakRss } from '../helpers/peak-rss.ts';
import { uniqueRun } from '../helpers/run-db.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../fakes/openai-server.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';

const root = tempDir('hostile-datasets');
const runs = join(root, 'runs');
const MiB = 1024 * 1024;

/** A dataset holding a copy of argkit's features 1 and 2, changed by `spoil`. */
function dataset(name: string, spoil: (dir: string) => void): string {
  const dir = join(root, name, 'argkit_task', 'task1');
  cpSync(join(SHIPPED_POOLS, 'argkit_task', 'task1'), dir, { recursive: true, filter: (src) => !/feature[3-6]$/.test(src) });
  spoil(dir);
  return join(root, name);
}

/** Runs the CLI, sampling the peak memory of its process. */
async function measured(args: string[], options: { env?: Record<string, string>; onStdout?: (chunk: Buffer) => void } = {}) {
  const { env, onStdout } = options;
  const child = execa('node', [CLI, ...args], { reject: false, env, buffer: { stdout: !onStdout } });
  if (onStdout) child.stdout!.on('data', onStdout);
  const rss = trackPeakRss(child.pid!);
  const result = await child;
  rss.stop();
  return { result, peakMiB: Math.round(rss.peakBytes() / MiB) };
}

/** gpt-5, served by a fake OpenAI server that records what reaches it. */
const gpt5 = (server: FakeOpenAIServer) => ({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-test-hostile-datasets' });

describe('a dataset whose feature.md links to a file of the host', () => {
  const secret = join(root, 'id_rsa');
  const run = uniqueRun('linked');
  let server: FakeOpenAIServer;
  let pools: string;

  beforeAll(async () => {
    writeFileSync(secret, '-----BEGIN OPENSSH PRIVATE KEY----- coop-bench-canary-4711');
    pools = dataset('linked', (dir) => {
      rmSync(join(dir, 'feature1', 'feature.md'));
      symlinkSync(secret, join(dir, 'feature1', 'feature.md'));
    });
    server = await startFakeOpenAI({ replies: [] });
  });

  afterAll(() => server.close());

  it('pools validate calls the pool invalid and names the link, without building anything', async () => {
    const result = await coopBench(['pools', 'validate', pools]);
    expect(result.exitCode, result.all).toBe(1);
    expect(result.stdout.split('\n')).toEqual([
      `argkit_task/task1 (${join(pools, 'argkit_task', 'task1')})`,
      `  FAIL: feature1/feature.md is a symbolic link (to "${secret}"): coop-bench reads it itself, so it must be a real file (or folder) of the pool; replace the link by what it points to`,
      '  argkit_task/task1: INVALID (1 problem)',
    ]);
  });

  it('run refuses it in one line, and the model endpoint receives nothing', async () => {
    const result = await coopBench(['run', '--models', 'gpt-5', '--pools', pools, '--name', run, '--runs-dir', runs], { env: gpt5(server) });
    expect(result.exitCode).toBe(2);
    // gpt-5's retirement within 30 days is a warning line of its own.
    expect(result.stderr.split('\n').filter((line) => !line.startsWith('warning: '))).toEqual([
      `coop-bench: pool argkit_task/task1: feature1/feature.md is a symbolic link (to "${secret}"): coop-bench reads it itself, so it must be a real file (or folder) of the pool; replace the link by what it points to`,
    ]);
    expect(server.requests).toEqual([]);
    expect(await containersOf(run)).toEqual([]);
  });
});

describe('a 50 MB feature.md', () => {
  const run = uniqueRun('long-md');
  let server: FakeOpenAIServer;
  let pools: string;

  beforeAll(async () => {
    pools = dataset('long-md', (dir) => writeFileSync(join(dir, 'feature2', 'feature.md'), `# Title: long\n${'Make it so. '.repeat((50 * MiB) / 12)}`));
    server = await startFakeOpenAI({ replies: [] });
  });

  afterAll(() => server.close());

  it('is refused before any container starts, in one line naming its size and the bound', async () => {
    const { result, peakMiB } = await measured(['run', '--models', 'gpt-5', '--pools', pools, '--name', run, '--runs-dir', runs], { env: gpt5(server) });
    process.stdout.write(`50 MB feature.md: refused; peak memory of coop-bench ${peakMiB} MiB\n`);
    expect(result.exitCode).toBe(2);
    expect(
      result.stderr
        .split('\n')
        .filter((line) => !line.startsWith('warning: '))
        .join('\n'),
    ).toBe(
      'coop-bench: pool argkit_task/task1: feature2/feature.md is 50 MiB, over the 32 KiB bound on a feature description (the text sent to the model): shorten it',
    );
    expect(server.requests).toEqual([]);
    expect(await containersOf(run)).toEqual([]);
    expect(readdirSync(root)).not.toContain('runs');
  });

  it('pools validate says the same', async () => {
    const result = await coopBench(['pools', 'validate', pools]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain(
      '  FAIL: feature2/feature.md is 50 MiB, over the 32 KiB bound on a feature description (the text sent to the model): shorten it\n  argkit_task/task1: INVALID (1 problem)',
    );
  });
});

describe('a pool of 200 features', () => {
  let pools: string;

  beforeAll(() => {
    pools = join(root, 'wide');
    for (let id = 1; id <= 200; id++) {
      const dir = join(pools, 'wide_task', 'task1', `feature${id}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'feature.md'), `# Title: feature ${id}\n`);
      writeFileSync(join(dir, 'feature.patch'), '');
      writeFileSync(join(dir, 'tests.patch'), '');
    }
  });

  it('--agents 4 --dry-run says how many tasks that would be (129 million) and stops, instead of running out of memory', async () => {
    const { result, peakMiB } = await measured(['run', '--models', 'oracle', '--pools', pools, '--agents', '4', '--dry-run']);
    process.stdout.write(`200 features, --agents 4 --dry-run: refused at 129,369,900 tasks; peak memory ${peakMiB} MiB\n`);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'coop-bench: this command would plan 129,369,900 tasks, more than --max-tasks 10,000: narrow it (--pool, --task, --features, --subset, --setting, --agents, fewer --models) or pass --max-tasks 129369900 to plan them all',
    );
  });

  it('--agents 3 --dry-run with --max-tasks lists 1.3 million tasks in flat memory', async () => {
    let lines = 0;
    let first = '';
    let last = '';
    const { result, peakMiB } = await measured(
      ['run', '--models', 'oracle', '--pools', pools, '--agents', '3', '--setting', 'coop', '--dry-run', '--max-tasks', '2000000'],
      {
        onStdout: (chunk) => {
          for (const byte of chunk) if (byte === 10) lines++;
          if (first.length < 200) first += chunk.toString();
          last = (last + chunk.toString()).slice(-200);
        },
      },
    );
    process.stdout.write(`200 features, --agents 3 --setting coop --dry-run: 1,313,400 tasks listed; peak memory ${peakMiB} MiB\n`);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(lines).toBe(1_313_400 + 1);
    // The count first (`--dry-run | head` shows it), then the listing.
    expect(first).toMatch(/^1,313,400 tasks\ncoop oracle wide_task\/task1 f1_f2_f3\n/);
    expect(last).toMatch(/coop oracle wide_task\/task1 f198_f199_f200\n$/);
    // The listing is streamed: what the process holds does not grow with it (1.3 GB before).
    expect(peakMiB).toBeLessThan(400);
  });
});

describe('careless operators', () => {
  it('a read-only runs folder is named as read-only, not as missing', async () => {
    // A read-only file system in a mount namespace of its own (root, or a user namespace otherwise).
    const readOnly = join(root, 'read-only');
    mkdirSync(readOnly);
    const asRoot = process.getuid?.() === 0 ? [] : ['--user', '--map-root-user'];
    const run = uniqueRun('ro');
    const result = await execa(
      'unshare',
      [
        ...asRoot,
        '--mount',
        'sh',
        '-c',
        'mount -t tmpfs -o ro tmpfs "$0" && exec "$@"',
        readOnly,
        'node',
        CLI,
        'run',
        '--models',
        'oracle',
        '--pool',
        'argkit',
        '--features',
        '1,2',
        '--name',
        run,
        '--runs-dir',
        join(readOnly, 'runs'),
      ],
      { reject: false, all: true },
    );
    expect(result.exitCode, result.all).toBe(2);
    expect(result.stderr).toBe(
      `coop-bench: cannot create ${join(readOnly, 'runs', run)}: EROFS: read-only file system, mkdir '${join(readOnly, 'runs')}' (choose a writable --runs-dir)`,
    );
    expect(await containersOf(run)).toEqual([]);
  });
});

describe('store failures', () => {
  // A file system of its own in a mount namespace; entering it needs root (Docker must stay reachable).
  it.skipIf(process.getuid?.() !== 0)('a full disk stops the run in one line naming the cause; a resume once there is room finishes it', async () => {
    const disk = join(root, 'small-disk');
    mkdirSync(disk);
    const runsDir = join(disk, 'runs');
    const run = uniqueRun('full');
    const cli = `node ${CLI} run --models oracle --pool argkit --setting solo --name ${run} --runs-dir ${runsDir}`;
    // Room for the store and a task or two of logs; then room for everything.
    const script = `mount -t tmpfs -o size=600k tmpfs "$0" && ${cli}; echo "first exit $?"; mount -o remount,size=64m "$0" && ${cli}; echo "second exit $?"`;
    const result = await execa('unshare', ['--mount', 'sh', '-c', script, disk], { reject: false, all: true });
    const [first, second] = result.all.split(/^first exit \d+$/m);
    expect(result.all, result.all).toMatch(/^first exit 2$/m);
    const failure = first
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('coop-bench:'));
    expect(failure, first).toHaveLength(1);
    expect(failure[0]).toMatch(
      new RegExp(
        `^coop-bench: run ${run} stopped: cannot write in ${join(runsDir, run)}: the disk is full \\((ENOSPC|SQLITE_FULL)[^)]*\\): free space \\(or fix the device\\) and run the same command again to resume; \\d+ of 15 tasks are finished and stored$`,
      ),
    );
    expect(first).not.toMatch(/unexpected error|^\s+at /m);
    // Once there is room, the same command finishes the run: no task lost, none left running.
    expect(second, second).toMatch(/^second exit 0$/m);
    expect(second).toMatch(/oracle\s+solo\s+15\s+15\s+15\/15 \(100\.0%\)\s+0\s+0/);
    expect(await containersOf(run)).toEqual([]);
  });
});
