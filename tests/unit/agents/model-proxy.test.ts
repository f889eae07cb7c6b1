// The model proxy between an agent CLI and its provider, driven by the official SDKs (as the CLIs'
// own clients) over its unix socket, against the streaming fakes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { startModelProxy, type ModelCall, type ModelProxy } from '../../../harness/agents/cli/model-proxy.ts';
import { resolveModel } from '../../../harness/models/resolve.ts';
import { ModelError } from '../../../harness/models/index.ts';
import { startFakeAnthropicStream } from '../../fakes/anthropic-stream.ts';
import { startFakeResponses } from '../../fakes/openai-responses.ts';
import type { StreamServer } from '../../fakes/stream-server.ts';
import { MemoryBudget } from '../../../harness/agents/cli/proxy-budget.ts';

const KEY = 'sk-real-key-7c1d9e';
let dir: string;
let proxy: ModelProxy | undefined;
let server: StreamServer | undefined;
const calls: ModelCall[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'coop-bench-proxy-'));
  calls.length = 0;
});

afterEach(async () => {
  await proxy?.close();
  await server?.close();
  proxy = server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** A fetch over the proxy's unix socket, whatever the URL's host (as the relay in the container does). */
function socketFetch(socketPath: string): typeof fetch {
  return ((input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    return new Promise<Response>((resolve, reject) => {
      const req = httpRequest({ socketPath, method: init.method ?? 'GET', path: url.pathname + url.search, headers }, (res) => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
        resolve(new Response(Readable.toWeb(res) as ReadableStream, { status: res.statusCode, headers: responseHeaders }));
      });
      req.on('error', reject);
      req.end(init.body as string | undefined);
    });
  }) as typeof fetch;
}

const MODELS = { anthropic: 'claude-sonnet-4-5', openai: 'gpt-5' } as const;

/** What the CLI agent fixes before the task: the spec's model at the provider's configured server. */
function upstreamOf(provider: 'anthropic' | 'openai', baseURL: string) {
  const env = { ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: KEY, ANTHROPIC_BASE_URL: baseURL, OPENAI_BASE_URL: `${baseURL}/v1` };
  return resolveModel(`${provider}:${MODELS[provider]}`, { env, cwd: dir, maxRetries: 0 });
}

async function start(provider: 'anthropic' | 'openai', baseURL: string, maxCalls = 10, budget?: MemoryBudget) {
  const socketPath = join(dir, 'api.sock');
  proxy = await startModelProxy({ provider, socketPath, maxCalls, upstream: upstreamOf(provider, baseURL), budget, onModelCall: (call) => calls.push(call) });
  return socketPath;
}

function raw(socketPath: string, method: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ socketPath, method, path }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Anthropic Messages through the proxy', () => {
  it('streams the answer through, adds the key, and records tokens and cost', async () => {
    server = await startFakeAnthropicStream(() => ({ text: 'hello', usage: { input_tokens: 1000, output_tokens: 40, cache_read_input_tokens: 200 } }));
    const socketPath = await start('anthropic', server.url);
    const client = new Anthropic({ apiKey: 'placeholder', baseURL: 'http://proxy.invalid', fetch: socketFetch(socketPath), maxRetries: 0 });
    const stream = client.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    const message = await stream.finalMessage();
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'hello' })]);
    expect(server.requests[0]!.headers['x-api-key']).toBe(KEY);
    expect(calls).toEqual([{ model: 'claude-sonnet-4-5', usage: expect.objectContaining({ inputTokens: 1200, cachedInputTokens: 200, outputTokens: 40 }) }]);
    // $3/M input, $0.30/M cached, $15/M output.
    expect(calls[0]!.usage.costUsd).toBeCloseTo((1000 * 3 + 200 * 0.3 + 40 * 15) / 1e6, 10);
  });

  it('forwards only the model endpoints', async () => {
    server = await startFakeAnthropicStream(() => ({ text: 'x' }));
    const socketPath = await start('anthropic', server.url);
    for (const [method, path] of [
      ['GET', '/v1/models'],
      ['POST', '/v1/files'],
      ['GET', '/v1/messages'],
      ['POST', '/v1/messages/../files'],
    ]) {
      const answer = await raw(socketPath, method, path);
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(JSON.parse(answer.body).error.type).toBe('permission_error');
    }
    expect(server.requests).toEqual([]);
  });

  it('refuses the call after the step limit, and says so', async () => {
    server = await startFakeAnthropicStream(() => ({ text: 'x' }));
    const socketPath = await start('anthropic', server.url, 2);
    const client = new Anthropic({ apiKey: 'placeholder', baseURL: 'http://proxy.invalid', fetch: socketFetch(socketPath), maxRetries: 0 });
    const ask = () => client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    await ask();
    await ask();
    await expect(ask()).rejects.toMatchObject({ status: 400, message: expect.stringContaining('step limit of 2 model calls') });
    expect(proxy!.stepLimitReached).toBe(true);
    expect(server.requests).toHaveLength(2);
    expect(calls).toHaveLength(2);
  });

  it("keeps the provider's failure as infrastructure (a ModelError without the key)", async () => {
    server = await startFakeAnthropicStream(() => {
      throw new Error(`overloaded for ${KEY}`);
    });
    const socketPath = await start('anthropic', server.url);
    const client = new Anthropic({ apiKey: 'placeholder', baseURL: 'http://proxy.invalid', fetch: socketFetch(socketPath), maxRetries: 0 });
    await expect(client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      status: 500,
    });
    expect(proxy!.lastFailure).toBeInstanceOf(ModelError);
    expect(proxy!.lastFailure!.kind).toBe('server');
    expect(proxy!.lastFailure!.message).not.toContain(KEY);
    expect(calls).toEqual([]);
  });

  it("calls a refusal of the CLI's first request, before any answer, not the agent's doing; a later one the agent's", async () => {
    server = await startFakeAnthropicStream(() => ({ text: 'x' }));
    const socketPath = await start('anthropic', server.url);
    const client = new Anthropic({ apiKey: 'placeholder', baseURL: 'http://proxy.invalid', fetch: socketFetch(socketPath), maxRetries: 0 });
    const ask = (maxTokens: number) =>
      client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: maxTokens, messages: [{ role: 'user', content: 'hi' }] });
    // The real API refuses max_tokens below 1 (the fake's contracts/anthropic-messages.ts).
    await expect(ask(0)).rejects.toMatchObject({ status: 400 });
    expect(proxy!.lastFailure).toMatchObject({ kind: 'first_request_refused', status: 400 });
    expect(proxy!.lastFailure!.message).toMatch(/request rejected \(400\): .*max_tokens.*the agent's first request, before any model answer/);
    await ask(10);
    expect(proxy!.lastFailure).toBeUndefined();
    await expect(ask(0)).rejects.toMatchObject({ status: 400 });
    expect(proxy!.lastFailure).toBeUndefined();
  });

  it('reports an unreachable provider as a connection failure', async () => {
    const socketPath = await start('anthropic', 'http://127.0.0.1:9');
    const client = new Anthropic({ apiKey: 'placeholder', baseURL: 'http://proxy.invalid', fetch: socketFetch(socketPath), maxRetries: 0 });
    await expect(client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      status: 502,
    });
    expect(proxy!.lastFailure?.kind).toBe('connection');
  });
});

describe('OpenAI Responses through the proxy', () => {
  it('streams the answer through, adds the key, and records tokens and cost', async () => {
    server = await startFakeResponses(() => ({
      calls: [{ name: 'exec_command', arguments: { cmd: 'ls' } }],
      usage: { input_tokens: 2000, output_tokens: 30, cached_tokens: 500 },
    }));
    const socketPath = await start('openai', server.url);
    const client = new OpenAI({ apiKey: 'placeholder', baseURL: 'http://proxy.invalid/v1', fetch: socketFetch(socketPath), maxRetries: 0 });
    const stream = await client.responses.create({ model: 'gpt-5', input: 'hi', stream: true, store: false });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.function_call_arguments.delta');
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(calls).toEqual([{ model: 'gpt-5', usage: expect.objectContaining({ inputTokens: 2000, cachedInputTokens: 500, outputTokens: 30 }) }]);
    expect(calls[0]!.usage.costUsd).toBeCloseTo((1500 * 1.25 + 500 * 0.125 + 30 * 10) / 1e6, 10);
  });

  it('rejects what the Responses API rejects: a tool output answering no call', async () => {
    server = await startFakeResponses(() => ({ text: 'x' }));
    const socketPath = await start('openai', server.url);
    const client = new OpenAI({ apiKey: 'placeholder', baseURL: 'http://proxy.invalid/v1', fetch: socketFetch(socketPath), maxRetries: 0 });
    await expect(client.responses.create({ model: 'gpt-5', input: [{ type: 'function_call_output', call_id: 'call_1', output: 'ok' }] })).rejects.toMatchObject(
      {
        status: 400,
        message: expect.stringContaining('No tool call found for function call output with call_id call_1'),
      },
    );
  });
});
