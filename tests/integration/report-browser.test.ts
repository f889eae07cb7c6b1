// Reports of fixture runs in chromium: agent-written payloads stay text, and a 1,000-task report
// opens without freezing (timings are printed, not asserted).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeReport } from '../../harness/run/write-report.ts';
import { buildRun, COLLIDING_COOP_TASK } from '../unit/reports/helpers/fixture-run.ts';
import { PAYLOADS, injectionTasks } from '../unit/reports/helpers/payloads.ts';
import { syntheticTasks } from '../unit/reports/helpers/synthetic-run.ts';
import { openReport, type ReportPage } from '../unit/reports/helpers/browser.ts';
import { RunStore } from '../../harness/store/run-store.ts';
import { recordProbe } from '../../harness/store/probes.ts';

let runsDir: string;

beforeAll(() => {
  runsDir = mkdtempSync(join(tmpdir(), 'report-browser-'));
});

afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

describe('a report whose agents wrote script-injection payloads', () => {
  let report: ReportPage;
  beforeAll(async () => {
    buildRun(runsDir, 'injected', injectionTasks());
    report = await openReport(writeReport({ runsDir, name: 'injected', format: 'html' }).path);
  });
  afterAll(async () => report?.close());

  it('renders every payload as text on the task page and runs none of them', async () => {
    const { page } = report;
    await page.locator('#task-rows a').first().click();
    const task = page.locator('article.task-page');
    await task.waitFor();
    const text = (await task.textContent()) ?? '';
    for (const payload of PAYLOADS) expect(text).toContain(payload.replace('\u2028', ''));
    expect(await task.locator('img, iframe, svg, script, a[href^="javascript"]').count()).toBe(0);
    expect(await task.locator('.event.message').count()).toBe(2);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(report.dialogs).toEqual([]);
  });

  it('shows payloads in the main page as text too', async () => {
    const { page } = report;
    await page.evaluate(() => {
      location.hash = '#overview';
    });
    await page.locator('#report').waitFor();
    expect(await page.locator('#report img, #report iframe, #report script').count()).toBe(0);
    expect(await page.locator('#overview').textContent()).toContain(PAYLOADS[0]);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(report.foreignRequests).toEqual([]);
    expect(report.errors).toEqual([]);
  });
});

describe('a synthetic run of 1,000 tasks', () => {
  it('produces a report that opens without freezing', async () => {
    let t = performance.now();
    buildRun(runsDir, 'large', syntheticTasks(1000));
    const buildMs = performance.now() - t;
    t = performance.now();
    const file = writeReport({ runsDir, name: 'large', format: 'html' }).path;
    const generateMs = performance.now() - t;

    const report = await openReport(file);
    try {
      const { page } = report;
      const loadMs = await page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd);
      expect(await page.locator('#task-rows tr').count()).toBe(1000);
      expect(await page.locator('svg[data-chart="curve-pooled"] circle').count()).toBeGreaterThan(4);
      expect(await page.locator('#retention tbody tr').count()).toBe(3);

      t = performance.now();
      await page.evaluate(() => {
        location.hash = '#task-1000';
      });
      await page.locator('article.task-page[data-task="1000"]').waitFor();
      const taskMs = performance.now() - t;
      expect(await page.locator('table.timeline tbody tr').count()).toBeGreaterThan(20);

      await page.evaluate(() => {
        location.hash = '#tasks';
      });
      t = performance.now();
      await page.locator('#task-filter').fill('weak-model');
      const visible = await page.locator('#task-rows tr:not([hidden])').count();
      const filterMs = performance.now() - t;
      expect(visible).toBe(500);
      expect(report.errors).toEqual([]);
      expect(report.foreignRequests).toEqual([]);

      const mb = (statSync(file).size / 1e6).toFixed(1);
      console.log(
        `1,000-task report: fixture built in ${(buildMs / 1000).toFixed(1)} s, report written in ${(generateMs / 1000).toFixed(1)} s (${mb} MB), ` +
          `page loaded in ${loadMs.toFixed(0)} ms (navigation to load event), a task page rendered in ${taskMs.toFixed(0)} ms, the task filter applied in ${filterMs.toFixed(0)} ms`,
      );
    } finally {
      await report.close();
    }
  });
});

describe('a run under several conditions', () => {
  it('shows a Process row and bars per model and condition', async () => {
    buildRun(runsDir, 'process', [
      COLLIDING_COOP_TASK,
      { models: ['m', 'm'], setting: 'coop', variant: 'visibility-diff', taskId: 2, passed: false, edits: [{ agent: 0, path: 'src/x.js', text: 'new\n' }] },
    ]);
    const report = await openReport(writeReport({ runsDir, name: 'process', format: 'html' }).path);
    try {
      const { page } = report;
      await page.locator('header nav a[href="#process"]').click();
      const rows = page.locator('#process table.process tbody tr');
      expect(await rows.count()).toBe(2);
      expect(await rows.nth(0).locator('td').allTextContents()).toEqual([
        'm',
        'Coop',
        '1',
        '50.0% (1/2)',
        // The fixture's messages were stored without send_message steps; each agent edits after 3 calls.
        '–',
        '3',
        'agent1: 1',
        '50.0% (1/2)',
        '2 s',
        '100.0% (1/1)',
        '7 s',
      ]);
      expect(await rows.nth(1).locator('td').nth(1).textContent()).toBe('Coop visibility-diff');
      expect(await page.locator('svg[data-chart="process"] g.bar').count()).toBe(5);
      expect(await page.locator('#process').isVisible()).toBe(true);
      expect(report.errors).toEqual([]);
    } finally {
      await report.close();
    }
  });
});

describe('a run with belief probes', () => {
  it('shows a Beliefs row per model, condition and step, and a line over the steps', async () => {
    buildRun(runsDir, 'probes', [COLLIDING_COOP_TASK]);
    const store = RunStore.open(runsDir, 'probes', { create: false });
    try {
      for (const step of [2, 4]) {
        recordProbe(store, 1, {
          agentId: 'agent1',
          model: 'm',
          step,
          status: 'answered',
          answer: '{}',
          belief: { files: step === 2 ? ['<img src=x onerror=alert(1)>'] : ['src/x.js'], functions: [], conflict: true, confidence: 0.5 },
          partnersThen: { files: ['src/x.js'], functions: [] },
          usage: { inputTokens: 10, outputTokens: 5, costUsd: 0 },
        });
      }
    } finally {
      store.close();
    }
    const report = await openReport(writeReport({ runsDir, name: 'probes', format: 'html' }).path);
    try {
      const { page } = report;
      await page.locator('header nav a[href="#probes"]').click();
      const rows = page.locator('#probes table.probes tbody tr');
      expect(await rows.count()).toBe(2);
      expect((await rows.nth(0).locator('td').allTextContents()).slice(0, 7)).toEqual(['m', 'Coop', '2', '1', '0', '0', '0.00']);
      expect((await rows.nth(1).locator('td').allTextContents()).slice(0, 7)).toEqual(['m', 'Coop', '4', '1', '0', '0', '1.00']);
      expect(await page.locator('svg[data-chart="probes"] g.point').count()).toBe(2);
      expect(await page.locator('svg[data-chart="probes"] polyline').count()).toBe(1);
      expect(await page.locator('#probes').isVisible()).toBe(true);
      expect(report.errors).toEqual([]);
      expect(report.dialogs).toEqual([]);
    } finally {
      await report.close();
    }
  });
});
