// Debian's chromium driven by playwright-core (no browser download). The executable and its flags
// can be changed through COOP_BENCH_CHROMIUM and COOP_BENCH_CHROMIUM_FLAGS.
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const CHROMIUM = process.env.COOP_BENCH_CHROMIUM ?? '/usr/bin/chromium';

// Without the background-networking flags chromium keeps calling home on a machine with no network.
const DEFAULT_FLAGS =
  '--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync';

export const CHROMIUM_FLAGS = (process.env.COOP_BENCH_CHROMIUM_FLAGS ?? DEFAULT_FLAGS).split(/\s+/).filter(Boolean);

export interface ReportPage {
  page: Page;
  /** Requests to anything but the report file itself (all blocked). */
  foreignRequests: string[];
  /** Console errors (e.g. content security policy violations) and uncaught page errors. */
  errors: string[];
  /** Dialogs the page tried to open (alert, confirm, ...), dismissed. */
  dialogs: string[];
  close(): Promise<void>;
}

/** Opens `file` in a fresh browser profile, blocking and recording every request not to the file. */
export async function openReport(file: string): Promise<ReportPage> {
  const profile = mkdtempSync(join(tmpdir(), 'report-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: CHROMIUM_FLAGS,
    headless: true,
    viewport: { width: 1280, height: 1000 },
  });
  const url = pathToFileURL(file).href;
  const foreignRequests: string[] = [];
  const errors: string[] = [];
  const dialogs: string[] = [];
  await context.route('**/*', (route) => {
    const requested = route.request().url();
    if (requested.split('#')[0] === url) return route.continue();
    foreignRequests.push(requested);
    return route.abort();
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('request', (r) => {
    if (r.url().split('#')[0] !== url) foreignRequests.push(r.url());
  });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(url, { waitUntil: 'load' });
  return {
    page,
    foreignRequests,
    errors,
    dialogs,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
