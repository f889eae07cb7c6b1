// The agent loop against the fake OpenAI server through the real SDK, with an in-memory sandbox
// (the container path is covered by tests/integration/llm-agents.test.ts).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LlmAgent } from '../../../../harness/agents/llm-agent.ts';
import type { AgentContext } from '../../../../harness/agents/types.ts';
import { createModel } from '../../../../harness/models/index.ts';
import { loadAgentConfig } from '../../../../harness/agents/config/agent-config.ts';
import { MessageBus } from '../../../../harness/messaging/bus.ts';
import { RunStore } from '../../../../harness/store/run-store.ts';
import { chatReply, startFakeVllm, type FakeOpenAIServer } from '../../../fakes/openai-server.ts';
import { agentContext, MemorySandbox, pool } from './agent-fixture.ts';

let server: FakeOpenAIServer;
const call = (name: string, args: unknown) => chatReply(null, { toolCalls: [{ name, arguments: args }] });
const finish = () => call('finish', { summary: 'done' });

beforeAll(async () => {
  server = await startFakeVllm({ served: ['test-model'] });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function agent(options: { maxSteps?: number; pricesFile?: string } = {}) {
  const model = createModel(`openai:test-model@${server.url}`, { env: {}, cwd: tmpdir(), maxRetries: 0, pricesFile: options.pricesFile, warn: () => {} });
  return new LlmAgent('openai:test-model', model, { config: loadAgentConfig(undefined, { stepLimit: options.maxSteps ?? 10 }) });
}

const context = (overrides: Partial<AgentContext> = {}) => agentContext(overrides);

/** The messages the model was sent in request i. */
const sent = (i: number) => server.requests[i]!.body.messages as { role: string; content: string | null }[];

describe('the agent loop', () => {
  it('runs the tools the model calls and stops at finish', async () => {
    server.enqueue(
      call('str_replace_based_edit_tool', { command: 'create', path: 'src/verbose.js', file_text: 'export const verbose = true;\n' }),
      call('bash', { command: 'node --test' }),
      finish(),
    );
    const ctx = context();
    const outcome = await agent().run(ctx);
    expect(outcome).toEqual({ status: 'finished' });
    expect((ctx.sandbox as MemorySandbox).files.get('/workspace/repo/src/verbose.js')).toBe('export const verbose = true;\n');
    expect(ctx.trajectory.steps.filter((s) => s.kind === 'tool').map((s) => s.name)).toEqual(['str_replace_based_edit_tool', 'bash', 'finish']);
    expect(sent(2).at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('exit code 0\nran bash -c node --test') });
  });

  it('reports a malformed tool call back to the model instead of crashing', async () => {
    server.enqueue(call('bash', '{"command": "ls"'), finish());
    const outcome = await agent().run(context());
    expect(outcome.status).toBe('finished');
    expect(sent(1).at(-1)?.content).toMatch(/^Error: the arguments of bash are not valid JSON/);
  });

  it('reports arguments of the wrong shape and unknown tools back to the model', async () => {
    server.enqueue(call('bash', { cmd: 'ls' }), call('rm_everything', {}), finish());
    await agent().run(context());
    expect(sent(1).at(-1)?.content).toMatch(/^Error: invalid arguments for bash: command: /);
    expect(sent(2).at(-1)?.content).toBe('Error: there is no tool named "rm_everything"; use one of the tools you were given');
  });

  it('asks for a tool call when the model only talks', async () => {
    server.enqueue('I think I am done.', finish());
    await agent().run(context());
    expect(sent(1).at(-1)).toEqual({ role: 'user', content: 'Your reply called no tool. Continue the work with a tool call, or call finish if you are done.' });
  });

  it('stops at the step limit', async () => {
    server.handle(() => call('bash', { command: 'true' }));
    const outcome = await agent({ maxSteps: 3 }).run(context());
    expect(outcome).toEqual({ status: 'step_limit', error: 'stopped after 3 steps' });
    expect(server.requests).toHaveLength(3);
  });

  it('reports a tool that fails on what the agent asked for back to the model', async () => {
    const sandbox = new MemorySandbox();
    sandbox.files.set('/workspace/repo/huge.bin', '');
    sandbox.readFile = async (path) => {
      throw new Error(`${path} is 20971520 bytes, over the 16777216-byte limit`);
    };
    server.enqueue(call('str_replace_based_edit_tool', { command: 'view', path: 'huge.bin' }), finish());
    expect(await agent().run(context({ sandbox }))).toEqual({ status: 'finished' });
    expect(sent(1).at(-1)?.content).toBe('Error: /workspace/repo/huge.bin is 20971520 bytes, over the 16777216-byte limit');
  });

  it('ends on an error of the sandbox backend (a Docker engine): the agent cannot go on without its sandbox', async () => {
    const sandbox = new MemorySandbox();
    const gone = Object.assign(new Error('(HTTP code 409) container is not running'), { statusCode: 409 });
    sandbox.exec = async () => {
      throw gone;
    };
    server.enqueue(call('bash', { command: 'ls' }), finish());
    await expect(agent().run(context({ sandbox, isInfrastructureError: (error) => error === gone }))).rejects.toBe(gone);
  });

  it('keeps huge tool arguments from the model as bounded text in the trajectory', async () => {
    server.enqueue(call('str_replace_based_edit_tool', { command: 'create', path: 'big.txt', file_text: 'x'.repeat(1024 * 1024) }), finish());
    const ctx = context();
    await agent().run(ctx);
    const input = ctx.trajectory.steps.find((s) => s.kind === 'tool')!.input as string;
    expect(input.length).toBeLessThan(70 * 1024);
    expect(input).toMatch(/\[\.\.\. \d+ characters omitted \.\.\.\]/);
  });

  it('offers send_message only when the agent has a mailbox', async () => {
    server.enqueue(finish());
    await agent().run(context());
    const tools = (server.requests[0]!.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(tools).toEqual(['bash', 'str_replace_based_edit_tool', 'finish']);
  });
});

describe('messages between agents', () => {
  function bus() {
    const store = RunStore.open(mkdtempSync(join(tmpdir(), 'agent-bus-')), 'run', { create: true });
    const task = { pool, features: [1, 2], setting: 'coop' as const, models: ['m', 'm'], variant: '' };
    const id = store.ensureTask(task).id;
    const messages = new MessageBus(store);
    return { me: messages.mailbox(id, 'agent1', ['agent2']), partner: messages.mailbox(id, 'agent2', ['agent1']) };
  }

  it("injects a partner's messages before the next model call, in send order", async () => {
    const { me, partner } = bus();
    partner.send('agent1', 'I take lines 10-20 of src/parser.js');
    partner.send('agent1', 'and I add the --quiet flag');
    server.enqueue(call('bash', { command: 'true' }), finish());
    const ctx = context({ partners: ['agent2'], mailbox: me });
    await agent().run(ctx);
    expect(sent(0).at(-1)).toEqual({
      role: 'user',
      content: '[Message from agent2]: I take lines 10-20 of src/parser.js\n\n[Message from agent2]: and I add the --quiet flag',
    });
    expect(sent(1).filter((m) => m.content?.includes('[Message from agent2]'))).toHaveLength(1);
    expect(ctx.trajectory.steps.find((s) => s.kind !== 'note')).toMatchObject({ kind: 'message', name: 'received' });
  });

  it('sends with send_message and can wait for the reply', async () => {
    const { me, partner } = bus();
    server.enqueue(call('send_message', { to: 'agent2', message: 'which lines do you take?', wait_for_reply: true, wait_seconds: 5 }), finish());
    const reply = (async () => {
      await partner.wait(5000);
      expect(partner.take().map((m) => m.body)).toEqual(['which lines do you take?']);
      partner.send('agent1', 'lines 30-40');
    })();
    await agent().run(context({ partners: ['agent2'], mailbox: me }));
    await reply;
    expect(sent(1).at(-1)?.content).toBe('sent to agent2; replies:\n[Message from agent2]: lines 30-40');
  });

  it('tells the model when a message is rejected', async () => {
    const { me } = bus();
    server.enqueue(call('send_message', { to: 'agent7', message: 'hi' }), finish());
    await agent().run(context({ partners: ['agent2'], mailbox: me }));
    expect(sent(1).at(-1)?.content).toMatch(/^Error: not sent: not among your partners: "agent7": use agent2 or "all"/);
  });
});

describe('context compaction', () => {
  it('summarises the history when a prompt nears the context window, keeping the trajectory', async () => {
    const prices = join(mkdtempSync(join(tmpdir(), 'prices-')), 'prices.json');
    writeFileSync(prices, JSON.stringify({ 'test-model': { inputPerMillion: 0, outputPerMillion: 0, contextWindow: 1000 } }));
    const big = (name: string, args: unknown) =>
      chatReply(null, { toolCalls: [{ name, arguments: args }], usage: { prompt_tokens: 810, completion_tokens: 10 } });
    server.enqueue(big('bash', { command: 'ls' }), 'Summary: created nothing yet; next, add the flag.', finish());
    const ctx = context();
    await agent({ pricesFile: prices }).run(ctx);
    expect(sent(1).at(-1)?.content).toMatch(/^Your conversation is about to exceed the context window/);
    expect(sent(2).map((m) => m.role)).toEqual(['system', 'user']);
    expect(sent(2)[1].content).toContain('## Your work so far (earlier steps were summarised to fit the context window)\n\nSummary: created nothing yet');
    expect(ctx.trajectory.steps.map((s) => s.name ?? s.kind)).toEqual(['system_prompt', 'task_prompt', 'model', 'bash', 'compaction', 'model', 'finish']);
  });
});
