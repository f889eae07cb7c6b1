// The core pipeline on real Docker, real git and real SQLite, driven through the CLI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { copyFileSync, cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import Docker from 'dockerode';
import { builtImageName } from '../../harness/sandbox/image-name.ts';
import { loadPool } from '../../tasks/pools.ts';
import { join } from 'node:path';
import { execa } from 'execa';
import { coopBench, containersOf, ownPoolCopy, tempDir, CLI } from '../helpers/cli.ts';
import { uniqueRun } from '../helpers/run-db.ts';
import { goldenPairs, oraclePairs } from '../helpers/oracle-pairs.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';

const POOL = 'argkit_task';
const runs = tempDir('runs');
/** Its own run name: another suite on the same engine does not see its containers. */
const RUN = uniqueRun('oracle');

interface Row {
  setting: string;
  features: string;
  status: string;
  both_passed: number;
  attempts: number;
  merge_status: string | null;
}

function rows(run: string): Row[] {
  const db = new Database(join(runs, run, 'run.db'), { readonly: true });
  try {
    return db
      .prepare(
        'SELECT t.setting, t.features, t.status, t.both_passed, t.attempts, m.status AS merge_status FROM tasks t LEFT JOIN merges m ON m.task = t.id ORDER BY t.id',
      )
      .all() as Row[];
  } finally {
    db.close();
  }
}

/** `pools validate` prints the conflict matrix; pairs marked X conflict under a naive merge. */
function parseMatrix(output: string): Map<string, boolean> {
  const lines = output.split('\n').filter((l) => /^\s+f\d+(\s+[-X.])+\s*$/.test(l));
  const result = new Map<string, boolean>();
  lines.forEach((line) => {
    const [row, ...cells] = line.trim().split(/\s+/);
    cells.forEach((cell, j) => {
      const i = Number(row.slice(1));
      if (cell !== '-' && i < j + 1) result.set(`${i},${j + 1}`, cell === 'X');
    });
  });
  return result;
}

describe(`oracle over every pair of ${POOL}`, () => {
  let predicted: Map<string, boolean>;
  let first: Awaited<ReturnType<typeof coopBench>>;

  beforeAll(async () => {
    const validate = await coopBench(['pools', 'validate', join(SHIPPED_POOLS, POOL)]);
    expect(validate.exitCode, validate.all).toBe(0);
    expect(validate.stdout).toContain(`${POOL}/task1: valid`);
    predicted = parseMatrix(validate.stdout);
    expect(predicted.size).toBe(15);
    first = await coopBench(['run', '--models', 'oracle', '--pool', POOL, '--name', RUN, '--runs-dir', runs]);
  });

  it('finishes every task and prints the summary', () => {
    expect(first.exitCode, first.all).toBe(0);
    expect(first.stdout).toMatch(/oracle\s+coop\s+15\s+15/);
    expect(first.stdout).toMatch(/oracle\s+solo\s+15\s+15\s+15\/15 \(100\.0%\)/);
  });

  it('merges cleanly exactly the pairs pools validate predicts, and those pass', () => {
    const coop = rows(RUN).filter((r) => r.setting === 'coop');
    expect(coop).toHaveLength(15);
    for (const r of coop) {
      const [i, j] = JSON.parse(r.features) as number[];
      const conflicts = predicted.get(`${i},${j}`);
      expect(r.merge_status === 'clean', `f${i}_f${j}: merge ${r.merge_status}, validate predicted ${conflicts ? 'conflict' : 'clean'}`).toBe(!conflicts);
      if (!conflicts) expect(r.both_passed, `clean pair f${i}_f${j} should pass`).toBe(1);
    }
  });

  it("gives each Coop pair the results of the golden file, which the other backends' tests compare with (merge, both-pass, each feature's verdict and exit code)", () => {
    const pairs = oraclePairs(runs, RUN);
    expect(Object.keys(pairs)).toHaveLength(15);
    expect(pairs).toEqual(goldenPairs(pairs));
  });

  it('passes both features in Solo (the infrastructure check)', () => {
    const solo = rows(RUN).filter((r) => r.setting === 'solo');
    expect(solo.every((r) => r.status === 'done' && r.both_passed === 1)).toBe(true);
  });

  it('writes the CooperBench-like log tree', () => {
    const dir = join(runs, RUN, 'logs', 'oracle', 'coop', POOL, 'task1', 'f1_f2');
    for (const file of ['agent1.patch', 'agent2.patch', 'agent1_traj.json', 'agent2_traj.json', 'conversation.json', 'result.json', 'eval.json']) {
      expect(existsSync(join(dir, file)), file).toBe(true);
    }
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8'));
    expect(result).toMatchObject({ repo: POOL, task_id: 1, features: [1, 2], setting: 'coop' });
  });

  it('does no work when the same run is started again', async () => {
    const again = await coopBench(['run', '--models', 'oracle', '--pool', POOL, '--name', RUN, '--runs-dir', runs]);
    expect(again.exitCode, again.all).toBe(0);
    expect(again.stderr).toContain(`30 of 30 tasks already finished in run ${RUN}: skipped`);
    expect(rows(RUN).every((r) => r.attempts === 1)).toBe(true);
  });

  it('leaves no container behind', async () => {
    expect(await containersOf(RUN)).toEqual([]);
  });
});

describe('pools validate on a broken pool', () => {
  it('exits non-zero and names the feature whose gold patch does not pass its tests', async () => {
    // Two features are enough for a feature whose tests fail with its own patch (and validate
    // tests each feature and pair of a pool: the other four would only add work).
    const copy = join(tempDir('broken-pool'), 'argkit_task', 'task1');
    cpSync(join(SHIPPED_POOLS, POOL, 'task1'), copy, { recursive: true, filter: (src) => !/feature[3-6]$/.test(src) });
    copyFileSync(join(copy, 'feature2', 'feature.patch'), join(copy, 'feature1', 'feature.patch'));
    const result = await coopBench(['pools', 'validate', copy]);
    expect(result.exitCode, result.all).toBe(1);
    expect(result.stdout).toContain('FAIL: feature1: its tests fail with its own feature.patch');
    expect(result.stdout).toContain('argkit_task/task1: INVALID');
  });
});

describe('pools validate on a pool whose combined.patch also edits the tests', () => {
  // As on a real CooperBench task: combined.patch carries test hunks that the features' own
  // tests.patch also make, so applying both fails unless the test files are dropped first.
  const copy = join(tempDir('combined-edits-tests'), 'argkit_task', 'task1');
  afterAll(async () => {
    await new Docker()
      .getImage(builtImageName(loadPool(copy)))
      .remove()
      .catch(() => undefined);
  });

  it('tests it as the Solo setting does (test files dropped) and calls the pool valid', async () => {
    cpSync(join(SHIPPED_POOLS, POOL, 'task1'), copy, { recursive: true, filter: (src) => !/feature[3-6]$/.test(src) });
    ownPoolCopy(copy);
    const combined = join(copy, 'combined.patch');
    writeFileSync(
      combined,
      readFileSync(combined, 'utf8') +
        readFileSync(join(copy, 'feature1', 'tests.patch'), 'utf8') +
        readFileSync(join(copy, 'feature2', 'tests.patch'), 'utf8'),
    );
    const result = await coopBench(['pools', 'validate', copy]);
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stderr).toMatch(/feature1: base fail, gold pass, combined pass\n\s+feature2: base fail, gold pass, combined pass/);
    expect(result.stdout).toMatch(/f1\+f2\s+conflict\s+(pass|FAIL)/);
    expect(result.stdout).toContain('argkit_task/task1: valid');
  });
});

describe('interrupting a run', () => {
  it('SIGINT stops the run, removes its containers, records it as interrupted, and the run resumes', async () => {
    const run = 'interrupted';
    const child = execa('node', [CLI, 'run', '--models', 'oracle', '--pool', 'tabulite', '--name', run, '--runs-dir', runs, '--concurrency', '2'], {
      reject: false,
      all: true,
    });
    // Wait until agents are at work (containers exist), then interrupt.
    for (let i = 0; i < 600 && (await containersOf(run)).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await containersOf(run)).length).toBeGreaterThan(0);
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode, result.all).toBe(130);
    expect(result.stderr).toContain(`run ${run} interrupted`);
    expect(await containersOf(run)).toEqual([]);
    const db = new Database(join(runs, run, 'run.db'), { readonly: true });
    expect((db.prepare('SELECT status FROM runs').get() as { status: string }).status).toBe('interrupted');
    expect((db.prepare(`SELECT count(*) AS n FROM tasks WHERE status = 'running'`).get() as { n: number }).n).toBe(0);
    db.close();

    const resumed = await coopBench(['run', '--models', 'oracle', '--pool', 'tabulite', '--name', run, '--runs-dir', runs, '--setting', 'solo']);
    expect(resumed.exitCode, resumed.all).toBe(0);
    expect(resumed.stdout).toMatch(/oracle\s+solo\s+15\s+15\s+15\/15/);
  });
});

// The other bad inputs (unknown model, no engine, missing pool...) are in bad-input.test.ts.
describe('reference samples', () => {
  it('reference samples without a Dockerfile are reported as "cannot build", not a crash', async () => {
    const dataset = join(import.meta.dirname, '../fixtures/cooperbench-dataset');
    const result = await coopBench([
      'run',
      '--models',
      'oracle',
      '--pools',
      dataset,
      '--pool',
      'go_chi',
      '--features',
      '1,2',
      '--setting',
      'coop',
      '--name',
      'reference',
      '--runs-dir',
      runs,
    ]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      /error\s+coop oracle go_chi_task\/task26 f1_f2: cannot build go_chi_task\/task26: .* has no Dockerfile and image akhatua\/cooperbench-go-chi:task26 is not present on unix:\/\/\/var\/run\/docker.sock \(docker pull it/,
    );
  });

  it('lists the reference samples and their pairs', async () => {
    const result = await execa('node', [CLI, 'pools', 'list', join(import.meta.dirname, '../fixtures/cooperbench-dataset')]);
    expect(result.stdout).toContain('3 pools, 26 pairs');
  });
});
