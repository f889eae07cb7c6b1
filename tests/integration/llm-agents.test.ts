// LLM agents end to end: the real OpenAI and Anthropic SDKs against local fake servers, scripted
// agents working through the real tools in real containers, messages over the SQLite bus, and the
// evaluation scoring their merged work.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { coopBench, containersOf, tempDir } from '../helpers/cli.ts';
import { filesUnder, queryRun } from '../helpers/run-db.ts';
import { scriptedAgents, transcript } from '../helpers/scripted-agents.ts';
import { startFakeOpenAI, type FakeOpenAIServer, type RecordedRequest } from '../fakes/openai-server.ts';
import { startFakeAnthropic, type FakeAnthropicServer } from '../fakes/anthropic-server.ts';
import { loadPool } from '../../tasks/pools.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';
import { DEFAULT_AGENT_CONFIG } from '../../harness/agents/config/agent-config.ts';

const pool = loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1'));
// argkit features 1 and 3 merge cleanly: competent agents pass both.
const FEATURES = '1,3';
const OPENAI_KEY = 'sk-test-openai-4f1c9e2b7d';
const ANTHROPIC_KEY = 'sk-ant-test-8a3d5c1e6f';

const runs = tempDir('llm-runs');
const seen: RecordedRequest[] = [];
let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
let env: Record<string, string>;

const query = <T>(run: string, sql: string) => queryRun<T>(runs, run, sql);

beforeAll(async () => {
  // The agents finish only after hearing their partner: the delivery test below must not race the containers' starts.
  openai = await startFakeOpenAI({ handler: scriptedAgents(pool, 'openai', (r) => seen.push(r), undefined, true) });
  anthropic = await startFakeAnthropic({ handler: scriptedAgents(pool, 'anthropic', (r) => seen.push(r), undefined, true) });
  env = { OPENAI_BASE_URL: openai.url, ANTHROPIC_BASE_URL: anthropic.url, OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_API_KEY: ANTHROPIC_KEY };
});

afterAll(async () => {
  await openai.close();
  await anthropic.close();
});

describe('coop-bench run --models gpt-5,claude --setting both', () => {
  let result: Awaited<ReturnType<typeof coopBench>>;

  beforeAll(async () => {
    result = await coopBench(
      ['run', '--models', 'gpt-5,claude', '--setting', 'both', '--pool', 'argkit', '--features', FEATURES, '--name', 'llm', '--runs-dir', runs, '--judge'],
      { env },
    );
  });

  it('runs Coop and Solo for both models and scores the merged work', () => {
    expect(result.exitCode, result.all).toBe(0);
    for (const model of ['gpt-5', 'claude']) {
      expect(result.stdout).toMatch(new RegExp(`${model}\\s+coop\\s+1\\s+1\\s+1/1 \\(100\\.0%\\)`));
      expect(result.stdout).toMatch(new RegExp(`${model}\\s+solo\\s+1\\s+1\\s+1/1 \\(100\\.0%\\)`));
    }
    expect(result.stdout).toMatch(/agents' model cost: \$\d/);
  });

  it('delivers each partner message into the next prompt as [Message from agentN]', () => {
    for (const [agent, partner] of [
      ['agent1', 'agent2'],
      ['agent2', 'agent1'],
    ]) {
      const delivered = seen.filter(
        (r) => transcript(r).includes(`You are ${agent}`) && transcript(r).includes(`[Message from ${partner}]: ${partner} here: I will implement`),
      );
      expect(delivered.length, `${agent} never saw ${partner}'s plan`).toBeGreaterThan(0);
    }
    const rows = query<{ sender: string; body: string; delivered_at: string | null }>(
      'llm',
      `SELECT m.sender, m.body, d.delivered_at FROM messages m JOIN message_deliveries d ON d.message = m.id WHERE m.body LIKE '%I will implement%'`,
    );
    expect(rows).toHaveLength(4);
    expect(rows.every((r) => r.delivered_at !== null)).toBe(true);
  });

  it('stores trajectories, conversations, patches, evaluations and cost', () => {
    const dir = join(runs, 'llm', 'logs', 'claude', 'coop', 'argkit_task', 'task1', 'f1_f3');
    const trajectory = JSON.parse(readFileSync(join(dir, 'agent1_traj.json'), 'utf8'));
    const isWait = (s: { input?: unknown }) => JSON.stringify(s.input ?? '').includes('waiting for the partner');
    const tools = trajectory.steps.filter((s: { kind: string; input?: unknown }) => s.kind === 'tool' && !isWait(s));
    expect(tools.map((s: { name: string }) => s.name)).toEqual(['send_message', 'str_replace_based_edit_tool', 'bash', 'send_message', 'finish']);
    const conversation = JSON.parse(readFileSync(join(dir, 'conversation.json'), 'utf8'));
    expect(conversation.map((m: { from: string }) => m.from).sort()).toEqual(['agent1', 'agent1', 'agent2', 'agent2']);
    expect(readFileSync(join(dir, 'agent1.patch'), 'utf8')).toContain('diff --git a/src/parser.js');
    expect(JSON.parse(readFileSync(join(dir, 'eval.json'), 'utf8')).both_passed).toBe(true);
    const calls = query<{ model: string; calls: number; cost: number; tokens: number }>(
      'llm',
      'SELECT model, COUNT(*) AS calls, SUM(cost_usd) AS cost, SUM(input_tokens) AS tokens FROM model_calls GROUP BY model ORDER BY model',
    );
    // Two Coop agents of 5 calls and a Solo agent of 3, plus the turns a Coop agent waited for its partner.
    const waits = new Map(
      query<{ model: string; n: number }>(
        'llm',
        `SELECT (SELECT c.model FROM model_calls c WHERE c.task = s.task AND c.agent = s.agent LIMIT 1) AS model, COUNT(*) AS n
         FROM steps s WHERE s.kind = 'tool' AND s.input LIKE '%waiting for the partner%' GROUP BY model`,
      ).map((w) => [w.model, w.n]),
    );
    expect(calls.map((c) => [c.model, c.calls])).toEqual([
      ['claude-sonnet-5-5', 5 + 5 + 3 + (waits.get('claude-sonnet-5-5') ?? 0)],
      ['gpt-5', 5 + 5 + 3 + (waits.get('gpt-5') ?? 0)],
    ]);
    expect(calls.every((c) => c.cost > 0 && c.tokens > 0)).toBe(true);
  });

  it("caches Claude's prompt (reads at a tenth of the input price) and runs gpt-5 on the Responses API with its reasoning kept", () => {
    const usage = query<{ model: string; read: number; written: number; reasoning: number }>(
      'llm',
      'SELECT model, SUM(cache_read_tokens) AS read, SUM(cache_write_tokens + cache_write_1h_tokens) AS written, SUM(reasoning_tokens) AS reasoning FROM model_calls GROUP BY model ORDER BY model',
    );
    const claude = usage.find((u) => u.model === 'claude-sonnet-5-5')!;
    expect(claude.read).toBeGreaterThan(claude.written);
    expect(usage.find((u) => u.model === 'gpt-5')!.reasoning).toBeGreaterThan(0);
    expect(seen.filter((r) => r.path === '/v1/responses').every((r) => r.body.store === false)).toBe(true);
    const lastStep = seen.filter((r) => r.path === '/v1/responses').at(-1)!;
    expect((lastStep.body.input as { type?: string }[]).some((item) => item.type === 'reasoning')).toBe(true);
  });

  it("stores the agent configuration's hash and the exact prompts with every task", () => {
    const hashes = query<{ agent_config: string }>('llm', 'SELECT DISTINCT agent_config FROM tasks');
    expect(hashes).toEqual([{ agent_config: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    const prompts = query<{ name: string; output: string }>(
      'llm',
      `SELECT name, output FROM steps WHERE kind = 'note' AND name IN ('system_prompt', 'task_prompt') ORDER BY task, agent, idx`,
    );
    expect(prompts.filter((p) => p.name === 'task_prompt')).toHaveLength(6);
    expect(prompts.find((p) => p.name === 'task_prompt')!.output).toMatch(/^You are agent1, a software engineer implementing one feature/);
    expect(result.stdout).toContain(`agent configuration ${hashes[0]!.agent_config.slice(0, 12)}`);
  });

  it('refuses to resume the run with another agent configuration', async () => {
    const config = join(runs, 'other-agent.json');
    const shipped = JSON.parse(readFileSync(DEFAULT_AGENT_CONFIG, 'utf8'));
    writeFileSync(
      config,
      JSON.stringify({
        ...shipped,
        system_template: 'You are a hasty engineer.',
        solo_template: { file: join(dirname(DEFAULT_AGENT_CONFIG), shipped.solo_template.file) },
        coop_template: { file: join(dirname(DEFAULT_AGENT_CONFIG), shipped.coop_template.file) },
        probe_template: { file: join(dirname(DEFAULT_AGENT_CONFIG), shipped.probe_template.file) },
      }),
    );
    const again = await coopBench(
      [
        'run',
        '--models',
        'gpt-5,claude',
        '--setting',
        'both',
        '--pool',
        'argkit',
        '--features',
        FEATURES,
        '--name',
        'llm',
        '--runs-dir',
        runs,
        '--agent-config',
        config,
      ],
      { env },
    );
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(
      /coop-bench: run llm has 4 finished task\(s\) made with agent configuration [0-9a-f]{12}, not with this one \([0-9a-f]{12}, .*other-agent\.json\): use another --name/,
    );
  });

  it('--judge: the detectors and the initiative fallback label each Coop task as it finishes', () => {
    const judged = query<{ setting: string; judge: string; status: string }>(
      'llm',
      'SELECT t.setting, j.judge, j.status FROM judge_runs j JOIN tasks t ON t.id = j.task ORDER BY t.id, j.judge',
    );
    expect(judged).toEqual([
      { setting: 'coop', judge: 'detectors', status: 'ok' },
      { setting: 'coop', judge: 'initiative', status: 'ok' },
      { setting: 'coop', judge: 'detectors', status: 'ok' },
      { setting: 'coop', judge: 'initiative', status: 'ok' },
    ]);
  });

  it('never writes an API key into any artifact of the run, its report or its output', async () => {
    const report = await coopBench(['report', '--name', 'llm', '--runs-dir', runs]);
    expect(report.exitCode, report.all).toBe(0);
    const files = filesUnder(join(runs, 'llm'));
    expect(files.some((f) => f.endsWith('report.html'))).toBe(true);
    for (const file of files) {
      const content = readFileSync(file);
      expect(content.includes(OPENAI_KEY), file).toBe(false);
      expect(content.includes(ANTHROPIC_KEY), file).toBe(false);
    }
    for (const output of [result.all, report.all]) {
      expect(output).not.toContain(OPENAI_KEY);
      expect(output).not.toContain(ANTHROPIC_KEY);
    }
  });

  it('leaves no container behind', async () => {
    expect(await containersOf('llm')).toEqual([]);
  });
});

describe('settings', () => {
  it('--no-messaging: no message tool, no messages, results under coop-no-messaging', async () => {
    const run = await coopBench(
      ['run', '--models', 'gpt-5', '--setting', 'coop', '--no-messaging', '--pool', 'argkit', '--features', FEATURES, '--name', 'nocomm', '--runs-dir', runs],
      { env },
    );
    expect(run.exitCode, run.all).toBe(0);
    expect(run.stdout).toMatch(/gpt-5\s+coop-no-messaging\s+1\s+1\s+1\/1/);
    expect(query('nocomm', 'SELECT * FROM messages')).toEqual([]);
    // Chat Completions nests the name in `function`; the Responses API (gpt-5) does not.
    const tools = seen
      .filter((r) => transcript(r).includes('Working without messages'))
      .flatMap((r) => (r.body.tools as { name?: string; function?: { name: string } }[]).map((t) => t.function?.name ?? t.name));
    expect(tools.length).toBeGreaterThan(0);
    expect(tools).not.toContain('send_message');
  });

  it('--mix: mixed teams in both orders', async () => {
    const run = await coopBench(
      ['run', '--models', 'gpt-5,claude', '--mix', '--setting', 'coop', '--pool', 'argkit', '--features', FEATURES, '--name', 'mix', '--runs-dir', runs],
      { env },
    );
    expect(run.exitCode, run.all).toBe(0);
    const agents = query<{ models: string; agent: string; model: string }>(
      'mix',
      'SELECT t.models, a.agent, a.model FROM agents a JOIN tasks t ON t.id = a.task ORDER BY t.id, a.agent',
    );
    expect(agents.map((a) => `${a.agent}=${a.model}`)).toEqual(['agent1=gpt-5', 'agent2=claude', 'agent1=claude', 'agent2=gpt-5']);
  });

  it('--agents 3: one agent per feature, every feature tested on the merged code', async () => {
    const run = await coopBench(
      ['run', '--models', 'gpt-5', '--setting', 'coop', '--agents', '3', '--pool', 'argkit', '--features', '1,3,4', '--name', 'three', '--runs-dir', runs],
      { env },
    );
    expect(run.exitCode, run.all).toBe(0);
    expect(query<{ n: number }>('three', 'SELECT COUNT(*) AS n FROM agents')[0].n).toBe(3);
    expect(query<{ feature: number }>('three', 'SELECT feature FROM evaluations ORDER BY feature').map((e) => e.feature)).toEqual([1, 3, 4]);
  });
});
