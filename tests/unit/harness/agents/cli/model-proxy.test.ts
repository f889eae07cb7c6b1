// The model proxy between an agent CLI and its provider, driven by the official SDKs (as the CLIs'
// own clients) over its unix socket, against the streaming fakes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { startModelProxy, type ModelCall, type ModelProxy } from '../../../../../harness/agents/cli/model-proxy.ts';
import { resolveModel } from '../../../../../harness/models/resolve.ts';
import { startFakeAnthropicStream, type AssistantTurn } from '../../../../fakes/anthropic-stream.ts';
import { startFakeResponses, type ResponseTurn } from '../../../../fakes/openai-responses.ts';
import type { StreamServer } from '../../../../fakes/stream-server.ts';
import { MAX_ANSWER_BUFFER_BYTES, MAX_BODY_BYTES, MemoryBudget } from '../../../../../harness/agents/cli/proxy-budget.ts';
import { ModelError, createModel, type CompletionRequest } from '../../../../../harness/models/index.ts';
import { startCanary, type Canary } from '../../../../fakes/canary-server.ts';

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

function raw(
  socketPath: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ socketPath, method, path, headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(options.body);
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

describe('the destination is fixed before the task', () => {
  let canary: Canary;
  beforeEach(async () => {
    canary = await startCanary();
  });
  afterEach(() => canary.close());

  it("sends every call to the agent's model at its configured server, whatever model the request names", async () => {
    server = await startFakeAnthropicStream(() => ({ text: 'x' }));
    const socketPath = await start('anthropic', server.url);
    const client = new Anthropic({ apiKey: 'placeholder', baseURL: 'http://proxy.invalid', fetch: socketFetch(socketPath), maxRetries: 0 });
    const named = [`x@http://127.0.0.1:${canary.port}/steal?`, `anthropic:x@http://127.0.0.1:${canary.port}`, 'claude-opus-4-1', MODELS.anthropic];
    for (const model of named) await client.messages.create({ model, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    expect(server.requests.map((r) => r.body.model)).toEqual(named.map(() => MODELS.anthropic));
    expect(calls.map((c) => c.model)).toEqual(named.map(() => MODELS.anthropic));
    expect(canary.connections()).toBe(0);
  });

  it('refuses absolute-form targets, paths outside the API routes and odd queries; a Host header changes nothing', async () => {
    server = await startFakeAnthropicStream(() => ({ text: 'x' }));
    const socketPath = await start('anthropic', server.url);
    const body = JSON.stringify({ model: MODELS.anthropic, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    const headers = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
    const elsewhere = `127.0.0.1:${canary.port}`;
    for (const target of [
      `http://${elsewhere}/v1/messages`,
      `//${elsewhere}/v1/messages`,
      '/v1/messages/../../steal',
      '/v1/messages/%2e%2e/x',
      '/v1//messages',
      `/v1/messages?to=http://${elsewhere}/`,
      `/v1/messages?@${elsewhere}`,
      '/v1/messages#x',
    ]) {
      const answer = await raw(socketPath, 'POST', target, { headers, body });
      expect(answer.status, target).toBe(403);
      expect(JSON.parse(answer.body).error.type).toBe('permission_error');
    }
    expect(server.requests).toEqual([]);
    const tricked = await raw(socketPath, 'POST', '/v1/messages?beta=true', {
      headers: { ...headers, host: elsewhere, 'x-forwarded-host': elsewhere, forwarded: `host=${elsewhere}` },
      body,
    });
    expect(tricked.status).toBe(200);
    expect(server.requests.map((r) => [r.path, r.query])).toEqual([['/v1/messages', 'beta=true']]);
    expect(server.requests[0]!.headers['x-forwarded-host']).toBeUndefined();
    expect(canary.connections()).toBe(0);
  });
});

describe('what the proxy holds is bounded', () => {
  const headers = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };

  /** A request whose body stops after `bytes` (never ended): how an agent holds memory in the harness. */
  function unfinished(socketPath: string, bytes: number, path = '/v1/messages'): { answer: Promise<{ status: number; body: string }>; stop: () => void } {
    let stop = () => {};
    const answer = new Promise<{ status: number; body: string }>((resolve) => {
      const req = httpRequest({ socketPath, method: 'POST', path, headers: { ...headers, 'transfer-encoding': 'chunked' } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', () => resolve({ status: 0, body: '' }));
      req.write('{"model":"x","pad":"' + 'a'.repeat(bytes) + '"');
      stop = () => req.destroy();
    });
    return { answer, stop };
  }

  it('refuses a body announced over the limit before reading it, in the provider’s error format', async () => {
    server = await startFakeAnthropicStream(() => ({ text: 'x' }));
    const socketPath = await start('anthropic', server.url);
    const answer = await raw(socketPath, 'POST', '/v1/messages', { headers: { ...headers, 'content-length': String(MAX_BODY_BYTES + 1) } });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ type: 'error', error: { type: 'request_too_large', message: expect.stringContaining('request body over') } });
    expect(server.requests).toEqual([]);
  });

  it('refuses a body that grows over the limit as it comes', async () => {
    server = await startFakeResponses(() => ({ text: 'x' }));
    const socketPath = await start('openai', server.url);
    const { answer, stop } = unfinished(socketPath, MAX_BODY_BYTES + 1024, '/v1/responses');
    const refused = await answer;
    stop();
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body).error).toMatchObject({ type: 'request_too_large', message: expect.stringContaining('request body over') });
    expect(server.requests).toEqual([]);
  });

  it('holds at most its budget across requests in flight: the rest are told to retry (503), and all is given back', async () => {
    server = await startFakeAnthropicStream(() => ({ text: 'x' }));
    const size = 1024 * 1024;
    const budget = new MemoryBudget(8.5 * size);
    const socketPath = await start('anthropic', server.url, 10, budget);
    const requests: ReturnType<typeof unfinished>[] = [];
    const outcomes: (number | 'held')[] = [];
    // Sixteen bodies of 1 MiB that never end, one after the other: each is held, or refused at once.
    for (let i = 0; i < 16; i++) {
      const request = unfinished(socketPath, size);
      requests.push(request);
      let answered: number | undefined;
      request.answer.then((a) => (answered = a.status));
      const before = budget.inUse;
      while (answered === undefined && budget.inUse < before + size) await new Promise((tick) => setTimeout(tick, 5));
      outcomes.push(answered ?? 'held');
      expect(budget.inUse).toBeLessThanOrEqual(budget.limit);
    }
    expect(outcomes).toEqual([...Array(8).fill('held'), ...Array(8).fill(503)]);
    expect(JSON.parse((await requests[15]!.answer).body).error).toMatchObject({ type: 'overloaded_error', message: expect.stringContaining('busy') });
    expect(proxy!.lastFailure).toMatchObject({ kind: 'server', status: 503 });
    for (const r of requests) r.stop();
    await expect.poll(() => budget.inUse).toBe(0);
    expect(server.requests).toEqual([]);
  });

  it('reserves room for each answer before relaying it', async () => {
    server = await startFakeAnthropicStream(() => ({ text: 'x' }));
    const socketPath = await start('anthropic', server.url, 10, new MemoryBudget(MAX_ANSWER_BUFFER_BYTES - 1));
    const client = new Anthropic({ apiKey: 'placeholder', baseURL: 'http://proxy.invalid', fetch: socketFetch(socketPath), maxRetries: 0 });
    await expect(client.messages.create({ model: MODELS.anthropic, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      status: 503,
    });
    expect(proxy!.lastFailure?.message).toContain('answers');
  });
});

describe('the key stays out of the container and of what is recorded', () => {
  it('is scrubbed from an answer that echoes it, streamed or not, and from the failure kept', async () => {
    server = await startFakeAnthropicStream((request) => {
      if (request.body.max_tokens === 11) throw new Error(`invalid x-api-key ${KEY}`);
      return { text: `your key is ${KEY}, Authorization: Bearer ${KEY}` };
    });
    const socketPath = await start('anthropic', server.url);
    const client = new Anthropic({ apiKey: 'placeholder', baseURL: 'http://proxy.invalid', fetch: socketFetch(socketPath), maxRetries: 0 });
    const message = await client.messages.stream({ model: MODELS.anthropic, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    expect(JSON.stringify(message)).not.toContain(KEY);
    expect(message.content[0]).toMatchObject({ text: 'your key is [key], Authorization: Bearer [key]' });
    const failed = await client.messages.create({ model: MODELS.anthropic, max_tokens: 11, messages: [{ role: 'user', content: 'hi' }] }).catch((e) => e);
    expect(String(failed.message)).toContain('invalid x-api-key [key]');
    expect(String(failed.message)).not.toContain(KEY);
    expect(proxy!.lastFailure!.message).not.toContain(KEY);
  });
});

describe('errors inside a 200 stream are the provider failing', () => {
  it("Anthropic's overloaded_error event: a server failure, as a 529; the next answer clears it", async () => {
    let turn: AssistantTurn = { text: 'x', usage: { input_tokens: 100, output_tokens: 1 }, streamError: { type: 'overloaded_error', message: 'Overloaded' } };
    server = await startFakeAnthropicStream(() => turn);
    const socketPath = await start('anthropic', server.url);
    const client = new Anthropic({ apiKey: 'placeholder', baseURL: 'http://proxy.invalid', fetch: socketFetch(socketPath), maxRetries: 0 });
    const ask = () => client.messages.stream({ model: MODELS.anthropic, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    await expect(ask()).rejects.toThrow(/Overloaded/);
    expect(proxy!.lastFailure).toBeInstanceOf(ModelError);
    expect(proxy!.lastFailure).toMatchObject({ kind: 'server', status: 529, message: expect.stringContaining('overloaded_error: Overloaded') });
    // What the provider counted before it failed is still recorded.
    expect(calls.map((c) => c.usage.inputTokens)).toEqual([100]);
    turn = { text: 'x' };
    await ask();
    expect(proxy!.lastFailure).toBeUndefined();
  });

  it("OpenAI's response.failed and error events: server error and rate limit", async () => {
    let failure: ResponseTurn['streamError'] = { event: 'response.failed', code: 'server_error', message: 'The model failed' };
    server = await startFakeResponses(() => ({ text: 'x', streamError: failure }));
    const socketPath = await start('openai', server.url);
    const client = new OpenAI({ apiKey: 'placeholder', baseURL: 'http://proxy.invalid/v1', fetch: socketFetch(socketPath), maxRetries: 0 });
    const ask = async () => {
      const types: string[] = [];
      for await (const event of await client.responses.create({ model: MODELS.openai, input: 'hi', stream: true, store: false })) types.push(event.type);
      return types;
    };
    expect(await ask()).toEqual(['response.created', 'response.failed']);
    expect(proxy!.lastFailure).toMatchObject({ kind: 'server', message: expect.stringContaining('response.failed: server_error: The model failed') });
    failure = { event: 'error', code: 'rate_limit_exceeded', message: 'Slow down' };
    await ask().catch(() => undefined);
    expect(proxy!.lastFailure).toMatchObject({ kind: 'rate_limit', status: 429 });
  });
});

describe('an answer that breaks off', () => {
  it('is a connection failure, and what was counted before is recorded', async () => {
    // A provider that sends message_start and then drops the connection.
    const upstream = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":70,"output_tokens":1}}}\n\n', () =>
        res.socket?.destroy(),
      );
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    try {
      const socketPath = await start('anthropic', `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
      const client = new Anthropic({ apiKey: 'placeholder', baseURL: 'http://proxy.invalid', fetch: socketFetch(socketPath), maxRetries: 0 });
      await client.messages
        .stream({ model: MODELS.anthropic, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
        .finalMessage()
        .catch(() => undefined);
      expect(proxy!.lastFailure).toMatchObject({ kind: 'connection', message: expect.stringContaining('the answer broke off') });
      expect(calls.map((c) => c.usage.inputTokens)).toEqual([70]);
    } finally {
      upstream.closeAllConnections();
      await new Promise((resolve) => upstream.close(resolve));
    }
  });
});

describe('costs are counted as for the built-in agents', () => {
  const question: CompletionRequest = { messages: [{ role: 'user', content: 'hi' }] };

  it('Claude Code: cache writes at 1.25x (5 minutes) and 2x (1 hour), the same cost as the built-in claude agent', async () => {
    const usage = { input_tokens: 50, cache_creation_input_tokens: 5000, cache_read_input_tokens: 40_000, output_tokens: 500 };
    let turn: AssistantTurn = { text: 'x', usage };
    server = await startFakeAnthropicStream(() => turn);
    const socketPath = await start('anthropic', server.url);
    const client = new Anthropic({ apiKey: 'placeholder', baseURL: 'http://proxy.invalid', fetch: socketFetch(socketPath), maxRetries: 0 });
    const builtIn = createModel(`anthropic:${MODELS.anthropic}`, { env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url }, cwd: dir, maxRetries: 0 });
    const ask = () => client.messages.stream({ model: MODELS.anthropic, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();

    await ask();
    // $3/M uncached, $3.75/M 5-minute writes, $0.30/M reads, $15/M output.
    expect(calls[0]!.usage.costUsd).toBeCloseTo(0.0384, 10);
    const own = (await builtIn.complete(question)).usage;
    expect(calls[0]!.usage).toMatchObject({ ...own, latencyMs: expect.any(Number) });

    turn = { text: 'x', usage: { ...usage, cache_write_1h: 2000 } };
    await ask();
    expect(calls[1]!.usage).toMatchObject({ cacheWriteTokens: 3000, cacheWrite1hTokens: 2000 });
    expect(calls[1]!.usage.costUsd).toBeCloseTo((50 * 3 + 3000 * 3.75 + 2000 * 6 + 40_000 * 0.3 + 500 * 15) / 1e6, 10);
    const own1h = (await builtIn.complete(question)).usage;
    expect(calls[1]!.usage).toMatchObject({ ...own1h, latencyMs: expect.any(Number) });
  });

  it('Codex: cached input and reasoning as the built-in gpt-5 agent counts them', async () => {
    server = await startFakeResponses(() => ({ text: 'x', usage: { input_tokens: 45_050, output_tokens: 500, cached_tokens: 40_000 } }));
    const socketPath = await start('openai', server.url);
    const client = new OpenAI({ apiKey: 'placeholder', baseURL: 'http://proxy.invalid/v1', fetch: socketFetch(socketPath), maxRetries: 0 });
    for await (const _ of await client.responses.create({ model: MODELS.openai, input: 'hi', stream: true, store: false }));
    const builtIn = createModel(`openai:${MODELS.openai}`, { env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${server.url}/v1` }, cwd: dir, maxRetries: 0 });
    const own = (await builtIn.complete(question)).usage;
    expect(calls[0]!.usage).toMatchObject({ ...own, latencyMs: expect.any(Number) });
    expect(calls[0]!.usage.costUsd).toBeCloseTo((5050 * 1.25 + 40_000 * 0.125 + 500 * 10) / 1e6, 10);
  });
});
