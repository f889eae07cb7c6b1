// The streaming fakes (what Claude Code and Codex talk to) refuse what the real APIs refuse, by the
// same contracts as the non-streaming fakes: checked here through the official SDKs.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropicStream } from '../../../fakes/anthropic-stream.ts';
import { startFakeResponses } from '../../../fakes/openai-responses.ts';
import type { StreamServer } from '../../../fakes/stream-server.ts';

let server: StreamServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const anthropicClient = (options: { apiKey?: string | null; authToken?: string }) =>
  new Anthropic({ baseURL: server!.url, maxRetries: 0, apiKey: options.apiKey ?? null, authToken: options.authToken ?? null });

describe('the streaming Anthropic fake', () => {
  it('streams a tool round trip, and refuses a tool_use left without its tool_result', async () => {
    server = await startFakeAnthropicStream(() => ({ toolUses: [{ id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }] }));
    const client = anthropicClient({ apiKey: 'sk-ant-test' });
    const tools = [{ name: 'Bash', input_schema: { type: 'object' as const, properties: {} } }];
    const first = await client.messages
      .stream({ model: 'claude-sonnet-4-5', max_tokens: 100, tools, messages: [{ role: 'user', content: 'list' }] })
      .finalMessage();
    const history = [
      { role: 'user' as const, content: 'list' },
      { role: 'assistant' as const, content: first.content },
    ];
    await client.messages
      .stream({
        model: 'claude-sonnet-4-5',
        max_tokens: 100,
        tools,
        messages: [...history, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' }] }],
      })
      .finalMessage();
    const unanswered = client.messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      tools,
      messages: [...history, { role: 'user', content: 'and?' }],
    });
    await expect(unanswered.finalMessage()).rejects.toMatchObject({ status: 400, error: { error: { type: 'invalid_request_error' } } });
  });

  it('refuses a conversation that opens with the assistant, and max_tokens over the model limit', async () => {
    server = await startFakeAnthropicStream(() => ({ text: 'x' }));
    const client = anthropicClient({ apiKey: 'sk-ant-test' });
    await expect(
      client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'assistant', content: 'hi' }] }),
    ).rejects.toMatchObject({
      status: 400,
      error: { error: { message: expect.stringContaining('first message must use the "user" role') } },
    });
    const tooLong = client.messages.stream({ model: 'claude-haiku-4-5', max_tokens: 70_000, messages: [{ role: 'user', content: 'hi' }] });
    await expect(tooLong.finalMessage()).rejects.toMatchObject({
      status: 400,
      error: { error: { message: expect.stringContaining('maximum allowed number of output tokens') } },
    });
  });

  it('takes a mid-conversation system message where Sonnet 5.5 does, as Claude Code sends its reminders, and refuses it elsewhere', async () => {
    server = await startFakeAnthropicStream(() => ({ text: 'ok' }));
    const client = anthropicClient({ apiKey: 'sk-ant-test' });
    const ask = (model: string, messages: { role: string; content: string }[]) =>
      client.messages.create({ model, max_tokens: 100, messages } as never) as Promise<{ content: { type: string }[] }>;
    const user = { role: 'user', content: 'fix the parser' };
    const system = { role: 'system', content: '<system-reminder>the working directory is /workspace/repo</system-reminder>' };
    const assistant = { role: 'assistant', content: 'On it.' };
    await expect(ask('claude-sonnet-5-5', [user, system])).resolves.toMatchObject({ content: [{ type: 'thinking' }, { type: 'text' }] });
    await expect(ask('claude-sonnet-5-5', [user, system, assistant, user])).resolves.toBeDefined();
    // Placement (mid-conversation system messages docs): never first, after a user turn, then last or an assistant turn.
    for (const misplaced of [
      [system, user],
      [user, assistant, system],
      [user, system, user],
    ])
      await expect(ask('claude-sonnet-5-5', misplaced)).rejects.toMatchObject({ status: 400, error: { error: { type: 'invalid_request_error' } } });
    // Sonnet 4.5 takes no system role in messages.
    await expect(ask('claude-sonnet-4-5', [user, system])).rejects.toMatchObject({
      status: 400,
      error: { error: { message: "messages.1.role: Input should be 'user' or 'assistant'" } },
    });
  });

  it('takes a key as x-api-key or as a bearer token, and answers none with authentication_error', async () => {
    server = await startFakeAnthropicStream(() => ({ text: 'ok' }));
    const ask = (client: Anthropic) => client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    await expect(ask(anthropicClient({ apiKey: 'sk-ant-test' }))).resolves.toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    await expect(ask(anthropicClient({ authToken: 'oauth-token' }))).resolves.toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    const anonymous = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect([anonymous.status, ((await anonymous.json()) as { error: { type: string } }).error.type]).toEqual([401, 'authentication_error']);
  });
});

describe('the streaming Responses fake', () => {
  const client = () => new OpenAI({ baseURL: `${server!.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });

  it('pairs custom tool calls with their outputs, as function calls', async () => {
    server = await startFakeResponses(() => ({ text: 'done' }));
    const call = { type: 'custom_tool_call' as const, call_id: 'call_7', name: 'apply_patch', input: '*** Begin Patch' };
    const output = { type: 'custom_tool_call_output' as const, call_id: 'call_7', output: 'applied' };
    await expect(client().responses.create({ model: 'gpt-5', store: false, input: [{ role: 'user', content: 'go' }, call, output] })).resolves.toMatchObject({
      status: 'completed',
    });
    await expect(client().responses.create({ model: 'gpt-5', store: false, input: [{ role: 'user', content: 'go' }, output] })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('No tool call found for function call output with call_id call_7'),
    });
    await expect(client().responses.create({ model: 'gpt-5', store: false, input: [{ role: 'user', content: 'go' }, call] })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('No tool output found for function call call_7'),
    });
  });

  it('does not ask for the call when the output continues a stored response', async () => {
    server = await startFakeResponses(() => ({ text: 'done' }));
    const output = { type: 'function_call_output' as const, call_id: 'call_9', output: 'ok' };
    await expect(client().responses.create({ model: 'gpt-5', previous_response_id: 'resp_1', input: [output] })).resolves.toMatchObject({
      status: 'completed',
    });
  });

  it('takes tool_choice "auto" or "none" without tools, as OpenAI does, and refuses "required" or a named tool without them', async () => {
    server = await startFakeResponses(() => ({ text: 'no tools here' }));
    for (const tool_choice of ['auto', 'none'] as const)
      await expect(client().responses.create({ model: 'gpt-5.5', input: 'hi', tool_choice })).resolves.toMatchObject({ status: 'completed' });
    for (const tool_choice of ['required', { type: 'function', name: 'exec_command' }] as const)
      await expect(client().responses.create({ model: 'gpt-5.5', input: 'hi', tool_choice })).rejects.toMatchObject({
        status: 400,
        error: { param: 'tool_choice' },
      });
  });

  it('refuses a request without a model, and a temperature for a reasoning model', async () => {
    server = await startFakeResponses(() => ({ text: 'x' }));
    await expect(client().responses.create({ input: 'hi' } as never)).rejects.toMatchObject({ status: 400, error: { param: 'model' } });
    await expect(client().responses.create({ model: 'gpt-5', input: 'hi', temperature: 0.2 })).rejects.toMatchObject({
      status: 400,
      error: { param: 'temperature' },
    });
  });
});
