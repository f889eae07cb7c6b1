// Belief probes in a run's report: the Beliefs section's rows per model, condition and step, the
// per-task columns of the CSV, the scored probes in the JSON; an agent's answer text stays text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeReport } from '../../../harness/run/write-report.ts';
import { RunStore } from '../../../harness/store/run-store.ts';
import { recordProbe, type ProbeRow } from '../../../harness/store/probes.ts';
import { buildRun, COLLIDING_COOP_TASK } from './helpers/fixture-run.ts';

let runsDir: string;

/** agent1 names the partner's file early (right), agent2 answers prose; the merge was a union (git conflicted). */
const PROBES: ProbeRow[] = [
  {
    agentId: 'agent1',
    model: 'm',
    step: 2,
    status: 'answered',
    answer: '{"files": ["src/x.js", "<b>x</b>.js"], "functions": [], "conflict": true, "confidence": 0.9}',
    belief: { files: ['<b>x</b>.js', 'src/x.js'], functions: [], conflict: true, confidence: 0.9 },
    partnersThen: { files: [], functions: [] },
    usage: { inputTokens: 100, outputTokens: 20, costUsd: 0.002 },
  },
  {
    agentId: 'agent2',
    model: 'm',
    step: 2,
    status: 'unparsable',
    answer: 'no idea <script>alert(1)</script>',
    belief: null,
    partnersThen: { files: ['src/x.js'], functions: [] },
    usage: { inputTokens: 100, outputTokens: 5, costUsd: 0.001 },
  },
];

beforeAll(() => {
  runsDir = mkdtempSync(join(tmpdir(), 'probes-report-'));
  buildRun(runsDir, 'probed', [COLLIDING_COOP_TASK]);
  const store = RunStore.open(runsDir, 'probed', { create: false });
  try {
    for (const p of PROBES) recordProbe(store, 1, p);
  } finally {
    store.close();
  }
});

afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

describe('belief probes in the report', () => {
  it('shows a row per model, condition and step in the Beliefs section, with its plot', () => {
    const html = readFileSync(writeReport({ runsDir, name: 'probed', format: 'html' }).path, 'utf8');
    const section = /<section id="probes">([\s\S]*?)<\/section>/.exec(html)![1]!;
    const cells = [...section.matchAll(/<tr>(<td[\s\S]*?)<\/tr>/g)].map((m) => [...m[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]));
    // Files then: agent1 named 2 of which none touched then (J 0); final: src/x.js of 2 named (J 0.5).
    expect(cells).toEqual([['m', 'Coop', '2', '2', '1', '0', '0.00', '1.00', '0.50', '1.00', '100.0% (1/1)', '0.90', '$0.0030']]);
    expect(section).toContain('<svg class="chart" data-chart="probes"');
    expect(html).not.toContain('<b>x</b>');
    expect(html).not.toContain('<script>alert(1)</script>');
  });

  it('exports each task’s probes in the CSV and the JSON', () => {
    const [header, ...rows] = readFileSync(writeReport({ runsDir, name: 'probed', format: 'csv' }).path, 'utf8')
      .trim()
      .split('\r\n');
    const columns = header!.split(',');
    const cell = (column: string) => rows[0]!.split(',')[columns.indexOf(column)];
    expect(['probes', 'probes_unparsable', 'probe_files_final', 'probe_conflict_right', 'probe_cost_usd'].map(cell)).toEqual(['2', '1', '0.5', '1', '0.003']);
    const json = JSON.parse(readFileSync(writeReport({ runsDir, name: 'probed', format: 'json' }).path, 'utf8'));
    expect(json.tasks[0].probes).toHaveLength(2);
    expect(json.tasks[0].probes[0]).toMatchObject({
      agentId: 'agent1',
      step: 2,
      conflictRight: true,
      final: { files: { precision: 0.5, recall: 1, jaccard: 0.5 } },
    });
    expect(json.summary.probes).toHaveLength(1);
  });
});
