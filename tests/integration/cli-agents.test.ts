// The real Claude Code and Codex CLI binaries as agents, in real containers without network,
// against the streaming fake Anthropic and OpenAI servers: their model calls go through the
// harness's keyed proxy, their messages through the MCP server into the run's bus.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { coopBench, containersOf, tempDir } from '../helpers/cli.ts';
import { filesUnder, queryRun, uniqueRun } from '../helpers/run-db.ts';
import { watchContainers, type ContainerWatch } from '../helpers/container-watch.ts';
import { conversationOf, scriptedCliAgents, USAGE } from '../helpers/cli-agents.ts';
import { startFakeAnthropicStream } from '../fakes/anthropic-stream.ts';
import { startFakeResponses } from '../fakes/openai-responses.ts';
import type { StreamRequest, StreamServer } from '../fakes/stream-server.ts';
import { loadPool } from '../../tasks/pools.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';

const argkit = loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1'));
const tabulite = loadPool(join(SHIPPED_POOLS, 'tabulite_task', 'task1'));
const ANTHROPIC_KEY = 'sk-ant-cli-test-3f9a1c7e5b';
const OPENAI_KEY = 'sk-cli-test-8d2e6b0a4c';
const KEYS = [ANTHROPIC_KEY, OPENAI_KEY];

const runs = tempDir('cli-agents');
const seen: StreamRequest[] = [];
let anthropic: StreamServer;
let openai: StreamServer;
let env: Record<string, string>;
let poolOf = (_request: StreamRequest) => argkit;

interface StepRow {
  agent: string;
  kind: string;
  name: string | null;
  output: string | null;
}

beforeAll(async () => {
  // One script per pool: the task prompt says which features the agent implements.
  const agents = (request: StreamRequest) => scriptedCliAgents(poolOf(request), (r) => seen.push(r));
  anthropic = await startFakeAnthropicStream((request) => agents(request).anthropic(request));
  openai = await startFakeResponses((request) => agents(request).openai(request));
  poolOf = (request) => {
    const { prompt } = conversationOf(request);
    return [argkit, tabulite].find((pool) => pool.features.some((f) => prompt.includes(f.description.trim()))) ?? argkit;
  };
  env = { ANTHROPIC_BASE_URL: anthropic.url, OPENAI_BASE_URL: `${openai.url}/v1`, ANTHROPIC_API_KEY: ANTHROPIC_KEY, OPENAI_API_KEY: OPENAI_KEY };
});

afterAll(async () => {
  await anthropic?.close();
  await openai?.close();
});

describe('coop-bench run --models claude-code,codex --mix (Coop, messaging)', () => {
  const run = uniqueRun('cli-mix');
  let result: Awaited<ReturnType<typeof coopBench>>;
  let watch: ContainerWatch;
  const query = <T>(sql: string) => queryRun<T>(runs, run, sql);

  beforeAll(async () => {
    watch = await watchContainers(run);
    result = await coopBench(
      ['run', '--models', 'claude-code,codex', '--mix', '--setting', 'coop', '--pool', 'argkit', '--features', '1,3', '--name', run, '--runs-dir', runs],
      { env },
    );
    await watch.stop();
  });

  it('runs both mixed teams end to end and scores their merged work', () => {
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stdout).toMatch(/claude-code\+codex\s+coop\s+1\s+1\s+1\/1 \(100\.0%\)/);
    expect(result.stdout).toMatch(/codex\+claude-code\s+coop\s+1\s+1\s+1\/1 \(100\.0%\)/);
    const agents = query<{ model: string; status: string; patch: string }>('SELECT model, status, patch FROM agents ORDER BY task, agent');
    expect(agents.map((a) => [a.model, a.status])).toEqual([
      ['claude-code', 'finished'],
      ['codex', 'finished'],
      ['codex', 'finished'],
      ['claude-code', 'finished'],
    ]);
    for (const agent of agents) expect(agent.patch).toContain('diff --git a/src/parser.js b/src/parser.js');
  });

  it('puts the messages each CLI sent through MCP into the bus and conversation.json', () => {
    const messages = query<{ task: number; sender: string; body: string }>('SELECT task, sender, body FROM messages ORDER BY id');
    for (const task of [1, 2]) {
      const sent = messages.filter((m) => m.task === task);
      expect(sent.filter((m) => m.sender === 'agent1').map((m) => m.body)).toEqual([
        expect.stringMatching(/^agent1 here: I will implement/),
        expect.stringMatching(/^agent1 status:/),
      ]);
      expect(sent.filter((m) => m.sender === 'agent2').map((m) => m.body)).toEqual([
        expect.stringMatching(/^agent2 here: I will implement/),
        expect.stringMatching(/^agent2 status:/),
      ]);
    }
    const conversation = JSON.parse(
      readFileSync(join(runs, run, 'logs', 'claude-code+codex', 'coop', 'argkit_task', 'task1', 'f1_f3', 'conversation.json'), 'utf8'),
    );
    expect(conversation).toHaveLength(4);
  });

  it("keeps each CLI's trajectory in the harness's format", () => {
    const steps = query<StepRow & { task: number }>(`SELECT task, agent, kind, name, output FROM steps WHERE kind = 'tool' ORDER BY task, agent, idx`);
    const tools = (task: number, agent: string) => steps.filter((s) => s.task === task && s.agent === agent).map((s) => s.name);
    expect(tools(1, 'agent1')).toEqual([
      'mcp__coop-bench__send_message',
      'Bash',
      'Write',
      'Bash',
      'mcp__coop-bench__read_messages',
      'mcp__coop-bench__send_message',
    ]);
    expect(tools(1, 'agent2')).toEqual([
      'mcp__coop-bench__send_message',
      'exec_command',
      'exec_command',
      'exec_command',
      'mcp__coop-bench__read_messages',
      'mcp__coop-bench__send_message',
    ]);
    const applied = steps.find((s) => s.task === 1 && s.agent === 'agent1' && s.name === 'Bash' && s.output?.includes('src/parser.js'));
    expect(applied).toBeDefined();
    const said = query<{ output: string }>(`SELECT output FROM steps WHERE kind = 'model' AND output LIKE 'Implemented %'`);
    expect(said).toHaveLength(4);
  });

  it("records every model call's tokens and cost as for the built-in agent", () => {
    const calls = query<{ model: string; calls: number; input: number; output: number; cost: number }>(
      'SELECT model, COUNT(*) AS calls, SUM(input_tokens) AS input, SUM(output_tokens) AS output, SUM(cost_usd) AS cost FROM model_calls GROUP BY model ORDER BY model',
    );
    const answered = { 'claude-sonnet-5-5': anthropic.requests.filter((r) => r.path === '/v1/messages').length, 'gpt-5.6-sol': openai.requests.length };
    expect(calls.map((c) => [c.model, c.calls])).toEqual(Object.entries(answered));
    for (const c of calls) {
      expect(c.input).toBe(c.calls * USAGE.input);
      expect(c.output).toBe(c.calls * USAGE.output);
      expect(c.cost).toBeGreaterThan(0);
    }
    expect(result.stdout).toMatch(/agents' model cost: \$0\.\d+/);
  });

  it('adds the key outside the container: the providers got it, the containers never did', () => {
    expect(anthropic.requests.every((r) => r.headers['x-api-key'] === ANTHROPIC_KEY)).toBe(true);
    expect(openai.requests.every((r) => r.headers.authorization === `Bearer ${OPENAI_KEY}`)).toBe(true);
    const agents = watch.seen.filter((c) => c.role === 'agent');
    expect(agents).toHaveLength(4);
    for (const c of agents) {
      expect(c.networkMode).toBe('none');
      expect(c.binds.map((b) => b.split(':').slice(1).join(':')).sort()).toEqual(['/run/coop-bench-api:ro', '/run/coop-bench:ro']);
      for (const key of KEYS) expect(c.env.join('\n')).not.toContain(key);
    }
    // Each CLI read its whole environment and every process's: placeholders only.
    const probes = query<{ output: string }>(`SELECT output FROM steps WHERE kind = 'tool' AND output LIKE '%API_KEY=%'`);
    expect(probes.some((p) => p.output.includes('ANTHROPIC_API_KEY=coop-bench-proxy'))).toBe(true);
    expect(probes.some((p) => p.output.includes('OPENAI_API_KEY=coop-bench-proxy'))).toBe(true);
  });

  it('writes no key into any artifact of the run, its report or its output', async () => {
    const report = await coopBench(['report', '--name', run, '--runs-dir', runs]);
    expect(report.exitCode, report.all).toBe(0);
    const files = filesUnder(join(runs, run));
    expect(files.some((f) => f.endsWith('report.html'))).toBe(true);
    for (const key of KEYS) {
      for (const file of files) expect(readFileSync(file).includes(key), `${key} in ${file}`).toBe(false);
      expect(result.all + report.all).not.toContain(key);
    }
  });

  it('leaves no container behind', async () => {
    expect(await containersOf(run)).toEqual([]);
  });
});

describe('settings', () => {
  it("--no-messaging --git --agents 3: no message tool, no messages, partners' branches mounted", async () => {
    const run = uniqueRun('cli-settings');
    const watch = await watchContainers(run);
    const from = seen.length;
    const result = await coopBench(
      [
        'run',
        '--models',
        'claude-code,codex',
        '--setting',
        'coop',
        '--no-messaging',
        '--git',
        '--agents',
        '3',
        '--pool',
        'argkit',
        '--features',
        '1,3,4',
        '--name',
        run,
        '--runs-dir',
        runs,
      ],
      { env },
    );
    await watch.stop();
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stdout).toMatch(/claude-code\s+coop-no-messaging\+git\s+1\s+1\s+/);
    expect(result.stdout).toMatch(/codex\s+coop-no-messaging\+git\s+1\s+1\s+/);
    const agents = queryRun<{ status: string; patch: string }>(runs, run, 'SELECT status, patch FROM agents');
    expect(agents.map((a) => a.status)).toEqual(Array(6).fill('finished'));
    for (const agent of agents) expect(agent.patch).toMatch(/^diff --git a\/src\//);
    expect(queryRun(runs, run, 'SELECT * FROM messages')).toEqual([]);
    const requests = seen.slice(from);
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) {
      expect(conversationOf(request).prompt).toContain('Working without messages');
      expect(JSON.stringify(request.body.tools)).not.toMatch(/coop.bench/);
    }
    for (const c of watch.seen.filter((w) => w.role === 'agent')) {
      expect(c.binds.map((b) => b.split(':')[1]).sort()).toEqual(['/git/agent1.git', '/git/agent2.git', '/git/agent3.git', '/run/coop-bench-api']);
    }
  });

  it('Solo in a python image, with a step limit each CLI meets', async () => {
    const run = uniqueRun('cli-solo');
    const result = await coopBench(
      [
        'run',
        '--models',
        'claude-code,codex',
        '--setting',
        'solo',
        '--pool',
        'tabulite',
        '--features',
        '1,2',
        '--max-steps',
        '3',
        '--name',
        run,
        '--runs-dir',
        runs,
      ],
      { env },
    );
    expect(result.exitCode, result.all).toBe(0);
    // Three model calls each: the environment probe, writing the patch, applying it; the fourth is refused.
    const agents = queryRun<{ model: string; status: string; patch: string }>(runs, run, 'SELECT a.model, a.status, a.patch FROM agents a ORDER BY a.task');
    expect(agents.map((a) => [a.model, a.status])).toEqual([
      ['claude-code', 'step_limit'],
      ['codex', 'step_limit'],
    ]);
    for (const agent of agents) expect(agent.patch).toContain('diff --git a/tabulite/');
    const calls = queryRun<{ agent: string; n: number }>(runs, run, 'SELECT task, COUNT(*) AS n FROM model_calls GROUP BY task');
    expect(calls.map((c) => c.n)).toEqual([3, 3]);
  });
});
