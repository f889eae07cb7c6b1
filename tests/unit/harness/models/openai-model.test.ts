import { APIUserAbortError } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createModel, INFRASTRUCTURE_KINDS, ModelError, type ChatMessage, type ModelOptions } from '../../../../harness/models/index.ts';
import { chatReply, errorReply, hangReply, startFakeOpenAI, startFakeVllm, type FakeOpenAIServer } from '../../../fakes/openai-server.ts';
import { bashTool, cleanupDirs, closedPort, OPENAI_TEST_KEY, tempDir } from './helpers.ts';

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(() => server.close());
/** Servers named in a spec (`openai:<name>@<url>`), started by a test and closed after it. */
const localServers: FakeOpenAIServer[] = [];
async function local(served: string[]): Promise<FakeOpenAIServer> {
  const started = await startFakeVllm({ served });
  localServers.push(started);
  return started;
}
afterEach(async () => {
  server.reset();
  vi.unstubAllEnvs();
  await Promise.all(localServers.splice(0).map((s) => s.close()));
  await cleanupDirs();
});

/** A model on Chat Completions at OpenAI (gpt-5 and the o-series go to the Responses API). */
async function gpt4o(options: ModelOptions = {}) {
  return createModel('openai:gpt-4o', { env: { OPENAI_API_KEY: OPENAI_TEST_KEY, OPENAI_BASE_URL: server.url }, cwd: await tempDir(), ...options });
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  expect((error as Error).message).not.toContain('\n');
  expect((error as Error).message).not.toContain(OPENAI_TEST_KEY);
  return error as ModelError;
}

const ask: ChatMessage = { role: 'user', content: 'How many files are there?' };

describe('OpenAI models on Chat Completions through the SDK', () => {
  it('runs a tool call round trip: the model calls bash, gets the result, answers', async () => {
    const model = await gpt4o();
    server.enqueue(
      chatReply(null, { toolCalls: [{ id: 'call_a', name: 'bash', arguments: { command: 'ls' } }], usage: { prompt_tokens: 1000, completion_tokens: 200 } }),
    );
    const first = await model.complete({ system: 'You are a coding agent.', messages: [ask], tools: [bashTool] });
    expect(first).toMatchObject({
      content: '',
      toolCalls: [{ id: 'call_a', name: 'bash', arguments: '{"command":"ls"}' }],
      stopReason: 'tool_calls',
      usage: { inputTokens: 1000, outputTokens: 200, cachedInputTokens: 0 },
    });
    expect(first.usage.costUsd).toBeCloseTo((1000 * 2.5 + 200 * 10) / 1e6, 12);
    expect(first.usage.latencyMs).toBeGreaterThanOrEqual(0);

    server.enqueue('There are 2 files.');
    const history: ChatMessage[] = [
      ask,
      { role: 'assistant', content: first.content, toolCalls: first.toolCalls },
      { role: 'tool', toolCallId: 'call_a', name: 'bash', content: 'a.txt\nb.txt' },
    ];
    const second = await model.complete({ system: 'You are a coding agent.', messages: history, tools: [bashTool] });
    expect(second).toMatchObject({ content: 'There are 2 files.', toolCalls: [], stopReason: 'stop' });

    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.headers.authorization).toBe(`Bearer ${OPENAI_TEST_KEY}`);
    // No temperature unless asked (reasoning models reject a non-default one); the model's output limit.
    expect(server.requests[1]!.body).toEqual({
      model: 'gpt-4o',
      max_completion_tokens: 16_384,
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'How many files are there?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] },
        { role: 'tool', tool_call_id: 'call_a', content: 'a.txt\nb.txt' },
      ],
      tools: [{ type: 'function', function: { name: 'bash', description: bashTool.description, parameters: bashTool.parameters } }],
    });
  });

  it('sends temperature and max_completion_tokens when given', async () => {
    const model = await gpt4o();
    server.enqueue('ok');
    await model.complete({ messages: [ask], temperature: 0, maxOutputTokens: 300 });
    expect(server.requests[0]!.body).toEqual({ model: 'gpt-4o', messages: [ask], temperature: 0, max_completion_tokens: 300 });
  });

  it('prices cached input tokens at the cached price', async () => {
    const model = await gpt4o();
    server.enqueue(chatReply('ok', { usage: { prompt_tokens: 10_000, completion_tokens: 100, prompt_tokens_details: { cached_tokens: 8_000 } } }));
    const { usage } = await model.complete({ messages: [ask] });
    expect(usage).toMatchObject({ inputTokens: 10_000, cachedInputTokens: 8_000, outputTokens: 100 });
    expect(usage.costUsd).toBeCloseTo((2_000 * 2.5 + 8_000 * 1.25 + 100 * 10) / 1e6, 12);
  });

  it('passes malformed tool-call arguments through raw, and sends them back as {} (as the Anthropic adapter does)', async () => {
    const model = await gpt4o();
    const broken = '{"command": "ls -la';
    server.enqueue(chatReply(null, { toolCalls: [{ id: 'call_b', name: 'bash', arguments: broken }] }), 'fixed');
    const first = await model.complete({ messages: [ask], tools: [bashTool] });
    expect(first.toolCalls).toEqual([{ id: 'call_b', name: 'bash', arguments: broken }]);
    await model.complete({
      messages: [
        ask,
        { role: 'assistant', content: '', toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: 'call_b', name: 'bash', content: 'error: arguments are not valid JSON' },
      ],
      tools: [bashTool],
    });
    expect(server.requests[1]!.body.messages[1].tool_calls[0].function.arguments).toBe('{}');
  });

  it('retries a 429 and then succeeds', async () => {
    const model = await gpt4o();
    server.enqueue(errorReply(429, 'Rate limit reached'), 'after the rate limit');
    expect((await model.complete({ messages: [ask] })).content).toBe('after the rate limit');
    expect(server.requests).toHaveLength(2);
  });

  it('retries a 500 and then succeeds', async () => {
    const model = await gpt4o();
    server.enqueue(errorReply(500), errorReply(503), 'after two server errors');
    expect((await model.complete({ messages: [ask] })).content).toBe('after two server errors');
    expect(server.requests).toHaveLength(3);
  });

  it('gives up on a hanging server after the timeout of each attempt, and says so', async () => {
    const model = await gpt4o({ timeoutMs: 300, maxRetries: 1 });
    server.handle(() => hangReply);
    const error = await failure(model.complete({ messages: [ask] }));
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe(`model gpt-4o at ${new URL(server.url).host}: no answer within 0.3 s (2 attempts): check that the server is up, or retry later`);
    expect(server.requests).toHaveLength(2);
  });

  it('ends with one clear line when the rate limit outlasts the retries', async () => {
    const model = await gpt4o({ maxRetries: 1 });
    server.handle(() => errorReply(429, 'Rate limit reached for gpt-4o'));
    const error = await failure(model.complete({ messages: [ask] }));
    expect(error).toMatchObject({ kind: 'rate_limit', status: 429 });
    expect(error.message).toBe(
      `model gpt-4o at ${new URL(server.url).host}: rate limited (429) after 2 attempts: Rate limit reached for gpt-4o; lower the concurrency or retry later`,
    );
  });

  it('does not retry a rejected key, and names the variable without the key', async () => {
    const model = await gpt4o();
    server.enqueue(errorReply(401, `Incorrect API key provided: ${OPENAI_TEST_KEY}.`));
    const error = await failure(model.complete({ messages: [ask] }));
    expect(error).toMatchObject({ kind: 'auth', status: 401 });
    expect(error.message).toContain('the API key was rejected (401): check OPENAI_API_KEY (environment or ./.env)');
    expect(server.requests).toHaveLength(1);
  });

  it('tells a context overflow apart, and redacts the key from provider messages', async () => {
    const model = await gpt4o();
    server.enqueue(errorReply(400, "This model's maximum context length is 128000 tokens."), errorReply(400, `bad request for key ${OPENAI_TEST_KEY}`));
    expect(await failure(model.complete({ messages: [ask] }))).toMatchObject({ kind: 'context_too_long', status: 400 });
    const rejected = await failure(model.complete({ messages: [ask] }));
    expect(rejected.kind).toBe('request');
    expect(rejected.message).toContain('request rejected (400): bad request for key [redacted]');
  });

  it("recognises each provider's words for a prompt over the window, with the figures they give", async () => {
    const model = await gpt4o({ maxRetries: 0 });
    const overflows = [
      [
        'Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 289650 tokens. Please reduce the length of the messages.',
        { prompt: 289650, limit: 272000 },
      ],
      ['Your input exceeds the context window of this model. Please adjust your input and try again.', {}],
      [
        "This model's maximum context length is 16384 tokens. However, you requested 122946 tokens (112946 in the messages, 10000 in the completion). Please reduce the length of the messages or completion.",
        { prompt: 112946, limit: 16384 },
      ],
    ] as const;
    for (const [message, figures] of overflows) {
      server.enqueue(errorReply(400, message));
      expect(await failure(model.complete({ messages: [ask] }))).toMatchObject({ kind: 'context_too_long', status: 400, overflow: figures });
    }
    server.enqueue({ status: 400, body: { error: { message: 'too big', type: 'invalid_request_error', param: 'input', code: 'context_length_exceeded' } } });
    expect(await failure(model.complete({ messages: [ask] }))).toMatchObject({ kind: 'context_too_long' });
  });

  it("calls a model the API does not serve (a typo, a retired snapshot) not found: the service's doing, never the agent's", async () => {
    const model = createModel('openai:gpt-4q', { env: { OPENAI_API_KEY: OPENAI_TEST_KEY, OPENAI_BASE_URL: server.url }, cwd: await tempDir(), warn: () => {} });
    const error = await failure(model.complete({ messages: [ask] }));
    expect(error).toMatchObject({ kind: 'not_found', status: 404 });
    expect(INFRASTRUCTURE_KINDS).toContain(error.kind);
    expect(error.message).toContain('The model `gpt-4q` does not exist or you do not have access to it.');
  });

  it('reports a server that does not listen', async () => {
    const port = await closedPort();
    const model = createModel(`openai:qwen@http://127.0.0.1:${port}/v1`, { env: {}, cwd: await tempDir(), maxRetries: 0, warn: () => {} });
    const error = await failure(model.complete({ messages: [ask] }));
    expect(error.kind).toBe('connection');
    expect(error.message).toBe(
      `model qwen at 127.0.0.1:${port}: cannot connect (ECONNREFUSED, 1 attempt): check that the server is running and the base URL is right`,
    );
  });

  it('lets a caller abort a call', async () => {
    const model = await gpt4o();
    server.handle(() => hangReply);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await model.complete({ messages: [ask], signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
  });

  it('talks to a server named in the spec without a key', async () => {
    const server = await local(['qwen2.5-coder:7b']);
    const model = createModel(`openai:qwen2.5-coder:7b@${server.url}`, { env: {}, cwd: await tempDir(), warn: () => {} });
    server.enqueue('local answer');
    const response = await model.complete({ messages: [ask] });
    expect(response).toMatchObject({ content: 'local answer', usage: { costUsd: 0 } });
    // Unknown here: a run finds it on the server (context-window.ts) or takes --context-window.
    expect(model).toMatchObject({ id: 'qwen2.5-coder:7b', contextWindow: undefined });
    expect(server.requests[0]!.body.model).toBe('qwen2.5-coder:7b');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer no-key-needed');
  });

  it("never sends the user's OpenAI key to a server named in the spec", async () => {
    const server = await local(['qwen']);
    const env = { OPENAI_API_KEY: OPENAI_TEST_KEY };
    server.enqueue('a');
    await createModel(`openai:qwen@${server.url}`, { env, cwd: await tempDir(), warn: () => {} }).complete({ messages: [ask] });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer no-key-needed');
    server.enqueue('b');
    await createModel(`openai:qwen@${server.url}`, {
      env: { ...env, COOP_BENCH_ENDPOINT_API_KEY: 'endpoint-key' },
      cwd: await tempDir(),
      warn: () => {},
    }).complete({ messages: [ask] });
    expect(server.requests[1]!.headers.authorization).toBe('Bearer endpoint-key');
  });

  it('sends no output limit to a server named in the spec unless asked, and --max-output-tokens when asked', async () => {
    const server = await local(['qwen']);
    server.enqueue('a', 'b');
    await createModel(`openai:qwen@${server.url}`, { env: {}, cwd: await tempDir(), warn: () => {} }).complete({ messages: [ask] });
    await createModel(`openai:qwen@${server.url}`, { env: {}, cwd: await tempDir(), warn: () => {}, maxOutputTokens: 2048 }).complete({ messages: [ask] });
    expect(server.requests.map((r) => r.body.max_completion_tokens)).toEqual([undefined, 2048]);
  });

  it('refuses --max-output-tokens above what the model can write', async () => {
    expect(() => createModel('openai:gpt-4o', { env: { OPENAI_API_KEY: OPENAI_TEST_KEY }, maxOutputTokens: 20_000 })).toThrow(
      '--max-output-tokens 20000 is more than model gpt-4o (openai:gpt-4o) can write (16384): give at most 16384',
    );
  });

  it('uses OPENAI_BASE_URL and OPENAI_API_KEY from process.env by default', async () => {
    vi.stubEnv('OPENAI_BASE_URL', server.url);
    vi.stubEnv('OPENAI_API_KEY', OPENAI_TEST_KEY);
    const model = createModel('openai:gpt-4o', { cwd: await tempDir() });
    server.enqueue('through the environment');
    expect((await model.complete({ messages: [ask] })).content).toBe('through the environment');
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${OPENAI_TEST_KEY}`);
  });
});

describe('an OpenAI-compatible vLLM server', () => {
  it('gets valid JSON in every earlier tool call, also when the model wrote broken arguments', async () => {
    const vllm = await startFakeVllm({ served: ['qwen'] });
    try {
      const model = createModel(`openai:qwen@${vllm.url}`, { env: {}, cwd: await tempDir(), warn: () => {}, maxRetries: 0 });
      vllm.enqueue(chatReply(null, { toolCalls: [{ id: 'call_1', name: 'bash', arguments: '{"command": "cat a.txt' }] }), 'done');
      const first = await model.complete({ messages: [ask], tools: [bashTool] });
      // vLLM parses earlier calls' arguments and refuses the request if one is not JSON (vllm#43995).
      const second = await model.complete({
        messages: [
          ask,
          { role: 'assistant', content: '', toolCalls: first.toolCalls },
          { role: 'tool', toolCallId: 'call_1', name: 'bash', content: 'Error: not valid JSON' },
        ],
        tools: [bashTool],
      });
      expect(second.content).toBe('done');
    } finally {
      await vllm.close();
    }
  });
});
