// The real Claude Code and Codex CLI binaries as agents, in real containers without network,
// against the streaming fake Anthropic and OpenAI servers: their model calls go through the
// harness's keyed proxy, their messages through the MCP server into the run's bus.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { coopBench, containersOf, tempDir } from '../helpers/cli.ts';
import { filesUnder, queryRun, uniqueRun } from '../helpers/run-db.ts';
import { watchContainers, type ContainerWatch } from '../helpers/container-watch.ts';
import { conversationOf, ENV_PROBE, proxyAttack, scriptedCliAgents, USAGE } from '../helpers/cli-agents.ts';
import { startCanary } from '../fakes/canary-server.ts';
import { API_PORT } from '../../harness/agents/cli/cli-agent.ts';
import { claudeCode } from '../../harness/agents/cli/claude-code.ts';
import { startFakeAnthropicStream } from '../fakes/anthropic-stream.ts';
import { startFakeResponses } from '../fakes/openai-responses.ts';
import type { StreamRequest, StreamServer } from '../fakes/stream-server.ts';
import { isPreflight } from '../fakes/preflight.ts';
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
/** The first command each scripted agent runs. */
let probe = ENV_PROBE;

interface StepRow {
  agent: string;
  kind: string;
  name: string | null;
  output: string | null;
}

beforeAll(async () => {
  // One script per pool: the task prompt says which features the agent implements.
  const agents = (request: StreamRequest) => scriptedCliAgents(poolOf(request), (r) => seen.push(r), probe);
  // proxyAttack's own requests (prompt "hi", no tools) get a plain answer.
  anthropic = await startFakeAnthropicStream((request) => (conversationOf(request).prompt === 'hi' ? { text: 'hi' } : agents(request).anthropic(request)));
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

// The specs a user writes, on their default models (claude-sonnet-5-5, gpt-5.5).
const CLAUDE = 'claude-code';
const CODEX = 'codex';

describe('coop-bench run --models claude-code,codex --mix (Coop, messaging)', () => {
  const run = uniqueRun('cli-mix');
  let result: Awaited<ReturnType<typeof coopBench>>;
  let watch: ContainerWatch;
  const query = <T>(sql: string) => queryRun<T>(runs, run, sql);

  beforeAll(async () => {
    watch = await watchContainers(run);
    result = await coopBench(
      ['run', '--models', `${CLAUDE},${CODEX}`, '--mix', '--setting', 'coop', '--pool', 'argkit', '--features', '1,3', '--name', run, '--runs-dir', runs],
      { env },
    );
    await watch.stop();
  });

  it('runs both mixed teams end to end and scores their merged work', () => {
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stdout).toMatch(/claude-code\+codex\s+coop\s+1\s+1\s+1\/1 \(100\.0%\)/);
    expect(result.stdout).toMatch(/codex\+claude-code\s+coop\s+1\s+1\s+1\/1 \(100\.0%\)/);
    expect(result.stdout).toContain('models: claude-code = anthropic claude-sonnet-5-5 (active); codex = openai gpt-5.5 (active)');
    const agents = query<{ model: string; status: string; patch: string }>('SELECT model, status, patch FROM agents ORDER BY task, agent');
    expect(agents.map((a) => [a.model, a.status])).toEqual([
      [CLAUDE, 'finished'],
      [CODEX, 'finished'],
      [CODEX, 'finished'],
      [CLAUDE, 'finished'],
    ]);
    for (const agent of agents) expect(agent.patch).toContain('diff --git a/src/parser.js b/src/parser.js');
    // Codex offers its model no hosted web search: the agents have no web.
    expect(openai.requests.filter((r) => !isPreflight(r) && JSON.stringify(r.body.tools ?? []).includes('web_search'))).toEqual([]);
    // The strict fakes refused nothing either CLI sent on its default model.
    const refused = [...anthropic.requests, ...openai.requests].filter((r) => r.status !== 200);
    expect(refused.map((r) => `${r.status} ${r.path} ${JSON.stringify(r.body).slice(0, 200)}`)).toEqual([]);
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
    // The live preflight's calls (two a model, before any task) are not the agents': not stored.
    const tasks = (requests: StreamRequest[]) => requests.filter((r) => !isPreflight(r));
    const answered = {
      'claude-sonnet-5-5': tasks(anthropic.requests).filter((r) => r.path === '/v1/messages').length,
      'gpt-5.5': tasks(openai.requests).length,
    };
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
        `${CLAUDE},${CODEX}`,
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
        `${CLAUDE},${CODEX}`,
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
      [CLAUDE, 'step_limit'],
      [CODEX, 'step_limit'],
    ]);
    for (const agent of agents) expect(agent.patch).toContain('diff --git a/tabulite/');
    const calls = queryRun<{ agent: string; n: number }>(runs, run, 'SELECT task, COUNT(*) AS n FROM model_calls GROUP BY task');
    expect(calls.map((c) => c.n)).toEqual([3, 3]);
  });
});

describe('the model proxy, attacked from inside the agent container', () => {
  it("lets nothing a request holds reach the host's loopback or any other address, and keeps the key out of every record", async () => {
    const canary = await startCanary();
    const run = uniqueRun('cli-attack');
    const from = anthropic.requests.length;
    probe = proxyAttack(
      API_PORT,
      ['127.0.0.1', 'localhost', ...canary.hosts].map((host) => `${host}:${canary.port}`),
    );
    let result: Awaited<ReturnType<typeof coopBench>>;
    try {
      result = await coopBench(
        ['run', '--models', 'claude-code', '--setting', 'solo', '--pool', 'argkit', '--features', '1,3', '--name', run, '--runs-dir', runs],
        { env },
      );
    } finally {
      probe = ENV_PROBE;
      await canary.close();
    }
    expect(result.exitCode, result.all).toBe(0);
    expect(queryRun<{ status: string }>(runs, run, 'SELECT status FROM agents').map((a) => a.status)).toEqual(['finished']);
    const [step] = queryRun<{ output: string }>(runs, run, `SELECT output FROM steps WHERE kind = 'tool' AND output LIKE '%RESULT %'`);
    const results = [...step!.output.matchAll(/^RESULT (.+) (\S+)$/gm)].map(([, probeName, status]) => [probeName!.split(' ')[0]!, status!]);
    const statuses = (name: string) => [...new Set(results.filter(([n]) => n === name).map(([, s]) => s))];
    // A model spec in the body or a Host header only reaches the agent's own upstream, as its model.
    expect(statuses('model-spec')).toEqual(['200']);
    expect(statuses('provider-spec')).toEqual(['200']);
    expect(statuses('host-header')).toEqual(['200']);
    expect(statuses('absolute-form')).toEqual(['403']);
    expect(statuses('connect')).toEqual(['closed']);
    expect(statuses('path')).toEqual(['403']);
    expect(statuses('announced-60MB')).toEqual(['413']);
    expect(statuses('streamed-40MB')[0]).toMatch(/^(413|error-ECONNRESET|error-EPIPE)$/);
    for (const status of statuses('64x60MB')[0]!.split(',')) expect(status).toMatch(/^(413|error-ECONNRESET|error-EPIPE)$/);
    expect(canary.connections()).toBe(0);
    const sent = anthropic.requests.slice(from);
    expect(sent.length).toBeGreaterThan(0);
    for (const request of sent) {
      expect(request.body.model).toBe(claudeCode.defaultModel);
      expect(request.path).toBe('/v1/messages');
      expect(request.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    }
    const report = await coopBench(['report', '--name', run, '--runs-dir', runs]);
    expect(report.exitCode, report.all).toBe(0);
    for (const key of KEYS) {
      for (const file of filesUnder(join(runs, run))) expect(readFileSync(file).includes(key), `${key} in ${file}`).toBe(false);
      expect(result.all + report.all).not.toContain(key);
    }
  });
});
