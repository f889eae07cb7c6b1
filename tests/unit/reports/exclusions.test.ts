// Error accounting as the reader sees it: beside every rate, the tasks it leaves out and why; the
// agents' own failures are scored, and counted by how the agents ended.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunStore } from '../../../harness/store/run-store.ts';
import { formatSummary, summarize } from '../../../harness/run/summary.ts';
import { summarizeRun } from '../../../reports/summary.ts';
import { loadRunData, writeComparison, writeReport } from '../../../harness/run/write-report.ts';
import { buildRun, type FixtureTask } from './helpers/fixture-run.ts';

let runsDir: string;
const CONFIG = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);

/** gpt-5 in Solo: 6 pairs; 2 passed, 1 scored with an agent stopped by a refused request, 3 left out. */
const tasks: FixtureTask[] = [
  { models: ['gpt-5'], setting: 'solo', taskId: 1, passed: true, agentConfig: CONFIG },
  { models: ['gpt-5'], setting: 'solo', taskId: 2, passed: true, agentConfig: CONFIG },
  { models: ['gpt-5'], setting: 'solo', taskId: 3, passed: false, agentStatus: ['model_rejected'], agentConfig: CONFIG },
  { models: ['gpt-5'], setting: 'solo', taskId: 4, status: 'error', error: 'model gpt-5: server error 503 after 7 attempts', errorKind: 'infrastructure' },
  { models: ['gpt-5'], setting: 'solo', taskId: 5, status: 'error', error: 'TypeError: cannot read x', errorKind: 'harness' },
  { models: ['gpt-5'], setting: 'solo', taskId: 6, status: 'pending' },
  { models: ['gpt-5', 'gpt-5'], setting: 'coop', taskId: 1, passed: true, agentStatus: ['finished', 'context_exhausted'], agentConfig: CONFIG },
  { models: ['gpt-5', 'gpt-5'], setting: 'coop', taskId: 2, status: 'error', error: 'engine gone', errorKind: 'infrastructure' },
  {
    models: ['gpt-5', 'gpt-5'],
    setting: 'coop',
    taskId: 3,
    status: 'error',
    error: 'pool demo_task/task3: gold patch combined.patch does not apply',
    errorKind: 'pool',
  },
];

beforeAll(() => {
  runsDir = mkdtempSync(join(tmpdir(), 'exclusions-'));
  buildRun(runsDir, 'accounted', tasks);
  buildRun(
    runsDir,
    'other-prompts',
    tasks.slice(0, 2).map((t) => ({ ...t, agentConfig: OTHER })),
  );
});
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

function summaryOf(name: string) {
  const store = RunStore.open(runsDir, name, { create: false });
  try {
    return { report: summarizeRun(loadRunData(store)), cli: formatSummary(name, summarize(store)) };
  } finally {
    store.close();
  }
}

describe('error accounting', () => {
  it("scores the agents' failures and counts what each rate leaves out, by why", () => {
    const { headline } = summaryOf('accounted').report;
    const solo = headline.teams[0]!.results.find((r) => r.condition === 'Solo')!;
    expect(solo).toMatchObject({ tasks: 6, done: 3, passed: 2 });
    expect(solo.rate!.n).toBe(3);
    expect(solo.excluded).toEqual({ infrastructure: 1, harness: 1, pool: 0, interrupted: 0, notRun: 1, total: 3 });
    expect(solo.agentEndings).toEqual({ model_rejected: 1 });
    const coop = headline.teams[0]!.results.find((r) => r.condition === 'Coop')!;
    expect(coop.agentEndings).toEqual({ context_exhausted: 1 });
    expect(coop.excluded).toMatchObject({ infrastructure: 1, pool: 1, total: 2 });
    // Pairs 2 and 3 finished in Solo but not in Coop: left out of the gap, and said so.
    expect(headline.teams[0]!.gap).toMatchObject({ pairs: 1, excludedPairs: 2 });
  });

  it('prints them beside the rates at the end of a run', () => {
    const { cli } = summaryOf('accounted');
    expect(cli).toMatch(/gpt-5\s+solo\s+6\s+3\s+2\/3 \(66\.7%\)\s+2 \(infrastructure 1, harness 1\)\s+1\s+1 \(model_rejected 1\)/);
    expect(cli).toMatch(/gpt-5\s+coop\s+3\s+1\s+1\/1 \(100\.0%\)\s+2 \(infrastructure 1, pool 1\)\s+0\s+1 \(context_exhausted 1\)/);
    expect(cli).toContain('both pass counts finished tasks only: 5 task(s) are left out');
    expect(cli).toContain("excluded as pool: the task's pool is defective");
    expect(cli).toContain('excluded as harness: a coop-bench bug ended the task');
    expect(cli).toContain(`agent configuration ${CONFIG.slice(0, 12)}`);
  });

  it('counts a model that declined on its safety policy as refused: scored, in the summary and the report', () => {
    buildRun(runsDir, 'declined', [{ models: ['claude'], setting: 'solo', taskId: 1, passed: false, agentStatus: ['refused'], agentConfig: CONFIG }]);
    const { cli, report } = summaryOf('declined');
    const solo = report.headline.teams[0]!.results.find((r) => r.condition === 'Solo')!;
    expect(solo).toMatchObject({ tasks: 1, done: 1, passed: 0, agentEndings: { refused: 1 } });
    expect(cli).toMatch(/claude\s+solo\s+1\s+1\s+0\/1 \(0\.0%\)\s+0\s+0\s+1 \(refused 1\)/);
    expect(cli).toContain("refused: the model declined to go on, on its provider's safety policy");
    expect(readFileSync(writeReport({ runsDir, name: 'declined', format: 'html' }).path, 'utf8')).toContain('1 refused');
  });

  it('shows them in the report, and warns when two runs used different agent configurations', () => {
    const html = readFileSync(writeReport({ runsDir, name: 'accounted', format: 'html' }).path, 'utf8');
    expect(html).toContain('3 excluded: 1 infrastructure, 1 harness, 1 not run');
    expect(html).toContain('1 model_rejected');
    expect(html).toContain('1 task(s) failed because of coop-bench itself (a bug)');
    expect(html).toContain('2 excluded: 1 infrastructure, 1 pool');
    expect(html).toContain('1 task(s) could not run because their pool is defective (each error names the pool, feature and patch file)');
    expect(html).toContain(`Agent configuration: ${CONFIG.slice(0, 12)}`);
    const comparison = readFileSync(writeComparison({ runsDir, names: ['accounted', 'other-prompts'], format: 'html' }), 'utf8');
    expect(comparison).toContain('The runs used different agent configurations');
  });
});
