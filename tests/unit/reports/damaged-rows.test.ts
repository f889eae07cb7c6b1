// A run.db whose columns are damaged (a disk error, a hand edit): `report` names each damaged
// row in one line and still writes the report, the damaged task counted as an error, never dropped,
// and exits 1 saying so in its last line, so that scripts notice.
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { coopBench, tempDir } from '../../helpers/cli.ts';
import { buildRun } from './helpers/fixture-run.ts';

const runs = tempDir('damaged-rows');
const tasks = [1, 2, 3, 4, 5, 6, 7, 9].map((f) => ({
  models: ['m'],
  setting: 'coop' as const,
  features: [f, 8],
  passed: true,
  labels: [{ judge: 'communication', label: 'C1a', evidence: ['a quote'] }],
}));
buildRun(runs, 'damaged', tasks);
const db = new Database(join(runs, 'damaged', 'run.db'));
db.exec(`
  UPDATE tasks SET features = '[1,' WHERE id = 1;
  UPDATE tasks SET models = '' WHERE id = 2;
  UPDATE agents SET features = '{' WHERE task = 3;
  UPDATE merges SET timings = 'x' WHERE task = 4;
  UPDATE runs SET options = '{"' ;
  UPDATE merges SET files = '[{"path": 1}]' WHERE task = 5;
  UPDATE merge_attempts SET tests = 'null]' WHERE task = 6;
  UPDATE judge_labels SET evidence = '[' WHERE task = 7;
  UPDATE tasks SET attempts = 'several' WHERE id = 8;
`);
db.close();
const key = (f: number) => `m|coop|demo_task/task1|f${f}_f8`;

describe('report on a run.db with damaged rows', () => {
  it('writes the report and names each damaged row, its table, column and task, in one line', async () => {
    const result = await coopBench(['report', '--name', 'damaged', '--runs-dir', runs]);
    expect(result.exitCode, result.all).toBe(1);
    // What follows "not valid JSON" is JSON.parse's own wording, which changes between Node versions.
    const lines = result.stderr.split('\n').map((line) => line.replace(/not valid JSON \(.*\): /, 'not valid JSON (...): '));
    expect(lines).toEqual([
      `coop-bench: run.db has a damaged row: tasks.attempts of task ${key(9)} is not valid (Invalid input: expected number, received string): that task is reported as an error`,
      `coop-bench: run.db has a damaged row: tasks.features of task ${key(1)} is not valid JSON (...): that task is reported as an error`,
      `coop-bench: run.db has a damaged row: tasks.models of task ${key(2)} is not valid JSON (...): that task is reported as an error`,
      `coop-bench: run.db has a damaged row: merge_attempts.tests of task ${key(6)} is not valid JSON (...): that task is reported as an error`,
      `coop-bench: run.db has a damaged row: runs.options of run damaged is not valid JSON (...): the report shows no run options`,
      `coop-bench: run.db has a damaged row: judge_labels.evidence of task ${key(7)} is not valid JSON (...): that label is left out of the report`,
      `coop-bench: run.db has a damaged row: agents.features of task ${key(3)} is not valid JSON (...): its page is left out of the report`,
      `coop-bench: run.db has a damaged row: merges.timings of task ${key(4)} is not valid JSON (...): its page is left out of the report`,
      `coop-bench: run.db has a damaged row: merges.files.0.path of task ${key(5)} is not valid (Invalid input: expected string, received number): its page is left out of the report`,
      `coop-bench: the report is written, but run.db has 9 damaged row(s) (above): exit code 1`,
    ]);
    expect(result.stdout).toBe(`report: ${join(runs, 'damaged', 'report.html')}`);
  });

  it('counts a task whose own row is damaged as an error, not as finished nor as missing', async () => {
    const result = await coopBench(['report', '--name', 'damaged', '--runs-dir', runs, '--format', 'json']);
    expect(result.exitCode, result.all).toBe(1);
    const report = JSON.parse(readFileSync(join(runs, 'damaged', 'report.json'), 'utf8')) as { tasks: { key: string; status: string; error: string | null }[] };
    expect(report.tasks.map((t) => [t.key, t.status])).toEqual([
      [key(1), 'error'],
      [key(2), 'error'],
      [key(3), 'done'],
      [key(4), 'done'],
      [key(5), 'done'],
      [key(6), 'error'],
      [key(7), 'done'],
      [key(9), 'error'],
    ]);
    expect(report.tasks[0].error).toMatch(/^run\.db has a damaged row: tasks\.features of task /);
  });
});
