// gpt-5 and the other OpenAI reasoning models on the Responses API, against the fake that checks
// what the real API checks (tests/fakes/contracts/openai-responses.ts).
import OpenAI from 'openai';
import type { ResponseFunctionToolCall, ResponseInputItem, ResponseReasoningItem } from 'openai/resources/responses/responses';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createModel, type ChatMessage, type ModelOptions } from '../../../../harness/models/index.ts';
import { chatReply, startFakeOpenAI, type FakeOpenAIServer } from '../../../fakes/openai-server.ts';
import { bashTool, cleanupDirs, OPENAI_TEST_KEY, tempDir } from './helpers.ts';

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(() => server.close());
afterEach(async () => {
  server.reset();
  await cleanupDirs();
});

async function gpt5(options: ModelOptions = {}) {
  return createModel('gpt-5', { env: { OPENAI_API_KEY: OPENAI_TEST_KEY, OPENAI_BASE_URL: server.url }, cwd: await tempDir(), maxRetries: 0, ...options });
}

const ask: ChatMessage = { role: 'user', content: 'Add a --verbose flag.' };

describe('gpt-5 on the Responses API', () => {
  it("keeps nothing at OpenAI and passes each answer's encrypted reasoning back with its calls", async () => {
    const model = await gpt5();
    server.enqueue(
      chatReply(null, { toolCalls: [{ id: 'call_a', name: 'bash', arguments: { command: 'ls' } }], usage: { prompt_tokens: 1000, completion_tokens: 400 } }),
      'Done.',
    );
    const first = await model.complete({ system: 'You are a coding agent.', messages: [ask], tools: [bashTool] });
    expect(server.requests[0]!.path).toBe('/v1/responses');
    expect(server.requests[0]!.body).toEqual({
      model: 'gpt-5',
      instructions: 'You are a coding agent.',
      input: [{ role: 'user', content: 'Add a --verbose flag.' }],
      tools: [{ type: 'function', name: 'bash', description: bashTool.description, parameters: bashTool.parameters, strict: false }],
      store: false,
      include: ['reasoning.encrypted_content'],
      max_output_tokens: 32_000,
    });
    expect(first).toMatchObject({ toolCalls: [{ id: 'call_a', name: 'bash', arguments: '{"command":"ls"}' }], stopReason: 'tool_calls', truncated: false });
    expect(first.usage).toMatchObject({ inputTokens: 1000, outputTokens: 400, reasoningTokens: 200 });
    expect(first.usage.costUsd).toBeCloseTo((1000 * 1.25 + 400 * 10) / 1e6, 12);
    const reasoning = first.replay?.items[0] as { type: string; id: string; encrypted_content: string };
    expect(reasoning).toMatchObject({ type: 'reasoning', encrypted_content: expect.stringMatching(/^gAAAA/) });

    const second = await model.complete({
      system: 'You are a coding agent.',
      messages: [
        ask,
        { role: 'assistant', content: first.content, toolCalls: first.toolCalls, replay: first.replay },
        { role: 'tool', toolCallId: 'call_a', name: 'bash', content: 'a.txt' },
      ],
      tools: [bashTool],
    });
    expect(second.content).toBe('Done.');
    // The fake verifies the encrypted content it handed out; the reasoning comes right before its
    // call, which keeps its id (the cookbook's `context += response.output`).
    expect(server.requests[1]!.body.input).toEqual([
      { role: 'user', content: 'Add a --verbose flag.' },
      { type: 'reasoning', id: reasoning.id, summary: [], encrypted_content: reasoning.encrypted_content },
      { type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: 'call_a', name: 'bash', arguments: '{"command":"ls"}' },
      { type: 'function_call_output', call_id: 'call_a', output: 'a.txt' },
    ]);
  });

  it('sends --reasoning-effort, and no temperature (reasoning models refuse one)', async () => {
    server.enqueue('ok');
    await (await gpt5({ reasoningEffort: 'high' })).complete({ messages: [ask] });
    expect(server.requests[0]!.body.reasoning).toEqual({ effort: 'high' });
    expect(server.requests[0]!.body).not.toHaveProperty('temperature');
  });

  it('replays malformed arguments as {} and drops reasoning that led to nothing, as the API needs', async () => {
    const model = await gpt5();
    server.enqueue(chatReply(null, { toolCalls: [{ id: 'call_b', name: 'bash', arguments: '{"command": "ls' }] }), '', 'fine');
    const first = await model.complete({ messages: [ask], tools: [bashTool] });
    const history: ChatMessage[] = [
      ask,
      { role: 'assistant', content: '', toolCalls: first.toolCalls, replay: first.replay },
      { role: 'tool', toolCallId: 'call_b', name: 'bash', content: 'Error: not JSON' },
    ];
    const empty = await model.complete({ messages: history, tools: [bashTool] });
    expect(empty.content).toBe('');
    const last = await model.complete({
      messages: [...history, { role: 'assistant', content: '', replay: empty.replay }, { role: 'user', content: 'Call a tool.' }],
      tools: [bashTool],
    });
    expect(last.content).toBe('fine');
    const input = server.requests[2]!.body.input as { type?: string; arguments?: string }[];
    expect(input.find((item) => item.type === 'function_call')?.arguments).toBe('{}');
    expect(input.filter((item) => item.type === 'reasoning')).toHaveLength(1);
  });

  it('replays an answer with text and calls as its output was: reasoning, the message and the call, with their ids', async () => {
    const model = await gpt5();
    server.enqueue(chatReply('Looking.', { toolCalls: [{ id: 'call_t', name: 'bash', arguments: { command: 'ls' } }] }), 'Done.');
    const first = await model.complete({ messages: [ask], tools: [bashTool] });
    await model.complete({
      messages: [
        ask,
        { role: 'assistant', content: first.content, toolCalls: first.toolCalls, replay: first.replay },
        { role: 'tool', toolCallId: 'call_t', name: 'bash', content: 'a' },
      ],
      tools: [bashTool],
    });
    expect(server.refusals).toEqual([]);
    expect((server.requests[1]!.body.input as { type?: string; id?: string }[]).map((item) => [item.type, item.id?.replace(/\d+$/, '')])).toEqual([
      [undefined, undefined],
      ['reasoning', 'rs_fake_'],
      ['message', 'msg_fake_'],
      ['function_call', 'fc_fake_'],
      ['function_call_output', undefined],
    ]);
  });

  it('says when the model declined: a refusal content part, or an answer stopped by the content filter', async () => {
    const model = await gpt5();
    server.enqueue(chatReply(null, { refusal: "I can't help with that." }), chatReply('Partial', { finishReason: 'content_filter' }));
    expect(await model.complete({ messages: [ask] })).toMatchObject({ refusal: "refusal: I can't help with that." });
    expect(await model.complete({ messages: [ask] })).toMatchObject({ refusal: 'incomplete_details.reason content_filter', content: 'Partial' });
  });

  it('says when the answer was cut off at max_output_tokens', async () => {
    server.enqueue(chatReply(null, { toolCalls: [{ name: 'bash', arguments: '{"command": "ec' }], finishReason: 'length' }));
    expect(await (await gpt5()).complete({ messages: [ask], tools: [bashTool] })).toMatchObject({ stopReason: 'max_output_tokens', truncated: true });
  });

  it('keeps Chat Completions for a server named in the spec, unless told otherwise', async () => {
    server.handle(() => 'ok');
    const env = { env: {}, cwd: await tempDir(), warn: () => {} };
    await createModel(`openai:gpt-5@${server.url}`, env).complete({ messages: [ask] });
    await createModel(`openai:gpt-5@${server.url}`, { ...env, openaiApi: 'responses' }).complete({ messages: [ask] });
    await createModel('openai:gpt-4o', { ...env, env: { OPENAI_API_KEY: OPENAI_TEST_KEY, OPENAI_BASE_URL: server.url } }).complete({ messages: [ask] });
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/responses', '/v1/chat/completions']);
  });
});

describe('the fake Responses API refuses what the real one refuses', () => {
  it('a reasoning item without its encrypted content when nothing is stored, and a call without its output', async () => {
    const model = await gpt5();
    server.enqueue(chatReply(null, { toolCalls: [{ id: 'call_c', name: 'bash', arguments: { command: 'ls' } }] }));
    const first = await model.complete({ messages: [ask], tools: [bashTool] });
    const stripped = { api: 'openai-responses' as const, items: first.replay!.items.map((item) => ({ ...(item as object), encrypted_content: undefined })) };
    const withoutContent = model.complete({
      messages: [
        ask,
        { role: 'assistant', content: '', toolCalls: first.toolCalls, replay: stripped },
        { role: 'tool', toolCallId: 'call_c', name: 'bash', content: 'a' },
      ],
      tools: [bashTool],
    });
    await expect(withoutContent).rejects.toMatchObject({
      kind: 'not_found',
      status: 404,
      message: expect.stringContaining('Items are not persisted when `store` is set to false'),
    });
    const unanswered = model.complete({
      messages: [ask, { role: 'assistant', content: '', toolCalls: first.toolCalls, replay: first.replay }],
      tools: [bashTool],
    });
    await expect(unanswered).rejects.toMatchObject({ kind: 'request', message: expect.stringContaining('No tool output found for function call call_c') });
  });

  it('a reasoning item whose following item lost its id, and an item with its id but without its reasoning', async () => {
    const client = new OpenAI({ baseURL: server.url, apiKey: OPENAI_TEST_KEY, maxRetries: 0 });
    const tools = [{ type: 'function' as const, name: 'bash', parameters: bashTool.parameters, strict: false }];
    const request = { model: 'gpt-5', tools, store: false, include: ['reasoning.encrypted_content' as const] };
    server.enqueue(chatReply(null, { toolCalls: [{ id: 'call_d', name: 'bash', arguments: { command: 'ls' } }] }));
    const first = await client.responses.create({ ...request, input: 'Add a --verbose flag.' });
    const [reasoning, call] = first.output as [ResponseReasoningItem, ResponseFunctionToolCall];
    const output = { type: 'function_call_output' as const, call_id: 'call_d', output: 'a' };
    const { id: _, ...callWithoutId } = call;
    await expect(client.responses.create({ ...request, input: ['Add a --verbose flag.', reasoning, callWithoutId, output].map(asItem) })).rejects.toMatchObject(
      {
        status: 400,
        message: expect.stringMatching(/Item 'rs_fake_\d+' of type 'reasoning' was provided without its required following item/),
      },
    );
    await expect(client.responses.create({ ...request, input: ['Add a --verbose flag.', call, output].map(asItem) })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/of type 'function_call' was provided without its required 'reasoning' item: 'rs_fake_\d+'/),
    });
    // The documented shape, every output item as returned, is taken.
    server.enqueue('Done.');
    await client.responses.create({ ...request, input: ['Add a --verbose flag.', reasoning, call, output].map(asItem) });
    expect(server.refusals).toHaveLength(2);
  });
});

const asItem = (item: unknown): ResponseInputItem => (typeof item === 'string' ? { role: 'user', content: item } : (item as ResponseInputItem));
