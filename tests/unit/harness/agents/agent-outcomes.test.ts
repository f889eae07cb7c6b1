// How an agent ends, and what it sends on the way, against fakes that refuse what the providers
// refuse: the model's own failures end the agent with an outcome to score; only an unreachable or
// failing provider is thrown (the infrastructure's failure, not scored).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LlmAgent } from '../../../../harness/agents/llm-agent.ts';
import { loadAgentConfig } from '../../../../harness/agents/config/agent-config.ts';
import { Trajectory, type TrajectoryStep } from '../../../../harness/agents/trajectory.ts';
import { createModel, INFRASTRUCTURE_KINDS, ModelError, type ModelOptions } from '../../../../harness/models/index.ts';
import { chatReply, errorReply, startFakeOpenAI, startFakeVllm, type FakeOpenAIServer } from '../../../fakes/openai-server.ts';
import { messageReply, startFakeAnthropic, type FakeAnthropicServer } from '../../../fakes/anthropic-server.ts';
import { agentContext, MemorySandbox, writeAgentConfig } from './agent-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'agent-outcomes-'));
let openai: FakeOpenAIServer;
let vllm: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
beforeAll(async () => {
  openai = await startFakeOpenAI();
  vllm = await startFakeVllm({ served: ['qwen'] });
  anthropic = await startFakeAnthropic();
});
afterAll(async () => {
  await Promise.all([openai.close(), vllm.close(), anthropic.close()]);
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  openai.reset();
  vllm.reset();
  anthropic.reset();
});

const env = () => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: openai.url, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: anthropic.url });
function agent(spec: string, options: { config?: Parameters<typeof loadAgentConfig>; model?: ModelOptions } = {}) {
  const model = createModel(spec, { env: env(), cwd: dir, maxRetries: 0, contextWindow: 100_000, warn: () => {}, ...options.model });
  return new LlmAgent(spec, model, { config: loadAgentConfig(...(options.config ?? [])) });
}
const call = (name: string, input: Record<string, unknown>, id?: string) => chatReply(null, { toolCalls: [{ id, name, arguments: input }] });
const finish = () => call('finish', { summary: 'done' });

describe("the model's own failures end the agent, to be scored with its patch", () => {
  it('a request the provider refuses for what the conversation holds: model_rejected', async () => {
    openai.enqueue(
      call('bash', { command: 'ls' }),
      errorReply(400, "Invalid 'messages[3].content': string too long. Expected a string with maximum length 10485760."),
    );
    const outcome = await agent('openai:gpt-4o').run(agentContext());
    expect(outcome).toMatchObject({ status: 'model_rejected', error: expect.stringContaining("request rejected (400): Invalid 'messages[3].content'") });
  });

  it("a model that declines on its provider's safety policy ends refused at once, never nudged and resent", async () => {
    anthropic.enqueue(
      messageReply(null, { toolUses: [{ name: 'bash', input: { command: 'ls' } }] }),
      messageReply('I can', { refusal: 'This request was declined because it could enable cyber harm.' }),
    );
    const claude = await agent('anthropic:claude-sonnet-4-5').run(agentContext());
    expect(claude).toMatchObject({ status: 'refused', error: expect.stringContaining('stop_reason refusal: This request was declined') });
    expect(anthropic.requests).toHaveLength(2);

    openai.enqueue(chatReply(null, { refusal: "I can't help with that." }));
    expect(await agent('gpt-5').run(agentContext())).toMatchObject({ status: 'refused', error: expect.stringContaining("refusal: I can't help with that.") });
    openai.enqueue(call('bash', { command: 'ls' }), chatReply('Partial', { finishReason: 'content_filter' }));
    expect(await agent('openai:gpt-4o').run(agentContext())).toMatchObject({ status: 'refused', error: expect.stringContaining('content_filter') });
    expect(openai.requests).toHaveLength(3);
  });

  it("a refusal of the first request (the task prompt alone, before any answer) is thrown: every task's, not the agent's", async () => {
    openai.enqueue(errorReply(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."));
    const error = await agent('openai:gpt-4o')
      .run(agentContext())
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'first_request_refused', status: 400 });
    expect(INFRASTRUCTURE_KINDS).toContain((error as ModelError).kind);
    expect((error as Error).message).toMatch(/request rejected \(400\): Unsupported parameter: .*\(the agent's first request, before any model answer/);
  });

  it('a provider that keeps failing is thrown: the infrastructure failed, not the agent', async () => {
    openai.handle(() => errorReply(503, 'The server is overloaded'));
    const error = await agent('openai:gpt-4o')
      .run(agentContext())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ kind: 'server', status: 503 });
  });

  it('the cost and time limits of the configuration', async () => {
    const config = writeAgentConfig(dir, 'limits.json', { cost_limit_usd: 0.02, time_limit_seconds: 1 });
    openai.handle(() =>
      chatReply(null, { toolCalls: [{ name: 'bash', arguments: { command: 'true' } }], usage: { prompt_tokens: 4000, completion_tokens: 10 } }),
    );
    expect(await agent('openai:gpt-4o', { config: [config] }).run(agentContext())).toMatchObject({ status: 'cost_limit' });

    // A command that takes 1.1 s on the agent's clock: only Date is faked, so the fake server's
    // sockets and timers run as they do; the clock moves only when the command says so.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const slow = new MemorySandbox(() => {
        vi.setSystemTime(Date.now() + 1100);
        return 'done';
      });
      openai.reset();
      openai.handle(() => call('bash', { command: 'sleep 1' }));
      expect(await agent('openai:gpt-4o', { config: [config] }).run(agentContext({ sandbox: slow }))).toEqual({
        status: 'time_limit',
        error: 'stopped after 1 s',
      });
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('output cut off at the output limit', () => {
  it('a tool call cut off at max_tokens is not run; the model is told and continues', async () => {
    anthropic.enqueue(
      messageReply('Writing the file.', {
        toolUses: [{ id: 'toolu_1', name: 'str_replace_based_edit_tool', input: { command: 'create', path: 'src/verbose.js' } }],
        stopReason: 'max_tokens',
      }),
      messageReply(null, { toolUses: [{ id: 'toolu_2', name: 'finish', input: {} }] }),
    );
    const ctx = agentContext();
    expect(await agent('claude').run(ctx)).toEqual({ status: 'finished' });
    expect((ctx.sandbox as MemorySandbox).files.size).toBe(0);
    const results = anthropic.requests[1]!.body.messages.at(-1).content as { type: string; tool_use_id: string; content: string }[];
    expect(results[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: expect.stringMatching(/^Not run: your reply was cut off at the output limit \(32000 tokens\)/),
    });
  });

  it('a reply cut off without a call is answered with a note, and three cut-offs in a row end the agent', async () => {
    openai.handle(() => chatReply('I will now write a very long', { finishReason: 'length' }));
    const ctx = agentContext();
    expect(await agent('openai:gpt-4o').run(ctx)).toMatchObject({ status: 'output_truncated' });
    expect(openai.requests).toHaveLength(3);
    expect(openai.requests[1]!.body.messages.at(-1).content).toBe(
      'Your reply was cut off at the output limit (16384 tokens). Continue with a shorter reply and a tool call.',
    );
  });
});

describe('what the agent sends', () => {
  it('broken arguments from the model never break a conversation with vLLM (it parses earlier calls)', async () => {
    vllm.enqueue(
      chatReply(null, { toolCalls: [{ id: 'call_1', name: 'bash', arguments: '{"command": "ls' }] }),
      chatReply(null, { toolCalls: [{ id: 'call_2', name: 'finish', arguments: {} }] }),
    );
    const model = createModel(`openai:qwen@${vllm.url}`, { env: {}, cwd: dir, maxRetries: 0, contextWindow: 32_768, warn: () => {} });
    expect(await new LlmAgent('qwen', model).run(agentContext())).toEqual({ status: 'finished' });
    expect(vllm.requests[1]!.body.messages.at(-1).content).toMatch(/^Error: the arguments of bash are not valid JSON/);
  });

  it('gpt-5 keeps its reasoning from turn to turn (the fake checks the encrypted content it handed out)', async () => {
    openai.enqueue(call('bash', { command: 'ls' }, 'call_1'), call('bash', { command: 'cat a.txt' }, 'call_2'), finish());
    expect(await agent('gpt-5').run(agentContext())).toEqual({ status: 'finished' });
    expect(openai.requests.map((r) => r.path)).toEqual(['/v1/responses', '/v1/responses', '/v1/responses']);
    const kinds = (openai.requests[2]!.body.input as { type?: string; role?: string }[]).map((item) => item.type ?? item.role);
    expect(kinds).toEqual(['user', 'reasoning', 'function_call', 'function_call_output', 'reasoning', 'function_call', 'function_call_output']);
  });

  it('records the exact prompts and hands every step over as it happens', async () => {
    const seen: TrajectoryStep[] = [];
    let seenByTheSecondCall = 0;
    openai.enqueue(call('bash', { command: 'ls' }));
    openai.handle(() => {
      seenByTheSecondCall = seen.length;
      return finish();
    });
    await agent('openai:gpt-4o').run(agentContext({ trajectory: new Trajectory((step) => seen.push(step)) }));
    expect(seen.map((s) => s.name ?? s.kind)).toEqual(['system_prompt', 'task_prompt', 'model', 'bash', 'model', 'finish']);
    expect(seenByTheSecondCall).toBe(4);
    expect(seen[0]!.output).toBe(openai.requests[0]!.body.messages[0].content);
    expect(seen[1]!.output).toBe(openai.requests[0]!.body.messages[1].content);
  });
});
