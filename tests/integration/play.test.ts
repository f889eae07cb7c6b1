// `coop-bench play` driven as a person would drive it: a real headless Chromium on the page, a
// shell in a real container typed into, a chat with a scripted partner model (the fake OpenAI
// server through the real SDK), the finish button, then the stored run, merged patch, hidden tests'
// verdicts and the report's human-seat mark.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CLI, containersOf, queryRun, tempDir } from '../helpers/cli.ts';
import { actionReply, implement, nextAction, taskPrompt, transcript, type Action } from '../helpers/scripted-agents.ts';
import { startFakeOpenAI, type FakeOpenAIServer, type RecordedRequest } from '../fakes/openai-server.ts';
import { CHROMIUM, CHROMIUM_FLAGS, openReport } from '../unit/reports/helpers/browser.ts';
import { loadPool } from '../../tasks/pools.ts';
import { SHIPPED_POOLS, PROJECT_ROOT } from '../../harness/paths.ts';

const pool = loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1'));
const runs = tempDir('play-runs');
const RUN = 'play-test';
const PERSON_SAYS = 'agent1 here (a person): I am adding inline --name=value options in src/parser.js';
const ARTIFACTS = join(PROJECT_ROOT, 'tests/.artifacts');
const WAIT: Action = { name: 'bash', input: { command: 'sleep 2 # waiting for the person' } };

/**
 * The partner (agent2): implements its feature's gold patch, waits for the person's message, answers
 * it quoting what it heard, and finishes.
 */
function partner(): (request: RecordedRequest) => ReturnType<typeof actionReply> {
  let replied = false;
  return (request) => {
    const action = nextAction([...implement(pool, taskPrompt(request)), WAIT], request);
    const heard = /\[Message from agent1\]: ([^\n]*)/.exec(transcript(request))?.[1];
    if (action !== WAIT || !heard) return actionReply('openai', action);
    if (replied) return actionReply('openai', { name: 'finish', input: { summary: 'feature 3 done' } });
    replied = true;
    return actionReply('openai', {
      name: 'send_message',
      input: { to: 'agent1', message: `agent2 here: read you ("${heard.slice(0, 40)}"); feature 3 is done` },
    });
  };
}

let openai: FakeOpenAIServer;
let browser: Browser;

beforeAll(async () => {
  openai = await startFakeOpenAI({ handler: partner() });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
});

afterAll(async () => {
  await browser?.close();
  await openai?.close();
});

/** The terminal's visible text. */
const screen = (page: Page) => page.locator('.xterm-rows').innerText();

/**
 * Starts `coop-bench play` on argkit features 1 and 3 with `seatArgs` (`--seat ... --partner ...`);
 * resolves once it printed a URL for each of `people`, with a page open on each.
 */
async function startPlay(run: string, seatArgs: string[], people = 1) {
  const session = {
    output: '',
    process: execa('node', [CLI, 'play', '--task', '1', '--pool', 'argkit_task', '--features', '1,3', ...seatArgs, '--name', run, '--runs-dir', runs], {
      reject: false,
      all: true,
      cwd: PROJECT_ROOT,
      env: { OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: 'sk-test-play-5e1d' },
      timeout: 1_200_000,
    }),
  };
  const urls = await new Promise<string[]>((resolve, reject) => {
    session.process.all!.on('data', (chunk: Buffer) => {
      session.output += chunk.toString();
      const found = [...session.output.matchAll(/open (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/g)].map((m) => m[1]!);
      if (found.length === people) resolve(found);
    });
    void session.process.then(() => reject(new Error(`play ended before printing its URLs:\n${session.output}`)));
  });
  const pages = await Promise.all(
    urls.map(async (url) => {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(url);
      return page;
    }),
  );
  return Object.assign(session, { page: pages[0]!, pages });
}

describe('coop-bench play --seat 1 --partner gpt-5', () => {
  let session: Awaited<ReturnType<typeof startPlay>>;
  let page: Page;

  beforeAll(async () => {
    session = await startPlay(RUN, ['--seat', '1', '--partner', 'gpt-5']);
    page = session.page;
  });

  afterAll(async () => {
    session?.process.kill('SIGINT');
    await session?.process;
  });

  it('serves the page: the feature, a shell in the container, the chat', async () => {
    await page.locator('#state.working').waitFor({ timeout: 600_000 });
    expect(await page.locator('#features').innerText()).toContain(
      pool.features
        .find((f) => f.id === 1)!
        .description.trim()
        .split('\n')[0],
    );
    await page.locator('#terminal').click();
    await page.keyboard.type('set +H; hostname; ls /workspace/repo\n');
    await expect.poll(() => screen(page), { timeout: 60_000 }).toContain('package.json');
  });

  it("applies the seat's gold patch typed into the terminal", async () => {
    const patch = readFileSync(pool.features.find((f) => f.id === 1)!.patchPath, 'utf8');
    await page.keyboard.type(`cat > /tmp/mine.patch <<'PATCH_END'\n${patch}PATCH_END\n`);
    await page.keyboard.type('git apply /tmp/mine.patch && rm /tmp/mine.patch && echo APPLIED-$((6*7))\n');
    await expect.poll(() => screen(page), { timeout: 60_000 }).toContain('APPLIED-42');
  });

  it("sends a message and reads the partner's reply", async () => {
    await page.locator('#message').fill(PERSON_SAYS);
    await page.locator('#send').click();
    await expect.poll(() => page.locator('#chat li.mine').innerText()).toContain(PERSON_SAYS);
    await page.locator('#chat li.theirs', { hasText: 'agent2 here: read you' }).waitFor({ timeout: 300_000 });
  });

  it('resumes after a reload: the terminal reattaches and the chat history is shown', async () => {
    await page.reload();
    await page.locator('#state.working').waitFor();
    await expect.poll(() => page.locator('#chat').innerText()).toContain(PERSON_SAYS);
    expect(await page.locator('#chat').innerText()).toContain('agent2 here: read you');
    await expect.poll(() => screen(page)).toContain('APPLIED-42');
    await page.locator('#terminal').click();
    await page.keyboard.type('git status --short\n');
    await expect.poll(() => screen(page)).toContain('M src/parser.js');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'play.png') });
  });

  it('finishes: the run is stored, merged, tested and judged like an agent run', async () => {
    await page.locator('#finish').click();
    await page.locator('#state.finished').waitFor();
    const done = await session.process;
    expect(done.exitCode, session.output).toBe(0);
    const agents = queryRun<{ agent: string; model: string; seat: string; active_ms: number | null; patch: string }>(
      runs,
      RUN,
      'SELECT agent, model, seat, active_ms, patch FROM agents ORDER BY agent',
    );
    expect(agents.map((a) => [a.agent, a.model, a.seat])).toEqual([
      ['agent1', 'human', 'human'],
      ['agent2', 'gpt-5', 'model'],
    ]);
    expect(agents[0]!.active_ms).toBeGreaterThan(0);
    expect(agents[1]!.active_ms).toBeNull();
    expect(agents[0]!.patch).toContain('diff --git a/src/parser.js');
    const [task] = queryRun<{ status: string; both_passed: number; models: string }>(runs, RUN, 'SELECT status, both_passed, models FROM tasks');
    expect(task).toEqual({ status: 'done', both_passed: 1, models: JSON.stringify(['human', 'gpt-5']) });
    const [merge] = queryRun<{ status: string; patch: string }>(runs, RUN, 'SELECT status, patch FROM merges');
    expect(merge!.patch).toContain('src/parser.js');
    const verdicts = queryRun<{ feature: number; passed: number }>(runs, RUN, 'SELECT feature, passed FROM evaluations ORDER BY feature');
    expect(verdicts).toEqual([
      { feature: 1, passed: 1 },
      { feature: 3, passed: 1 },
    ]);
    const messages = queryRun<{ sender: string; body: string }>(runs, RUN, 'SELECT sender, body FROM messages ORDER BY id');
    expect(messages.map((m) => m.sender)).toEqual(['agent1', 'agent2']);
    expect(messages[0]!.body).toBe(PERSON_SAYS);
    const typed = queryRun<{ input: string }>(runs, RUN, "SELECT input FROM steps WHERE agent = 'agent1' AND name = 'terminal'");
    expect(typed.map((s) => s.input)).toContain('git apply /tmp/mine.patch && rm /tmp/mine.patch && echo APPLIED-$((6*7))');
    expect(queryRun(runs, RUN, 'SELECT * FROM judge_runs').length).toBeGreaterThan(0);
    expect(await containersOf(RUN)).toEqual([]);
  });

  it("marks the person's seat in the report", async () => {
    const path = /report: (.*\.html)/.exec(session.output)?.[1];
    expect(path, session.output).toBeDefined();
    const report = await openReport(path!);
    try {
      await report.page.locator('#task-rows a').first().click();
      const agentsTable = report.page.locator('article.task-page');
      await agentsTable.waitFor();
      expect(await agentsTable.innerText()).toMatch(/agent1\s+person \(active \d+m \d+s\)\s+human/);
      expect(await agentsTable.innerText()).toMatch(/agent2\s+model\s+gpt-5/);
    } finally {
      await report.close();
    }
  });
});

describe('Ctrl-C on coop-bench play', () => {
  it('stores what the person did so far, marks the task interrupted and removes the containers', async () => {
    const run = 'play-interrupted';
    const session = await startPlay(run, ['--seat', '1', '--partner', 'noop']);
    const { page } = session;
    await page.locator('#state.working').waitFor({ timeout: 600_000 });
    await page.locator('#terminal').click();
    await page.keyboard.type('echo started-$((2+3))\n');
    await expect.poll(() => screen(page), { timeout: 60_000 }).toContain('started-5');
    session.process.kill('SIGINT');
    const done = await session.process;
    expect(done.exitCode, session.output).toBe(130);
    expect(queryRun(runs, run, 'SELECT status, error_kind FROM tasks')).toEqual([{ status: 'interrupted', error_kind: 'interrupted' }]);
    const steps = queryRun<{ name: string; input: string | null }>(runs, run, "SELECT name, input FROM steps WHERE agent = 'agent1' ORDER BY idx");
    expect(steps.map((s) => s.input)).toContain('echo started-$((2+3))');
    expect(steps.map((s) => s.name)).toContain('active_time');
    expect(await containersOf(run)).toEqual([]);
    await page.close();
  });
});

describe('coop-bench play --seat 1,2', () => {
  it('gives each person a page of their own seat and stores both seats as human', async () => {
    const run = 'play-two-people';
    const session = await startPlay(run, ['--seat', '1,2'], 2);
    for (const [i, page] of session.pages.entries()) {
      await page.locator('#state.working').waitFor({ timeout: 600_000 });
      expect(await page.locator('#seat').innerText()).toBe(`you are agent${i + 1}`);
    }
    await session.pages[1]!.locator('#message').fill('agent2 here, a person too');
    await session.pages[1]!.locator('#send').click();
    await session.pages[0]!.locator('#chat li.theirs', { hasText: 'agent2 here, a person too' }).waitFor();
    for (const page of session.pages) await page.locator('#finish').click();
    const done = await session.process;
    expect(done.exitCode, session.output).toBe(0);
    const agents = queryRun<{ agent: string; seat: string; patch: string }>(runs, run, 'SELECT agent, seat, patch FROM agents ORDER BY agent');
    expect(agents).toEqual([
      { agent: 'agent1', seat: 'human', patch: '' },
      { agent: 'agent2', seat: 'human', patch: '' },
    ]);
    expect(queryRun(runs, run, 'SELECT status, both_passed, models FROM tasks')).toEqual([
      { status: 'done', both_passed: 0, models: JSON.stringify(['human', 'human']) },
    ]);
    await Promise.all(session.pages.map((p) => p.close()));
  });
});
