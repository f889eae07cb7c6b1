import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeComparison, writeReport } from '../../../../harness/run/write-report.ts';
import { escapeHtml, jsonForScript } from '../../../../reports/html/escape.ts';
import { csvField } from '../../../../reports/export.ts';
import { withMeasurements } from '../../../../judges/calibration/model-scores.ts';
import { loadReadings, RUN_READINGS, saveReadings } from '../../../../judges/calibration/readings.ts';
import { buildRun } from '../helpers/fixture-run.ts';
import { PAYLOAD, PAYLOADS, injectionTasks } from '../helpers/payloads.ts';

let runsDir: string;

beforeAll(() => {
  runsDir = mkdtempSync(join(tmpdir(), 'report-html-'));
  buildRun(runsDir, 'injected', injectionTasks());
  buildRun(runsDir, 'coop-only', [
    { models: ['m', 'm'], setting: 'coop', passed: true },
    { models: ['m', 'm'], setting: 'coop', taskId: 2, status: 'pending' },
  ]);
  buildRun(runsDir, 'initiative', [
    {
      models: ['human', 'claude'],
      people: [0],
      setting: 'coop',
      passed: true,
      messages: [
        { from: 'agent1', to: 'agent2', body: 'I take the parser; you take `cli.py`.' },
        { from: 'agent2', to: 'agent1', body: 'OK, `cli.py` is mine.' },
        { from: 'agent1', to: 'agent2', body: 'Which flag name do you use?' },
        { from: 'agent2', to: 'agent1', body: 'thanks' },
      ],
      labels: [
        { judge: 'initiative', label: 'initiative', messageIndex: 0, agent: 'agent1' },
        { judge: 'initiative', label: 'initiative', messageIndex: 1, agent: 'agent2' },
        { judge: 'initiative', label: 'initiative', messageIndex: 2, agent: 'agent1' },
        { judge: 'initiative', label: 'no_initiative', messageIndex: 3, agent: 'agent2' },
      ],
    },
    {
      models: [PAYLOADS[0]!, PAYLOADS[0]!],
      setting: 'coop',
      taskId: 2,
      passed: false,
      labelModel: 'deterministic',
      messages: [
        { from: 'agent1', to: 'agent2', body: 'I take `x.py`.' },
        { from: 'agent2', to: 'agent1', body: 'Maybe later.' },
      ],
      labels: [
        { judge: 'initiative', label: 'initiative', messageIndex: 0, agent: 'agent1' },
        { judge: 'initiative', label: 'undecided:initiative', messageIndex: 1, agent: 'agent2' },
      ],
    },
  ]);
  buildRun(runsDir, 'cached', [
    { models: ['m', 'm'], setting: 'coop', passed: true, cachedFeatures: [1, 2] },
    { models: ['m', 'm'], setting: 'coop', taskId: 2, passed: false, cachedFeatures: [2] },
    { models: ['m', 'm'], setting: 'coop', taskId: 3, passed: true },
  ]);
});

describe('results from the test cache', () => {
  it('are counted in the overview and marked in the task list and on the task pages', () => {
    const html = readFileSync(writeReport({ runsDir, name: 'cached', format: 'html' }).path, 'utf8');
    expect(html).toContain('<p id="test-cache">Tests: 3 of 6 evaluations from the test cache (marked &quot;cached&quot;');
    expect(html.match(/<span class="cached"[^>]*>cached[^<]*<\/span>/g)).toEqual([
      '<span class="cached" title="2 of 2 test results from the test cache">cached</span>',
      '<span class="cached" title="1 of 2 test results from the test cache">cached 1/2</span>',
    ]);
    // The task pages' data: which feature's result was cached.
    expect(html).toMatch(/"feature":2,"passed":false,[^}]*"cached":true/);
  });

  it('are counted per task in the CSV export and in the JSON summary', () => {
    const rows = readFileSync(writeReport({ runsDir, name: 'cached', format: 'csv' }).path, 'utf8')
      .trim()
      .split('\r\n');
    const column = rows[0]!.split(',').indexOf('tests_cached');
    expect(rows.slice(1).map((row) => row.split(',')[column])).toEqual(['2', '1', '0']);
    const json = JSON.parse(readFileSync(writeReport({ runsDir, name: 'cached', format: 'json' }).path, 'utf8'));
    expect(json.summary.testCache).toEqual({ total: 6, cached: 3 });
  });
});

afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

const scriptBlocks = (html: string) => [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => ({ attributes: m[1], body: m[2] }));

describe('escaping', () => {
  it('escapes markup characters in text and attributes', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('keeps JSON for script blocks free of <, > and & while round-tripping', () => {
    const value = { text: PAYLOAD };
    const json = jsonForScript(value);
    expect(json).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(json)).toEqual(value);
  });

  it('neutralises spreadsheet formulas in CSV text', () => {
    expect(csvField('=1+1')).toBe("'=1+1");
    expect(csvField('a,"b"')).toBe('"a,""b"""');
    expect(csvField(-1)).toBe('-1');
    expect(csvField(null)).toBe('');
  });
});

describe('HTML report of a run whose agents wrote script-injection payloads', () => {
  let html: string;
  beforeAll(() => {
    html = readFileSync(writeReport({ runsDir, name: 'injected', format: 'html' }).path, 'utf8');
  });

  it('contains exactly one executable script, allowed by its hash in the content security policy', () => {
    const blocks = scriptBlocks(html);
    const executable = blocks.filter((b) => !b.attributes.includes('type="application/json"'));
    expect(executable).toHaveLength(1);
    expect(executable[0].attributes).toBe('');
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1];
    expect(policy).toContain("default-src 'none'");
    const hash = createHash('sha256').update(executable[0].body).digest('base64');
    expect(policy).toContain(`script-src 'sha256-${hash}'`);
  });

  it('embeds each task as inert JSON that restores the payloads exactly', () => {
    const data = scriptBlocks(html).filter((b) => b.attributes.includes('type="application/json"'));
    expect(data).toHaveLength(3);
    for (const b of data) expect(b.body).not.toMatch(/[<>]/);
    const coop = JSON.parse(data[0].body);
    expect(coop.timeline.filter((e: { type: string }) => e.type === 'message').map((e: { text: string }) => e.text)).toEqual([
      `I will edit src/x.js lines 1-9 ${PAYLOAD}`,
      `OK ${PAYLOAD}`,
    ]);
    expect(coop.evaluations[0].output).toBe(PAYLOAD);
    expect(coop.labels.find((l: { judge: string }) => l.judge === 'communication').evidence[0]).toBe(PAYLOAD);
  });

  it('shows agent and model text in the page only escaped', () => {
    const outsideData = html.replace(/<script type="application\/json"[\s\S]*?<\/script>/g, '');
    expect(outsideData).not.toMatch(/<(img|iframe|a href="javascript)/);
    expect(outsideData).not.toContain('onerror="');
    expect(outsideData).not.toContain('<svg onload');
    expect(outsideData).toContain(escapeHtml('<script>window.__pwned = 1</script>'));
  });

  it('requests nothing from the network', () => {
    const urls = [...html.matchAll(/\b(?:src|href|action|xlink:href)\s*=\s*"([^"]*)"/g)].map((m) => m[1]);
    expect(urls.every((u) => u.startsWith('#'))).toBe(true);
    expect(html.replace('http://www.w3.org/2000/svg', '')).not.toMatch(/(?:src|href)="https?:/);
  });

  it('fills every section', () => {
    for (const id of ['overview', 'headline', 'difficulty', 'retention', 'merges', 'communication', 'errors', 'process', 'initiative', 'cost', 'tasks'])
      expect(html).toContain(`<section id="${id}">`);
    expect(html).toContain('data-chart="headline"');
    expect(html).toContain('data-chart="overhead"');
    expect(html).toContain('$0.0120');
  });
});

describe('initiative balance', () => {
  it("shows each seat's share with people's seats marked, the entropy, and why a team is unmeasured, escaped", () => {
    const html = readFileSync(writeReport({ runsDir, name: 'initiative', format: 'html' }).path, 'utf8');
    expect(html).toContain('<section id="initiative">');
    // agent1 (a person) took 2 of the 3 initiative-taking messages: H = -(2/3 log2 2/3 + 1/3 log2 1/3) = 0.918.
    expect(html).toContain('agent1 (person): 67% (2/2); agent2 (claude): 33% (1/2)');
    expect(html).toMatch(/<td>human\+claude<\/td><td class="num">1<\/td><td class="num">1<\/td><td class="num">0\.918<\/td><td class="num">67%<\/td>/);
    expect(html).toContain('needs a judge model (--judge-model): the fallback is unsure of 1 of 2 messages');
    expect(html).not.toContain(PAYLOADS[0]);
    expect(html).toContain(escapeHtml(PAYLOADS[0]!));
  });

  it('exports the shares, seat kinds and entropy per task in the CSV and the JSON summary', () => {
    const rows = readFileSync(writeReport({ runsDir, name: 'initiative', format: 'csv' }).path, 'utf8')
      .trim()
      .split('\r\n');
    const header = rows[0]!.split(',');
    const cell = (row: number, column: string) => rows[row]!.split(',')[header.indexOf(column)];
    expect(['seats', 'initiative_share', 'initiative_labelled_by'].map((c) => cell(1, c))).toEqual(['human model', '0.667 0.333', 'judge-model']);
    expect(Number(cell(1, 'initiative_entropy'))).toBeCloseTo(initiativeEntropyOf(2, 1), 10);
    expect(cell(2, 'initiative_entropy')).toBe('');
    const json = JSON.parse(readFileSync(writeReport({ runsDir, name: 'initiative', format: 'json' }).path, 'utf8'));
    expect(json.summary.initiative.seats).toEqual([
      { kind: 'human', model: 'human', seats: 1, meanShare: 2 / 3 },
      { kind: 'model', model: 'claude', seats: 1, meanShare: 1 / 3 },
    ]);
  });
});

/** -(p log2 p + q log2 q) for counts a and b. */
function initiativeEntropyOf(a: number, b: number): number {
  const [p, q] = [a / (a + b), b / (a + b)];
  return -(p * Math.log2(p) + q * Math.log2(q));
}

describe('a partial run (Coop only, no judges, no messages, unfinished tasks)', () => {
  it('says what is missing instead of breaking', () => {
    const html = readFileSync(writeReport({ runsDir, name: 'coop-only', format: 'html' }).path, 'utf8');
    expect(html).toContain('No Solo results');
    expect(html).toContain('Difficulty curves need');
    expect(html).toContain('No judge labels');
    expect(html).toContain('No communication-error labels');
    expect(html).toContain('No Coop runs without messaging');
    expect(html).toContain('1 task(s) did not finish');
  });
});

describe("the LLM judges' calibration", () => {
  it("shows the judge model's precision and recall beside its labels once that model was measured, and says how to measure it before", () => {
    const dir = mkdtempSync(join(tmpdir(), 'report-trust-'));
    try {
      buildRun(dir, 'judged', [
        {
          models: ['m', 'm'],
          setting: 'coop',
          passed: false,
          messages: [{ from: 'agent1', to: 'agent2', body: 'Which line is yours?' }],
          labels: [
            { judge: 'communication', label: 'C1a' },
            { judge: 'symptoms', label: 'work_overlap', isPrimary: true },
            { judge: 'speech_acts', label: 'question', messageIndex: 0 },
          ],
        },
      ]);
      const html = () => readFileSync(writeReport({ runsDir: dir, name: 'judged', format: 'html' }).path, 'utf8');
      expect(html()).toContain('No calibration figures of the communication judge\u2019s model are stored');
      expect(html()).toContain('No calibration figures of the symptoms judge\u2019s model are stored');
      const row = (judge: string, label: string, tp: number, fp: number, fn: number) => ({ judge, label, tp, fp, fn });
      // The figures scored from the judge model's readings, in the readings folder of the runs folder.
      const readings = loadReadings(join(dir, RUN_READINGS), 'judge-model');
      readings.scores = withMeasurements([], 'judge-model', {
        train: { cases: 9, labels: [] },
        test: {
          cases: 150,
          labels: [row('communication', 'C1a', 3, 1, 2), row('symptoms', 'work_overlap', 4, 0, 1), row('speech_acts', 'question', 30, 3, 0)],
        },
      });
      saveReadings(readings);
      const report = html();
      for (const judge of ['communication', 'symptoms', 'speech-act'])
        expect(report).toContain(`the ${judge} judge\u2019s model (judge-model) on the 150 held-out calibration conversations`);
      expect(report).toMatch(/<td>C1a<\/td><td class="num">0\.75 \(3\/4\)<\/td><td class="num">0\.60 \(3\/5\)<\/td>/);
      expect(report).toMatch(/<td>Work overlap<\/td>.*<td class="num">1\.00 \(4\/4\)<\/td><td class="num">0\.80 \(4\/5\)<\/td>/);
      expect(report).toMatch(/<td>question<\/td><td class="num">0\.91 \(30\/33\)<\/td>/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('exports and comparison', () => {
  it('writes the summary and every task as JSON', () => {
    const json = JSON.parse(readFileSync(writeReport({ runsDir, name: 'injected', format: 'json' }).path, 'utf8'));
    expect(json.summary.headline.teams.map((t: { team: string }) => t.team)).toContain('gpt-5');
    expect(json.tasks).toHaveLength(3);
    expect(json.tasks[0].difficulty).toBe(0);
  });

  it('writes one CSV row per task', () => {
    const rows = readFileSync(writeReport({ runsDir, name: 'injected', format: 'csv', out: join(runsDir, 'tasks.csv') }).path, 'utf8')
      .trim()
      .split('\r\n');
    expect(rows[0]).toMatch(/^id,key,model,condition/);
    expect(rows.length).toBeGreaterThan(3);
  });

  it('compares two runs in every format', () => {
    const html = readFileSync(writeComparison({ runsDir, names: ['injected', 'coop-only'], format: 'html' }), 'utf8');
    expect(html).toContain('injected');
    expect(html).toContain('<td>Coop</td>');
    const csv = readFileSync(writeComparison({ runsDir, names: ['injected', 'coop-only'], format: 'csv' }), 'utf8');
    expect(csv.split('\r\n')[0]).toContain('difference_low');
    const json = JSON.parse(readFileSync(writeComparison({ runsDir, names: ['injected', 'coop-only'], format: 'json' }), 'utf8'));
    expect(json.runs).toEqual(['injected', 'coop-only']);
  });

  it('refuses a comparison of other than two runs', () => {
    expect(() => writeComparison({ runsDir, names: ['injected'], format: 'html' })).toThrow(/two runs/);
  });
});
