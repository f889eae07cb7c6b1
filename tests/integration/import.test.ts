// `coop-bench import` through the command line, as a researcher uses it: CooperBench logs give a
// report with CooperBench's own numbers, and a real oracle run's log tree (Docker) imports to the
// same report numbers as its run.db.
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../harness/paths.ts';
import { coopBench, tempDir } from '../helpers/cli.ts';
import { uniqueRun } from '../helpers/run-db.ts';

const FIXTURES = join(PROJECT_ROOT, 'tests/fixtures/cooperbench-logs');
const runsDir = tempDir('import');
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

async function reportJson(run: string) {
  const out = join(runsDir, `${run}.json`);
  const result = await coopBench(['report', run, '--runs-dir', runsDir, '--format', 'json', '--out', out]);
  expect(result.exitCode, result.all).toBe(0);
  return JSON.parse(readFileSync(out, 'utf8')) as {
    summary: Summary;
    tasks: { key: string; status: string; passed: boolean | null; mergeStatus: string | null; naiveClean: boolean | null; steps: number; messages: number }[];
  };
}

interface Rate {
  condition: string;
  tasks: number;
  done: number;
  passed: number;
}
interface Summary {
  taskCounts: Record<string, number>;
  headline: { teams: { team: string; results: Rate[] }[] };
  merges: unknown;
  difficulty: unknown;
  cost: unknown;
  communication: unknown;
}

describe('import of CooperBench logs, then report', () => {
  it('gives each run the pass rate CooperBench computed for it (eval_summary.json)', async () => {
    for (const [run, condition] of [
      ['gpt5-coop', 'Coop'],
      ['gpt5-solo', 'Solo'],
    ] as const) {
      const imported = await coopBench(['import', join(FIXTURES, run), '--name', run, '--runs-dir', runsDir]);
      expect(imported.exitCode, imported.all).toBe(0);
      const own = JSON.parse(readFileSync(join(FIXTURES, run, 'eval_summary.json'), 'utf8')) as {
        passed: number;
        failed: number;
        errors: number;
        pass_rate: number;
      };
      const { summary } = await reportJson(run);
      const rate = summary.headline.teams.find((t) => t.team === 'gpt-5')!.results.find((r) => r.condition === condition)!;
      expect({ passed: rate.passed, evaluated: rate.done }).toEqual({ passed: own.passed, evaluated: own.passed + own.failed });
      expect(rate.passed / rate.done).toBeCloseTo(own.pass_rate, 10);
      // CooperBench's evaluation errors (and tasks it never evaluated) are unfinished tasks here, not failures.
      expect(summary.taskCounts.error).toBeGreaterThanOrEqual(own.errors);
    }
  });

  it('says per task what the logs lack, and compares the imported runs', async () => {
    const imported = await coopBench(['import', FIXTURES, '--name', 'both', '--runs-dir', runsDir]);
    expect(imported.stdout).toMatch(/^interrupted +gpt5-coop\/coop\/go_chi_task\/26\/f1_f3: not evaluated: no eval\.json/m);
    expect(imported.stdout).toMatch(/^done +gpt5-coop\/coop\/dspy_task\/8394\/f2_f3: no conversation\.json/m);
    expect(imported.stdout).toContain('9 task folders of gpt5-coop, gpt5-solo');
    const judged = await coopBench(['judge', '--name', 'both', '--runs-dir', runsDir]);
    expect(judged.exitCode, judged.all).toBe(0);
    expect(judged.stdout).toContain('Judged 4 tasks');
    const compared = await coopBench(['report', '--compare', 'gpt5-solo,gpt5-coop', '--runs-dir', runsDir, '--format', 'json']);
    expect(compared.exitCode, compared.all).toBe(0);
  });

  it('refuses an unknown folder with one line saying what to give', async () => {
    const result = await coopBench(['import', join(runsDir, 'nope'), '--name', 'x', '--runs-dir', runsDir]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/^coop-bench: cannot read the logs folder .*give CooperBench's logs\/ folder/);
  });
});

describe('round trip of a coop-bench run (Docker)', () => {
  it('imports its log tree to the report numbers of its run.db', async () => {
    // Containers are labelled by run name: one no other test process uses.
    const name = uniqueRun('import-oracle');
    const run = await coopBench(['run', '--models', 'oracle', '--pool', 'argkit_task', '--features', '1,2', '--name', name, '--runs-dir', runsDir]);
    expect(run.exitCode, run.all).toBe(0);
    const imported = await coopBench(['import', join(runsDir, name), '--name', 'oracle-again', '--runs-dir', runsDir]);
    expect(imported.exitCode, imported.all).toBe(0);
    const original = await reportJson(name);
    const again = await reportJson('oracle-again');
    const numbers = (r: typeof original) => ({
      taskCounts: r.summary.taskCounts,
      headline: r.summary.headline,
      merges: r.summary.merges,
      difficulty: r.summary.difficulty,
      cost: r.summary.cost,
      communication: r.summary.communication,
      tasks: r.tasks
        .map(({ key, status, passed, mergeStatus, naiveClean, steps, messages }) => ({ key, status, passed, mergeStatus, naiveClean, steps, messages }))
        .sort((a, b) => a.key.localeCompare(b.key)),
    });
    expect(original.tasks.length).toBeGreaterThan(0);
    expect(numbers(again)).toEqual(numbers(original));
  });
});
