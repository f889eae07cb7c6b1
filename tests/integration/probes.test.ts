// Belief probes end to end: scripted agents on the fake OpenAI server work in real containers with
// --probe every=2. agent1 answers the probe with a belief, agent2 with prose; the test reads what
// the store kept, what every later model request held, and the report's Beliefs section.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { coopBench, containersOf, tempDir } from '../helpers/cli.ts';
import { queryRun } from '../helpers/run-db.ts';
import { actionReply, agentIdOf, implement, nextAction, taskPrompt, transcript, type Action } from '../helpers/scripted-agents.ts';
import { chatReply, startFakeOpenAI, type FakeOpenAIServer, type RecordedRequest } from '../fakes/openai-server.ts';
import { loadPool } from '../../tasks/pools.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';
import { touchedBy } from '../../reports/analysis/probes.ts';

const pool = loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1'));
const runs = tempDir('probe-runs');
/** The shipped probe question's last line: a probe request ends with it, no other request does. */
const QUESTION_END = 'confidence: how sure you are of this answer, from 0 to 1.';
/** In every probe answer: it must never reach a conversation. */
const MARK = 'BELIEF-MARK-51c0';
let openai: FakeOpenAIServer;

const isProbe = (request: RecordedRequest) => transcript(request).trimEnd().endsWith(QUESTION_END);

/** Announces, implements, reports, finishes: 5 steps, so probes come before steps 2 and 4. */
function script(request: RecordedRequest): Action {
  const prompt = taskPrompt(request);
  const me = agentIdOf(prompt)!;
  const partner = me === 'agent1' ? 'agent2' : 'agent1';
  const steps: Action[] = [
    { name: 'send_message', input: { to: partner, message: `${me} plan: my feature` } },
    ...implement(pool, prompt),
    { name: 'send_message', input: { to: partner, message: `${me} status: done` } },
    { name: 'finish', input: { summary: 'done' } },
  ];
  return nextAction(steps, request);
}

function answer(request: RecordedRequest) {
  if (!isProbe(request)) return actionReply('openai', script(request));
  const me = agentIdOf(taskPrompt(request));
  if (me === 'agent2') return chatReply(`${MARK} I cannot tell what agent1 is doing.`);
  return chatReply(`${MARK}\n{"files": ["src/argkit/parser.py", "./README.md"], "functions": ["parse"], "conflict": false, "confidence": 0.4}`);
}

beforeAll(async () => {
  openai = await startFakeOpenAI({ handler: answer });
});
afterAll(async () => openai.close());

describe('coop-bench run --probe every=2', () => {
  let result: Awaited<ReturnType<typeof coopBench>>;
  const query = <T>(sql: string) => queryRun<T>(runs, 'probes', sql);
  const env = { OPENAI_BASE_URL: '', OPENAI_API_KEY: 'sk-test-openai-4f1c9e2b7d' };

  beforeAll(async () => {
    env.OPENAI_BASE_URL = openai.url;
    result = await coopBench(
      [
        'run',
        ...['--models', 'gpt-5', '--setting', 'coop', '--pool', 'argkit', '--features', '1,3', '--name', 'probes', '--runs-dir', runs],
        ...['--probe', 'every=2'],
      ],
      { env },
    );
  });

  it('stores each agent’s answers: a belief read from JSON, prose as unparsable', () => {
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stdout).toMatch(/belief probes: 2 answered, 2 unparsable, 0 failed; \$\d+\.\d{4} of the cost/);
    const rows = query<{ agent: string; step: number; status: string; belief: string | null; answer: string; partners_touched: string }>(
      'SELECT agent, step, status, belief, answer, partners_touched FROM probes ORDER BY agent, step',
    );
    expect(rows.map((r) => [r.agent, r.step, r.status])).toEqual([
      ['agent1', 2, 'answered'],
      ['agent1', 4, 'answered'],
      ['agent2', 2, 'unparsable'],
      ['agent2', 4, 'unparsable'],
    ]);
    expect(JSON.parse(rows[0]!.belief!)).toEqual({ files: ['README.md', 'src/argkit/parser.py'], functions: ['parse'], conflict: false, confidence: 0.4 });
    expect(rows[2]!.belief).toBeNull();
    expect(rows[2]!.answer).toContain('I cannot tell');
    // What the partner had touched when asked is part of what it touched in the end.
    const patches = new Map(query<{ agent: string; patch: string }>('SELECT agent, patch FROM agents').map((a) => [a.agent, touchedBy(a.patch)]));
    for (const r of rows) {
      const final = patches.get(r.agent === 'agent1' ? 'agent2' : 'agent1')!;
      for (const file of JSON.parse(r.partners_touched).files as string[]) expect(final.files).toContain(file);
    }
  });

  it('keeps the probe out of every conversation, trajectory and message', () => {
    const probes = openai.requests.filter(isProbe);
    expect(probes).toHaveLength(4);
    expect(openai.refusals).toEqual([]);
    for (const request of openai.requests.filter((r) => !isProbe(r))) {
      expect(transcript(request)).not.toContain(MARK);
      expect(transcript(request)).not.toContain(QUESTION_END);
    }
    const stored = query<{ text: string }>("SELECT COALESCE(input, '') || COALESCE(output, '') AS text FROM steps").map((s) => s.text);
    expect(stored.length).toBeGreaterThan(0);
    for (const text of stored) expect(text).not.toContain(MARK);
    for (const text of stored) expect(text).not.toContain(QUESTION_END);
    for (const { body } of query<{ body: string }>('SELECT body FROM messages')) expect(body).not.toContain(MARK);
    expect(query<{ n: number }>("SELECT COUNT(*) AS n FROM steps WHERE kind = 'model'")[0]!.n).toBe(10);
  });

  it('shows the probes in the report', async () => {
    expect((await coopBench(['report', 'probes', '--runs-dir', runs])).exitCode).toBe(0);
    const html = readFileSync(join(runs, 'probes', 'report.html'), 'utf8');
    const section = /<section id="probes">([\s\S]*?)<\/section>/.exec(html)![1]!;
    expect(section).toContain('<svg class="chart" data-chart="probes"');
    expect(section).not.toContain(MARK);
    expect(await containersOf('probes')).toEqual([]);
  });
});
