// The npm package as a user gets it: `npm pack`, `npm install -g` of the tarball into an empty
// prefix, then the installed command run from a folder that is not the clone.
import { execa } from 'execa';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../harness/paths.ts';
import { tempDir } from '../helpers/cli.ts';

let dir: string;
let prefix: string;
let files: string[];

/** The installed `coop-bench`, run from an empty folder. */
const installed = (args: string[]) => execa(join(prefix, 'bin', 'coop-bench'), args, { reject: false, cwd: join(dir, 'cwd'), timeout: 900_000 });

beforeAll(async () => {
  dir = tempDir('package');
  prefix = join(dir, 'prefix');
  const packed = await execa('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PROJECT_ROOT });
  const [tarball] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  files = tarball!.files.map((f) => f.path);
  // Minutes: npm builds better-sqlite3 from source where it cannot download a prebuilt binary.
  await execa('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', join(dir, tarball!.filename)], { cwd: dir, stdio: 'inherit' });
  mkdirSync(join(dir, 'cwd'));
}, 1_800_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the packed tarball', () => {
  it('holds the source it runs, the shipped pools, the MCP bridges and the report assets', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/coop-bench.js',
        'harness/cli.ts',
        'resolver/git-spawner.mjs',
        'harness/messaging/bridge/mcp-bridge.sh',
        'harness/messaging/bridge/mcp-bridge.mjs',
        'harness/messaging/bridge/mcp-bridge.py',
        'reports/html/report.css',
        'reports/html/task-page.js',
        'judges/calibration/cases/clean.json',
        'feature-pools/argkit_task/task1/Dockerfile',
        'feature-pools/argkit_task/task1/repo/gitignore',
        'feature-pools/tabulite_task/task1/runner.sh',
      ]),
    );
  });

  it('holds no tests, fixtures, benchmarks or development files', () => {
    expect(files.filter((f) => /^(tests|bench|docs|scripts|docker)\/|fixtures|\.test\.ts$|^(tsconfig|vitest\.config)/.test(f))).toEqual([]);
  });
});

describe('coop-bench installed from the tarball', () => {
  it('prints its help', async () => {
    const result = await installed(['--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^Usage: coop-bench \[options\] \[command\]/);
  });

  it('lists the pools it ships, from its own folder', async () => {
    const result = await installed(['pools', 'list']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('argkit_task/task1  6 features  15 pairs  Dockerfile\ntabulite_task/task1  6 features  15 pairs  Dockerfile\n2 pools, 30 pairs');
  });

  it('runs the oracle on a shipped pool and writes its report with the report assets', async () => {
    const runsDir = join(dir, 'runs');
    const run = await installed(['run', '--models', 'oracle', '--pool', 'argkit_task', '--features', '1,2', '--name', 'oracle', '--runs-dir', runsDir]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^oracle\s+solo\s+1\s+1\s+1\/1 \(100\.0%\)\s+0\s+0\s/m);
    const report = await installed(['report', '--name', 'oracle', '--runs-dir', runsDir]);
    expect(report.exitCode, report.stderr).toBe(0);
    const html = readFileSync(join(runsDir, 'oracle', 'report.html'), 'utf8');
    expect(html).toContain(readFileSync(join(PROJECT_ROOT, 'reports/html/report.css'), 'utf8').split('\n')[0]);
    expect(html).toContain('100.0% (1/1)');
  });

  it('without node-llama-cpp (an optional peer dependency), --resolver-gguf says the one command that installs it', async () => {
    const model = join(dir, 'resolver.gguf');
    writeFileSync(model, '');
    const { peerDependencies } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
    const result = await installed(['merge', model, model, '--repo', dir, '--resolver-gguf', model]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      `coop-bench merge: --resolver-gguf needs node-llama-cpp, which is not installed; install it with: npm install --global --prefix ${prefix} node-llama-cpp@${peerDependencies['node-llama-cpp']}`,
    );
  });
});
