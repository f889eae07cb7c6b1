// The process measures and the run conditions in a run's report: a row per model and condition in
// the HTML, per-task columns in the CSV, the per-task measures in the JSON.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeReport } from '../../../harness/run/write-report.ts';
import { buildRun, COLLIDING_COOP_TASK } from './helpers/fixture-run.ts';

let runsDir: string;

beforeAll(() => {
  runsDir = mkdtempSync(join(tmpdir(), 'process-report-'));
  buildRun(runsDir, 'conditions', [
    COLLIDING_COOP_TASK,
    { models: ['m', 'm'], setting: 'coop', variant: 'bandwidth-2x100+latency-5s', taskId: 2, passed: false },
  ]);
});

afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

describe('process measures in the report', () => {
  it('shows a row per model and condition in the Process section', () => {
    const html = readFileSync(writeReport({ runsDir, name: 'conditions', format: 'html' }).path, 'utf8');
    const section = /<section id="process">([\s\S]*?)<\/section>/.exec(html)![1]!;
    const rows = [...section.matchAll(/<tr><td>(.*?)<\/td><td>(.*?)<\/td><td class="num">(\d+)<\/td><td class="num">(.*?)<\/td>/g)].map((m) => m.slice(1));
    expect(rows).toEqual([
      ['m', 'Coop', '1', '50.0% (1/2)'],
      ['m', 'Coop bandwidth-2x100+latency-5s', '1', '–'],
    ]);
    expect(section).toContain('<svg class="chart" data-chart="process"');
    expect(section).toContain('<td>agent1: 1</td>');
  });

  it('exports each task’s measures in the CSV and the JSON', () => {
    const [header, ...rows] = readFileSync(writeReport({ runsDir, name: 'conditions', format: 'csv' }).path, 'utf8')
      .trim()
      .split('\r\n');
    const columns = header!.split(',');
    const cell = (row: number, column: string) => rows[row]!.split(',')[columns.indexOf(column)];
    expect(['edit_efficiency', 'first_message_by', 'reply_share', 'first_collision_s', 'condition'].map((c) => cell(0, c))).toEqual([
      '1 0',
      'agent1',
      '0.5',
      '7',
      'Coop',
    ]);
    expect(cell(1, 'condition')).toBe('Coop bandwidth-2x100+latency-5s');
    const json = JSON.parse(readFileSync(writeReport({ runsDir, name: 'conditions', format: 'json' }).path, 'utf8'));
    expect(json.tasks[0].process).toMatchObject({ firstMessageBy: 'agent1', sharedFiles: ['src/x.js'], deliveries: 2, answered: 1 });
    expect(json.summary.process).toHaveLength(2);
  });
});
