// Bad input: each problem a user can make ends in one line that names it and says what
// to do, a non-zero exit, and nothing written to the store. `merge` with patches that do not
// apply is in tests/unit/harness/commands/merge.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Docker from 'dockerode';
import { coopBench, containersOf, ownPoolCopy, tempDir } from '../helpers/cli.ts';
import { filesUnder } from '../helpers/run-db.ts';
import { builtImageName } from '../../harness/sandbox/image-name.ts';
import { loadPool } from '../../tasks/pools.ts';
import { RunStore } from '../../harness/store/run-store.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';

const root = tempDir('bad-input');
const runs = join(root, 'runs');
const datasets = join(root, 'datasets');
const argkit = join(SHIPPED_POOLS, 'argkit_task', 'task1');

/** A copy of argkit with features 1 and 2 only, changed by `spoil`, as a dataset of its own. */
function spoiledPool(name: string, spoil: (dir: string) => void): string {
  const dataset = join(datasets, name);
  const dir = join(dataset, 'argkit_task', 'task1');
  cpSync(argkit, dir, { recursive: true, filter: (src) => !/feature[3-6]$/.test(src) });
  spoil(dir);
  return dataset;
}

/** Every file of the runs folder with its content hash: equal before and after means nothing was written. */
function snapshot(): Record<string, string> {
  return Object.fromEntries(filesUnder(runs).map((f) => [f, createHash('sha256').update(readFileSync(f)).digest('hex')]));
}

interface BadInput {
  what: string;
  args: string[];
  env?: Record<string, string>;
  /** The problem, named. */
  problem: RegExp;
  /** What to do about it. */
  fix: RegExp;
}

// The fixtures are written as the file loads: each case is its own test.
const cases: BadInput[] = (() => {
  mkdirSync(runs, { recursive: true });
  const missingTests = spoiledPool('missing-tests', (dir) => rmSync(join(dir, 'feature2', 'tests.patch')));
  const badJson = join(root, 'bad.json');
  writeFileSync(badJson, '{"name": "bad", "tasks": [');
  const badShape = join(root, 'shape.json');
  writeFileSync(badShape, JSON.stringify({ name: 'shape', tasks: [{ repo: 'argkit_task', task_id: 1, pairs: [[1]] }] }));
  const notADir = join(root, 'a-file');
  writeFileSync(notADir, 'not a folder');
  RunStore.open(runs, 'empty', { create: true }).close();
  mkdirSync(join(runs, 'corrupt'));
  writeFileSync(join(runs, 'corrupt', 'run.db'), 'this is not a SQLite database, and must stay as it is');
  const run = (name: string, ...more: string[]) => ['run', '--models', 'oracle', '--name', name, '--runs-dir', runs, ...more];

  const all: BadInput[] = [
    {
      what: 'a pool whose feature lacks a file',
      args: run('p1', '--pools', missingTests),
      problem: /pool argkit_task\/task1: feature2 lacks tests\.patch/,
      fix: /each feature needs feature\.md, feature\.patch and tests\.patch/,
    },
    {
      what: 'a pool folder that does not exist',
      args: run('p2', '--pools', '/nonexistent'),
      problem: /pool folder \/nonexistent does not exist/,
      fix: /pass --pools <dir>/,
    },
    {
      what: 'a feature the pool does not have',
      args: run('p3', '--pool', 'argkit', '--features', '1,99'),
      problem: /pool argkit_task\/task1 has no feature 99/,
      fix: /it has 1, 2, 3, 4, 5, 6/,
    },
    { what: 'a subset that is not JSON', args: run('s1', '--subset', badJson), problem: /subset .*bad\.json is not valid JSON/, fix: /JSON/ },
    {
      what: 'a subset of the wrong shape',
      args: run('s2', '--subset', badShape),
      problem: /subset .*shape\.json is malformed at tasks\.0\.pairs\.0/,
      fix: /expected \{"name", "tasks": \[\{"repo", "task_id", "pairs": \[\[i, j\]\]\}\]\}/,
    },
    {
      what: 'a subset that does not exist',
      args: run('s3', '--subset', 'nope'),
      problem: /subset "nope" not found/,
      fix: /pass a subset JSON file or a name under <pools>\/subsets\//,
    },
    {
      what: 'a run name that climbs out of the runs folder',
      args: run('../escape'),
      problem: /run name "\.\.\/escape" is not allowed/,
      fix: /use 1-100 letters, digits/,
    },
    {
      what: 'a run name with a slash, to report',
      args: ['report', '--name', 'a/../../etc', '--runs-dir', runs],
      problem: /run name "a\/\.\.\/\.\.\/etc" is not allowed/,
      fix: /use 1-100 letters/,
    },
    { what: 'a run name with a newline, in one line', args: run('two\nlines'), problem: /run name "two\\nlines" is not allowed/, fix: /use 1-100 letters/ },
    {
      what: 'a run name with a terminal escape, shown escaped',
      args: ['report', '--name', 'x\u001b[2J', '--runs-dir', runs],
      problem: /run name "x\\u001b\[2J" is not allowed/,
      fix: /use 1-100 letters/,
    },
    {
      what: 'a hidden run name, to eval',
      args: ['eval', '--name', '.hidden', '--runs-dir', runs],
      problem: /run name "\.hidden" is not allowed/,
      fix: /starting with a letter or digit/,
    },
    { what: 'an unknown model', args: run('m1', '--models', 'gpt-17'), problem: /unknown model "gpt-17"/, fix: /use gpt-5, claude, openai:<model>/ },
    {
      what: 'a model server that is not http',
      args: run('m2', '--models', 'openai:qwen@ftp://host/v1'),
      problem: /bad model spec "openai:qwen@ftp:\/\/host\/v1"/,
      fix: /with a URL that starts with http:\/\/ or https:\/\//,
    },
    {
      what: 'a missing API key',
      args: run('m3', '--models', 'claude', '--pool', 'argkit'),
      env: { ANTHROPIC_API_KEY: '' },
      problem: /no API key for model "claude"/,
      fix: /set ANTHROPIC_API_KEY in the environment or in \.\/\.env/,
    },
    {
      what: 'an unknown option',
      args: run('f1', '--dry-rnu'),
      problem: /unknown option '--dry-rnu'/,
      fix: /Did you mean --dry-run\?.*see coop-bench run --help/,
    },
    {
      what: 'a probe interval that is not every=K',
      args: run('pr1', '--probe', 'every=0'),
      problem: /--probe takes every=K, K the steps between probes from 1 to 1000/,
      fix: /\(e\.g\. every=5\), not "every=0"/,
    },
    {
      what: 'probes asked of agents that cannot be probed',
      args: run('pr2', '--pool', 'argkit', '--probe', 'every=3'),
      problem: /--probe asks the built-in model agent, and oracle is not one/,
      fix: /add a model such as gpt-5 or claude, or drop --probe/,
    },
    { what: 'an unknown command', args: ['rnu'], problem: /unknown command 'rnu'/, fix: /Did you mean run\?/ },
    {
      what: 'an option value out of range',
      args: run('f2', '--concurrency', '0'),
      problem: /option '--concurrency <n>' argument '0' is invalid/,
      fix: /"0" is not a positive whole number/,
    },
    {
      what: 'a runs folder that cannot be written',
      args: ['run', '--models', 'oracle', '--pool', 'argkit', '--features', '1,2', '--name', 'w1', '--runs-dir', join(notADir, 'runs')],
      problem: /cannot create .*a-file\/runs\/w1: ENOTDIR/,
      fix: /choose a writable --runs-dir/,
    },
    {
      what: 'a report that cannot be written',
      args: ['report', '--name', 'empty', '--runs-dir', runs, '--out', join(notADir, 'report.html')],
      problem: /cannot write .*a-file\/report\.html: ENOTDIR/,
      fix: /choose another --out/,
    },
    {
      what: 'a run store that is not a database',
      args: run('corrupt', '--pool', 'argkit', '--features', '1,2'),
      problem: /runs\/corrupt\/run\.db is not a readable run store \(file is not a database\)/,
      fix: /move it away to start the run afresh, or choose another --name/,
    },
    {
      what: 'an --image the engine does not have',
      args: run('i1', '--pool', 'argkit', '--features', '1,2', '--image', 'coop-bench/no-such-image:1'),
      problem: /image coop-bench\/no-such-image:1 \(given with --image\) is not present in the Docker engine/,
      fix: /docker pull or build it there first/,
    },
    {
      what: 'no Docker engine',
      args: run('d1', '--pool', 'argkit', '--features', '1,2'),
      env: { DOCKER_HOST: 'unix:///nonexistent/docker.sock' },
      problem: /no Docker engine reachable at unix:\/\/\/nonexistent\/docker\.sock/,
      fix: /bash scripts\/setup-docker\.sh/,
    },
  ];
  return all;
})();

describe('bad input: one line naming the problem and the fix, a non-zero exit, nothing half-written', () => {
  it.each(cases)('$what', async (c) => {
    const before = snapshot();
    const result = await coopBench(c.args, { env: c.env });
    const lines = result.stderr.trim().split('\n');
    expect(result.exitCode, result.all).toBeGreaterThan(0);
    expect(lines, 'one line').toHaveLength(1);
    expect(lines[0]).toMatch(/^coop-bench( \w+)?: /);
    expect(lines[0]).toMatch(c.problem);
    expect(lines[0]).toMatch(c.fix);
    expect(snapshot(), 'the store changed').toEqual(before);
    if (c.args.includes('--name')) expect(await containersOf(c.args[c.args.indexOf('--name') + 1])).toEqual([]);
  });

  it('nothing was created outside the runs folder either', () => {
    expect(() => statSync(join(root, 'escape'))).toThrow();
    expect(
      filesUnder(runs)
        .map((f) => f.slice(runs.length))
        .sort(),
    ).toEqual(['/corrupt/run.db', '/empty/run.db']);
  });
});

describe('a pool whose gold patch does not apply', () => {
  let dataset: string;
  let result: Awaited<ReturnType<typeof coopBench>>;

  beforeAll(async () => {
    dataset = spoiledPool('bad-gold', (dir) => {
      const patch = join(dir, 'feature1', 'feature.patch');
      writeFileSync(patch, readFileSync(patch, 'utf8').replace(/^ /m, ' text the base does not have '));
      ownPoolCopy(dir);
    });
    result = await coopBench(['pools', 'validate', dataset, '--test-timeout', '120']);
  });

  afterAll(async () => {
    // The image built for this copy of the pool is this test process's own (ownPoolCopy).
    await new Docker()
      .getImage(builtImageName(loadPool(join(dataset, 'argkit_task', 'task1'))))
      .remove()
      .catch(() => undefined);
  });

  it('pools validate names the patch and why, and calls the pool invalid', () => {
    expect(result.exitCode, result.all).toBe(1);
    expect(result.stdout).toMatch(/FAIL: feature1\/feature\.patch does not apply to the base: error: patch failed: src\/parser\.js:\d+/);
    expect(result.stdout).toMatch(/FAIL: feature1: its tests fail with its own feature\.patch/);
    expect(result.stdout).toContain('argkit_task/task1: INVALID');
  });
});
