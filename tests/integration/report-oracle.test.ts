// The report of a real oracle run (Docker): written by `coop-bench report`, opened in chromium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reportCommand } from '../../harness/commands/report.ts';
import { PROJECT_ROOT } from '../../harness/paths.ts';
import { openReport, type ReportPage } from '../unit/reports/helpers/browser.ts';
import { uniqueRun } from '../helpers/run-db.ts';

const ARTIFACTS = join(PROJECT_ROOT, 'tests/.artifacts');
/** Its own run name: another suite on the same engine does not see its containers. */
const RUN = uniqueRun('oracle');
let runsDir: string;
let reportFile: string;

beforeAll(async () => {
  runsDir = mkdtempSync(join(tmpdir(), 'report-oracle-'));
  execFileSync(
    process.execPath,
    [join(PROJECT_ROOT, 'bin/coop-bench.js'), 'run', '--models', 'oracle', '--pool', 'argkit_task', '--features', '1,2', '--name', RUN, '--runs-dir', runsDir],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  reportFile = join(runsDir, 'oracle-report.html');
  await reportCommand().parseAsync(['--name', RUN, '--runs-dir', runsDir, '--out', reportFile], { from: 'user' });
});

afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

describe('report of an oracle run', () => {
  it('shows Solo at 100% (the infrastructure check) and the Coop rate the store holds', () => {
    const html = readFileSync(reportFile, 'utf8');
    expect(html).toContain('100.0% (1/1)');
    expect(html).toMatch(/<td>oracle<\/td><td>Coop<\/td><td class="num">1\/1<\/td>/);
    expect(html).toContain('data-chart="headline"');
    expect(html).toContain('data-chart="curve-oracle"');
  });

  it('exports JSON and CSV through the command', async () => {
    await reportCommand().parseAsync([RUN, '--runs-dir', runsDir, '--format', 'json'], { from: 'user' });
    const json = JSON.parse(readFileSync(join(runsDir, RUN, 'report.json'), 'utf8'));
    expect(json.tasks.map((t: { condition: string }) => t.condition).sort()).toEqual(['Coop', 'Solo']);
    await reportCommand().parseAsync(['--name', RUN, '--runs-dir', runsDir, '--format', 'csv'], { from: 'user' });
    expect(readFileSync(join(runsDir, RUN, 'report.csv'), 'utf8').split('\r\n')).toHaveLength(4);
  });

  it('rejects a missing run name and an unknown run with one-line errors', async () => {
    await expect(reportCommand().parseAsync(['--runs-dir', runsDir], { from: 'user' })).rejects.toThrow(/which run/);
    await expect(reportCommand().parseAsync(['--name', 'nope', '--runs-dir', runsDir], { from: 'user' })).rejects.toThrow(/no run named "nope"/);
  });
});

describe('the oracle report in chromium', () => {
  let report: ReportPage;
  beforeAll(async () => {
    report = await openReport(reportFile);
  });
  afterAll(async () => report?.close());

  it('draws the main figures with real numbers', async () => {
    const { page } = report;
    expect(await page.locator('svg[data-chart="headline"] g.bar').count()).toBe(2);
    expect(await page.locator('svg[data-chart="headline"] g.bar[data-series="Solo"] text.value').textContent()).toBe('100.0% (1/1)');
    expect(await page.locator('svg[data-chart="curve-oracle"] circle').count()).toBe(2);
    // One pair is one point on each curve: no area under Algorithm 1's plain trapezoids, so no retention.
    expect(await page.locator('#retention tbody tr').first().textContent()).toBe('oracle1100.0000.0000.000–0');
    expect(await page.locator('#merges tbody tr').count()).toBe(1);
    for (const id of ['communication', 'errors', 'cost', 'tasks']) await expect(page.locator(`#${id} h2`).isVisible()).resolves.toBe(true);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'report.png') });
  });

  it('opens a task page with both agents on one timeline, patches, merged diff and test output', async () => {
    const { page } = report;
    await page.locator('#task-rows a').first().click();
    const task = page.locator('article.task-page');
    await task.waitFor();
    expect(await page.locator('#report').isHidden()).toBe(true);
    expect(await task.locator('table.timeline thead th').allTextContents()).toEqual(['time', 'agent1', 'agent2']);
    // The oracle's patch is made on this machine: each agent's trajectory is one note saying so.
    const rows = task.locator('table.timeline tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.first().textContent()).toMatch(/gold patch/);
    expect(await task.locator('pre.diff').count()).toBe(3);
    expect(await task.locator('h3.pass, h3.fail').count()).toBe(2);
    expect(await task.textContent()).toContain('No judge labels for this task');
    await page.screenshot({ path: join(ARTIFACTS, 'report-task.png'), fullPage: true });
    await page.locator('a[href="#tasks"]').first().click();
    await page.locator('#report').waitFor();
  });

  it('fetched nothing and logged no errors', () => {
    expect(report.foreignRequests).toEqual([]);
    expect(report.errors).toEqual([]);
  });
});
