import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createModel, INFRASTRUCTURE_KINDS, ModelError, type ChatMessage, type ModelOptions } from '../../../../harness/models/index.ts';
import { anthropicErrorReply, hangReply, messageReply, startFakeAnthropic, type FakeAnthropicServer } from '../../../fakes/anthropic-server.ts';
import { ANTHROPIC_TEST_KEY, bashTool, cleanupDirs, tempDir } from './helpers.ts';

let server: FakeAnthropicServer;
beforeAll(async () => {
  server = await startFakeAnthropic();
});
afterAll(() => server.close());
afterEach(async () => {
  server.reset();
  await cleanupDirs();
});

/** Claude Sonnet 4.5, a model that does not think unless asked (it retires on 2026-11-30: the tests run on 2026-11-29). */
async function claude(options: ModelOptions = {}) {
  return createModel('anthropic:claude-sonnet-4-5', {
    warn: () => {},
    env: { ANTHROPIC_API_KEY: ANTHROPIC_TEST_KEY, ANTHROPIC_BASE_URL: server.url },
    cwd: await tempDir(),
    ...options,
  });
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  expect((error as Error).message).not.toContain('\n');
  expect((error as Error).message).not.toContain(ANTHROPIC_TEST_KEY);
  return error as ModelError;
}

const ask: ChatMessage = { role: 'user', content: 'How many files are there?' };
const host = () => new URL(server.url).host;
/** SDK 1.x sends the key as a bearer token; older versions used x-api-key. */
const sentKey = (headers: IncomingHttpHeaders) => headers['x-api-key'] ?? headers.authorization?.replace(/^Bearer /, '');

describe('Anthropic models through the SDK', () => {
  it('runs a tool call round trip: the model calls bash, gets the result, answers', async () => {
    const model = await claude();
    // The prompt may use the 200k window less the 32k output budget.
    expect(model).toMatchObject({ spec: 'anthropic:claude-sonnet-4-5', id: 'claude-sonnet-4-5', contextWindow: 168_000, maxOutputTokens: 32_000 });
    server.enqueue(
      messageReply('Let me look.', {
        toolUses: [{ id: 'toolu_a', name: 'bash', input: { command: 'ls' } }],
        usage: { input_tokens: 1000, output_tokens: 200 },
      }),
    );
    const first = await model.complete({ system: 'You are a coding agent.', messages: [ask], tools: [bashTool] });
    expect(first).toMatchObject({
      content: 'Let me look.',
      toolCalls: [{ id: 'toolu_a', name: 'bash', arguments: '{"command":"ls"}' }],
      stopReason: 'tool_use',
      usage: { inputTokens: 1000, outputTokens: 200, cachedInputTokens: 0 },
    });
    expect(first.usage.costUsd).toBeCloseTo((1000 * 3 + 200 * 15) / 1e6, 12);

    server.enqueue('There are 2 files.');
    const history: ChatMessage[] = [
      ask,
      { role: 'assistant', content: first.content, toolCalls: first.toolCalls },
      { role: 'tool', toolCallId: 'toolu_a', name: 'bash', content: 'a.txt\nb.txt' },
    ];
    const second = await model.complete({ system: 'You are a coding agent.', messages: history, tools: [bashTool] });
    expect(second).toMatchObject({ content: 'There are 2 files.', toolCalls: [], stopReason: 'end_turn' });

    const request = server.requests[1]!;
    expect(request.path).toBe('/v1/messages');
    expect(sentKey(request.headers)).toBe(ANTHROPIC_TEST_KEY);
    expect(request.headers['anthropic-version']).toBeDefined();
    // System prompt apart, tool results in a user turn, max_tokens always, no temperature unless
    // asked; cache breakpoints after the system prompt and on the newest block.
    expect(request.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 32_000,
      system: [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'How many files are there?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me look.' },
            { type: 'tool_use', id: 'toolu_a', name: 'bash', input: { command: 'ls' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'a.txt\nb.txt', cache_control: { type: 'ephemeral' } }] },
      ],
      tools: [{ name: 'bash', description: bashTool.description, input_schema: bashTool.parameters }],
    });
  });

  it('gives a model that thinks by default (Sonnet 5.5) its thinking blocks back with the tool results', async () => {
    const model = await createModel('anthropic:claude-sonnet-5-5', {
      env: { ANTHROPIC_API_KEY: ANTHROPIC_TEST_KEY, ANTHROPIC_BASE_URL: server.url },
      cwd: await tempDir(),
    });
    expect(model).toMatchObject({ id: 'claude-sonnet-5-5', contextWindow: 968_000 });
    server.enqueue(messageReply(null, { toolUses: [{ id: 'toolu_t', name: 'bash', input: { command: 'ls' } }] }), 'There are 2 files.');
    const first = await model.complete({ system: 'You are a coding agent.', messages: [ask], tools: [bashTool] });
    expect(first.replay).toMatchObject({ api: 'anthropic-messages', items: [{ type: 'thinking', thinking: '' }] });
    const history: ChatMessage[] = [
      ask,
      { role: 'assistant', content: first.content, toolCalls: first.toolCalls, replay: first.replay },
      { role: 'tool', toolCallId: 'toolu_t', name: 'bash', content: 'a.txt\nb.txt' },
    ];
    expect(await model.complete({ system: 'You are a coding agent.', messages: history, tools: [bashTool] })).toMatchObject({ content: 'There are 2 files.' });
    expect(server.refusals).toEqual([]);
    expect(server.requests[1]!.body.messages[1].content[0]).toEqual(first.replay!.items[0]);

    // What the real API says to a turn that lost them (the strict fake's rule).
    const lost = model.complete({
      system: 'You are a coding agent.',
      messages: [ask, { ...history[1]!, replay: undefined } as ChatMessage, history[2]!],
      tools: [bashTool],
    });
    expect((await failure(lost)).message).toMatch(/Expected `thinking` or `redacted_thinking`, but found `tool_use`/);
  });

  it('merges parallel tool results and a partner message into one user turn, tool results first', async () => {
    const model = await claude({ maxOutputTokens: 1000 });
    server.enqueue('ok');
    await model.complete({
      messages: [
        ask,
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 't1', name: 'bash', arguments: '{"command":"ls"}' },
            { id: 't2', name: 'bash', arguments: '{"command":"pwd"' },
          ],
        },
        { role: 'tool', toolCallId: 't1', name: 'bash', content: 'a.txt' },
        { role: 'user', content: '[Message from agent2]: I take src/parser.py' },
        { role: 'tool', toolCallId: 't2', name: 'bash', content: 'error: arguments are not valid JSON' },
      ],
      tools: [bashTool],
      temperature: 0,
    });
    const { body } = server.requests[0]!;
    expect(body).toMatchObject({ max_tokens: 1000, temperature: 0 });
    expect(body.system).toBeUndefined();
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'How many files are there?' }] },
      // Malformed arguments (t2) go back as {}: the API needs an object.
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 't1', name: 'bash', input: { command: 'ls' } },
          { type: 'tool_use', id: 't2', name: 'bash', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'a.txt' },
          { type: 'tool_result', tool_use_id: 't2', content: 'error: arguments are not valid JSON' },
          { type: 'text', text: '[Message from agent2]: I take src/parser.py', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
  });

  it('counts cache reads as input at the cached price', async () => {
    const model = await claude();
    server.enqueue(messageReply('ok', { usage: { input_tokens: 1_000, cache_read_input_tokens: 9_000, output_tokens: 100 } }));
    const { usage } = await model.complete({ messages: [ask] });
    expect(usage).toMatchObject({ inputTokens: 10_000, cachedInputTokens: 9_000, outputTokens: 100 });
    expect(usage.costUsd).toBeCloseTo((1_000 * 3 + 9_000 * 0.3 + 100 * 15) / 1e6, 12);
  });

  it('retries a 429 and then succeeds', async () => {
    const model = await claude();
    server.enqueue(anthropicErrorReply(429), 'after the rate limit');
    expect((await model.complete({ messages: [ask] })).content).toBe('after the rate limit');
    expect(server.requests).toHaveLength(2);
  });

  it('retries a 500 and an overload (529) and then succeeds', async () => {
    const model = await claude();
    server.enqueue(anthropicErrorReply(500), anthropicErrorReply(529, 'Overloaded'), 'after two server errors');
    expect((await model.complete({ messages: [ask] })).content).toBe('after two server errors');
    expect(server.requests).toHaveLength(3);
  });

  it('gives up on a hanging server after the timeout of each attempt, and says so', async () => {
    const model = await claude({ timeoutMs: 300, maxRetries: 1 });
    server.handle(() => hangReply);
    const error = await failure(model.complete({ messages: [ask] }));
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe(`model claude-sonnet-4-5 at ${host()}: no answer within 0.3 s (2 attempts): check that the server is up, or retry later`);
    expect(server.requests).toHaveLength(2);
  });

  it('ends with one clear line when the server keeps failing', async () => {
    const model = await claude({ maxRetries: 1 });
    server.handle(() => anthropicErrorReply(529, 'Overloaded'));
    const error = await failure(model.complete({ messages: [ask] }));
    expect(error).toMatchObject({ kind: 'server', status: 529 });
    expect(error.message).toBe(`model claude-sonnet-4-5 at ${host()}: server error 529 after 2 attempts: Overloaded; the provider is failing, retry later`);
  });

  it('names ANTHROPIC_API_KEY when the key is rejected, and tells a long prompt apart', async () => {
    const model = await claude();
    server.enqueue(anthropicErrorReply(401, 'invalid x-api-key'), anthropicErrorReply(400, 'prompt is too long: 210000 tokens > 200000 maximum'));
    const rejected = await failure(model.complete({ messages: [ask] }));
    expect(rejected).toMatchObject({ kind: 'auth', status: 401 });
    expect(rejected.message).toContain('check ANTHROPIC_API_KEY (environment or ./.env)');
    expect(await failure(model.complete({ messages: [ask] }))).toMatchObject({ kind: 'context_too_long', status: 400 });
    expect(server.requests).toHaveLength(2);
  });

  it("calls a model the API does not serve (a typo, a retired model) not found: the service's doing, never the agent's", async () => {
    const model = createModel('anthropic:claude-sonnet-9', {
      env: { ANTHROPIC_API_KEY: ANTHROPIC_TEST_KEY, ANTHROPIC_BASE_URL: server.url },
      cwd: await tempDir(),
      warn: () => undefined,
    });
    const error = await failure(model.complete({ messages: [ask] }));
    expect(error).toMatchObject({ kind: 'not_found', status: 404 });
    expect(INFRASTRUCTURE_KINDS).toContain(error.kind);
    expect(error.message).toBe(
      `model claude-sonnet-9 at ${host()}: not found (404): model: claude-sonnet-9; check the model name (a model its provider retired is no longer served: harness/models/README.md)`,
    );
  });

  it('talks to a server named in the spec without a key', async () => {
    const model = createModel(`anthropic:claude-haiku-4-5@${server.url}`, { env: {}, cwd: await tempDir() });
    server.enqueue('proxied');
    expect((await model.complete({ messages: [ask] })).content).toBe('proxied');
    expect(sentKey(server.requests[0]!.headers)).toBe('no-key-needed');
  });

  it('uses a key from ./.env, and never puts it into process.env', async () => {
    const cwd = await tempDir({ '.env': `ANTHROPIC_API_KEY=${ANTHROPIC_TEST_KEY}\n` });
    const model = createModel('anthropic:claude-haiku-4-5', { env: { ANTHROPIC_BASE_URL: server.url }, cwd });
    server.enqueue('hello');
    expect((await model.complete({ messages: [ask] })).content).toBe('hello');
    expect(sentKey(server.requests[0]!.headers)).toBe(ANTHROPIC_TEST_KEY);
    expect(process.env.ANTHROPIC_API_KEY).not.toBe(ANTHROPIC_TEST_KEY);
    expect(JSON.stringify(process.env)).not.toContain(ANTHROPIC_TEST_KEY);
  });
});

describe('Anthropic prompt caching, output limits, and requests the API refuses', () => {
  /** Over the 1024-token minimum the cache stores (the fake counts 4 characters a token). */
  const system = `You are a coding agent. ${'Read the code before you change it. '.repeat(150)}`;
  const step = (i: number): ChatMessage[] => [
    { role: 'assistant', content: '', toolCalls: [{ id: `toolu_${i}`, name: 'bash', arguments: `{"command":"cat file${i}.py"}` }] },
    { role: 'tool', toolCallId: `toolu_${i}`, name: 'bash', content: `contents of file${i}.py\n${'x = 1\n'.repeat(100)}` },
  ];

  it('caches the system prompt and the conversation so far: the next step reads them at 0.1x the input price', async () => {
    const model = await claude();
    server.handle(() => messageReply(null, { toolUses: [{ name: 'bash', input: { command: 'ls' } }] }));
    const first = await model.complete({ system, messages: [ask], tools: [bashTool] });
    const second = await model.complete({ system, messages: [ask, ...step(1)], tools: [bashTool] });
    const third = await model.complete({ system, messages: [ask, ...step(1), ...step(2)], tools: [bashTool] });

    // The first call writes the whole prompt to the cache; each later one reads what the one before wrote.
    expect(first.usage).toMatchObject({ cachedInputTokens: 0, cacheWriteTokens: first.usage.inputTokens, cacheWrite1hTokens: 0 });
    expect(second.usage.cachedInputTokens).toBe(first.usage.inputTokens);
    expect(third.usage.cachedInputTokens).toBe(second.usage.inputTokens);
    expect(third.usage.cacheWriteTokens).toBe(third.usage.inputTokens - second.usage.inputTokens);
    const { inputTokens, cachedInputTokens, cacheWriteTokens, outputTokens } = third.usage;
    expect(third.usage.costUsd).toBeCloseTo(
      ((inputTokens - cachedInputTokens! - cacheWriteTokens!) * 3 + cachedInputTokens! * 0.3 + cacheWriteTokens! * 3.75 + outputTokens * 15) / 1e6,
      12,
    );
  });

  it("caches nothing below the model's minimum: 4,096 tokens for Opus 4.5 and Haiku 4.5, 1,024 for Sonnet 4.5", async () => {
    // About 1,200 tokens of prompt (the fake counts 4 characters a token): over Sonnet's minimum only.
    const env = { env: { ANTHROPIC_API_KEY: ANTHROPIC_TEST_KEY, ANTHROPIC_BASE_URL: server.url }, cwd: await tempDir() };
    server.handle(() => 'ok');
    const own = `${system} Keep answers short.`;
    const usage = async (spec: string) => (await createModel(spec, env).complete({ system: own, messages: [ask] })).usage;
    for (const spec of ['anthropic:claude-opus-4-5', 'anthropic:claude-haiku-4-5']) {
      expect(await usage(spec)).toMatchObject({ cachedInputTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0 });
    }
    expect((await usage('anthropic:claude-sonnet-4-5')).cacheWriteTokens).toBeGreaterThan(1024);
  });

  it('writes 1-hour cache entries with --cache-ttl 1h, priced at 2x the input price', async () => {
    const model = await claude({ cacheTtl: '1h' });
    server.enqueue('ok');
    const { usage } = await model.complete({ system, messages: [ask] });
    expect(server.requests[0]!.body.system[0].cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(usage).toMatchObject({ cacheWriteTokens: 0, cacheWrite1hTokens: usage.inputTokens });
    expect(usage.costUsd).toBeCloseTo((usage.inputTokens * 6 + usage.outputTokens * 15) / 1e6, 12);
  });

  it('never sends text that is empty or only whitespace (the API refuses it)', async () => {
    const model = await claude();
    server.enqueue('ok');
    const answer = await model.complete({
      messages: [
        ask,
        { role: 'assistant', content: ' \n\n ', toolCalls: [{ id: 't1', name: 'bash', arguments: '{"command":"ls"}' }] },
        { role: 'tool', toolCallId: 't1', name: 'bash', content: 'a.txt' },
      ],
      tools: [bashTool],
    });
    expect(answer.content).toBe('ok');
    expect(server.requests[0]!.body.messages[1].content).toEqual([{ type: 'tool_use', id: 't1', name: 'bash', input: { command: 'ls' } }]);
  });

  it("asks for the model's output limit up to 32000 tokens, or what --max-output-tokens says within the limit", async () => {
    server.handle(() => 'ok');
    await (await claude()).complete({ messages: [ask] });
    await (await claude({ maxOutputTokens: 64_000 })).complete({ messages: [ask] });
    await (await claude()).complete({ messages: [ask], maxOutputTokens: 500 });
    expect(server.requests.map((r) => r.body.max_tokens)).toEqual([32_000, 64_000, 500]);
    await expect(claude({ maxOutputTokens: 70_000 })).rejects.toThrow(
      '--max-output-tokens 70000 is more than model claude-sonnet-4-5 (anthropic:claude-sonnet-4-5) can write (64000): give at most 64000',
    );
  });

  it('says when the output was cut off at max_tokens', async () => {
    const model = await claude();
    server.enqueue(
      messageReply(null, { toolUses: [{ name: 'str_replace_based_edit_tool', input: { command: 'create', path: 'a.py' } }], stopReason: 'max_tokens' }),
    );
    expect(await model.complete({ messages: [ask], tools: [bashTool] })).toMatchObject({ stopReason: 'max_tokens', truncated: true });
  });

  it('keeps the tools, and forbids calling them, for a request that must not call any', async () => {
    const model = await claude();
    server.enqueue('summary');
    await model.complete({ messages: [ask, ...step(1), { role: 'user', content: 'Summarise.' }], tools: [bashTool], toolChoice: 'none' });
    expect(server.requests[0]!.body).toMatchObject({ tools: [{ name: 'bash' }], tool_choice: { type: 'none' } });
  });
});
