// The model endpoint of one agent CLI: an HTTP server on a unix socket (mounted into the agent's
// container, which has no network) that forwards the provider's model endpoints, and nothing else,
// to the one upstream fixed for the agent when its task started, with the user's key added on the
// way out. Nothing a request holds chooses where it goes: not its `model` (rewritten to the agent's
// model), not its URL (only the provider's API routes, in origin form), not its Host header. Bodies
// and answers are bounded one by one and together (proxy-budget.ts); the key is scrubbed from all
// that goes back into the container or into a failure message. Every call's tokens and cost are
// recorded as the built-in agent's are; the step limit is enforced here, for any CLI.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { chmodSync } from 'node:fs';
import { FirstRequestRefused, ModelError, costUsd, proxyApi, statusFailure, type Provider, type ProxyApi, type Usage } from '../../models/index.ts';
import type { ResolvedModel } from '../../models/resolve.ts';
import { errorMessage } from '../../errors.ts';
import { TokenCounter } from './usage.ts';
import { MAX_ANSWER_BUFFER_BYTES, MAX_ANSWER_BYTES, MAX_BODY_BYTES, processBudget, type MemoryBudget } from './proxy-budget.ts';
import { StreamScrubber, scrubSecrets } from './secrets.ts';

/** A query string the providers' SDKs send (Claude Code: `?beta=true`): plain parameters only. */
const QUERY = /^[\w.~=&%+-]*$/;

/** Never forwarded upstream: the container's placeholder credentials, hop-by-hop and proxy headers. */
const DROPPED_HEADERS = new Set([
  'authorization',
  'x-api-key',
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'accept-encoding',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'upgrade',
  'cookie',
  'forwarded',
  'via',
]);
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'content-length', 'content-encoding', 'transfer-encoding', 'set-cookie']);

export interface ModelCall {
  model: string;
  usage: Usage;
}

export interface ModelProxyOptions {
  provider: Provider;
  socketPath: string;
  /** The agent's model and where it is served (base URL, key, price, timeout): resolved from the user's spec before the task starts. */
  upstream: ResolvedModel;
  /** Model calls allowed; the next one is refused with an error the CLI stops on. */
  maxCalls: number;
  onModelCall?: (call: ModelCall) => void;
  /** What all proxies may hold at once (default: the process's). */
  budget?: MemoryBudget;
}

export interface ModelProxy {
  /** Model calls forwarded so far. */
  readonly calls: number;
  /** A call was refused because `maxCalls` were made. */
  readonly stepLimitReached: boolean;
  /** The last model call's answer declined on the provider's safety policy (TokenCounter.declined). */
  readonly lastCallDeclined: boolean;
  /** The failure of the last call, if it failed: the provider's (unreachable, 429, 5xx, an error event in its stream, key rejected) or the proxy's own (busy). */
  readonly lastFailure: ModelError | undefined;
  close(): Promise<void>;
}

/**
 * The upstream URL of an API route: the fixed base URL with the route's path, less the part the
 * base URL holds (`basePath`: OpenAI's includes /v1, the SDK appends /responses; Anthropic's does not).
 */
function upstreamURL(api: ProxyApi, baseURL: string, route: string, query: string): URL {
  const url = new URL(baseURL);
  url.pathname = url.pathname.replace(/\/+$/, '') + route.slice(api.basePath.length);
  url.search = query;
  url.hash = '';
  return url;
}

/**
 * A failing provider is infrastructure (the task runs again on resume), as for the built-in agent;
 * so is a refusal before any answer (`firstCall`): the CLI's first request holds nothing a model wrote.
 */
function failureOf(status: number, model: ResolvedModel, detail: string, firstCall: boolean): ModelError | undefined {
  const where = `model ${model.model} at ${new URL(model.baseURL).host}`;
  const text = scrubSecrets(detail, model.apiKey).slice(0, 300);
  const failure = statusFailure(status, where, text, model.keyVariable);
  if (failure || !firstCall) return failure;
  return new FirstRequestRefused(new ModelError(`${where}: request rejected (${status}): ${text}`, 'request', status), model.model);
}

type Body = { bytes: Buffer } | { refused: 'too_large' | 'busy' };

/** Reads a body within MAX_BODY_BYTES, each chunk reserved from the budget as it arrives (`held` says how much). */
async function readBody(req: IncomingMessage, budget: MemoryBudget, held: { bytes: number }): Promise<Body> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    const size = (chunk as Buffer).length;
    if (held.bytes + size > MAX_BODY_BYTES) return { refused: 'too_large' };
    if (!budget.take(size)) return { refused: 'busy' };
    held.bytes += size;
    chunks.push(chunk as Buffer);
  }
  return { bytes: Buffer.concat(chunks) };
}

/** Resolves when the response can take more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resume) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resume();
    };
    res.on('drain', done).on('close', done);
  });
}

export async function startModelProxy(options: ModelProxyOptions): Promise<ModelProxy> {
  const { provider, upstream: model } = options;
  const api = proxyApi(provider);
  const budget = options.budget ?? processBudget;
  const closing = new AbortController();
  const state = { calls: 0, answered: 0, stepLimitReached: false, lastCallDeclined: false, lastFailure: undefined as ModelError | undefined };
  const where = `model ${model.model} at ${new URL(model.baseURL).host}`;
  const scrub = (text: string) => scrubSecrets(text, model.apiKey);

  const refuse = (req: IncomingMessage, res: ServerResponse, status: number, type: string, message: string) => {
    // A request whose body is still coming is not read further.
    const unread = !req.readableEnded;
    res.writeHead(status, { 'content-type': 'application/json', ...(unread ? { connection: 'close' } : {}) });
    res.end(api.errorBody(type, message), () => unread && req.destroy());
  };
  /** The proxy itself cannot take the call now: the CLI retries it; if it gives up, the harness is to blame, not the agent. */
  const busy = (req: IncomingMessage, res: ServerResponse, what: string) => {
    state.lastFailure = new ModelError(
      `${where}: the harness's model proxy is holding too much at once (${what}); retry with fewer tasks at a time`,
      'server',
      503,
    );
    refuse(req, res, 503, api.busyErrorType, `coop-bench model proxy busy (${what}): retry later`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, held: { bytes: number }) => {
    const target = req.url ?? '';
    const question = target.indexOf('?');
    const path = question < 0 ? target : target.slice(0, question);
    const query = question < 0 ? '' : target.slice(question + 1);
    const route = Object.hasOwn(api.routes, path) ? api.routes[path] : undefined;
    if (req.method !== 'POST' || !route || !QUERY.test(query)) {
      return refuse(
        req,
        res,
        403,
        'permission_error',
        `coop-bench forwards only the model endpoints (POST ${Object.keys(api.routes).join(', ')}), not ${req.method} ${target.slice(0, 200)}`,
      );
    }
    const tooLarge = `request body over ${MAX_BODY_BYTES} bytes`;
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return refuse(req, res, 413, 'request_too_large', tooLarge);
    const body = await readBody(req, budget, held);
    if ('refused' in body) return body.refused === 'too_large' ? refuse(req, res, 413, 'request_too_large', tooLarge) : busy(req, res, 'request bodies');
    let request: { model?: unknown };
    try {
      request = JSON.parse(body.bytes.toString('utf8'));
    } catch {
      return refuse(req, res, 400, 'invalid_request_error', 'the request body is not JSON');
    }
    if (typeof request?.model !== 'string' || request.model === '') return refuse(req, res, 400, 'invalid_request_error', 'the request names no model');
    // Every call runs on the agent's model (the CLIs are set to use it for side calls too): a call
    // naming another one still goes to, and is billed as, the model the run measures.
    const sent = request.model === model.model ? body.bytes : Buffer.from(JSON.stringify({ ...request, model: model.model }));
    if (route === 'model') {
      if (state.calls >= options.maxCalls) {
        state.stepLimitReached = true;
        return refuse(req, res, 400, 'invalid_request_error', `coop-bench: the step limit of ${options.maxCalls} model calls is reached; stop now`);
      }
      state.calls++;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!DROPPED_HEADERS.has(name) && !name.startsWith('x-forwarded-') && typeof value === 'string') headers[name] = value;
    }
    // Over any header of the same name the container sent.
    for (const [name, value] of Object.entries(api.keyHeaders(model.apiKey))) headers[name.toLowerCase()] = value;
    headers['accept-encoding'] = 'identity';

    const started = performance.now();
    // A CLI that hangs up (stopped, timed out) ends the upstream call too.
    const clientGone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) clientGone.abort();
    });
    let answer: Response;
    try {
      answer = await fetch(upstreamURL(api, model.baseURL, path, query), {
        method: 'POST',
        headers,
        body: new Uint8Array(sent.buffer as ArrayBuffer, sent.byteOffset, sent.length),
        // A redirect would lead elsewhere than the fixed upstream.
        redirect: 'error',
        signal: AbortSignal.any([closing.signal, clientGone.signal, AbortSignal.timeout(model.timeoutMs)]),
      });
    } catch (error) {
      if (clientGone.signal.aborted || closing.signal.aborted) return;
      const timedOut = (error as Error).name === 'TimeoutError';
      state.lastFailure = new ModelError(
        `${where}: ${
          timedOut ? `no answer within ${model.timeoutMs / 1000} s` : `cannot connect (${scrub(errorMessage((error as Error).cause ?? error))})`
        }: check that the server is up and the base URL is right`,
        timedOut ? 'timeout' : 'connection',
      );
      return refuse(req, res, 502, 'api_error', `coop-bench could not reach the model API: ${state.lastFailure.message}`);
    }
    // The request body is sent: what it held goes back to the budget before the answer is read.
    budget.give(held.bytes);
    held.bytes = 0;
    if (!budget.take(MAX_ANSWER_BUFFER_BYTES)) {
      await answer.body?.cancel();
      return busy(req, res, 'answers');
    }
    held.bytes = MAX_ANSWER_BUFFER_BYTES;

    const responseHeaders: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!DROPPED_RESPONSE_HEADERS.has(name)) responseHeaders[name] = scrub(value);
    });
    res.writeHead(answer.status, responseHeaders);
    const streaming = (answer.headers.get('content-type') ?? '').includes('text/event-stream');
    const counter = new TokenCounter(provider, streaming, MAX_ANSWER_BUFFER_BYTES / 2);
    const failed = answer.status >= 400;
    const scrubber = new StreamScrubber(model.apiKey);
    let errorText = '';
    let relayed = 0;
    let brokeOff: string | undefined;
    const decoder = new TextDecoder();
    const relay = async (text: string) => {
      if (failed) errorText = (errorText + text).slice(0, 2000);
      else counter.push(text);
      // The CLI reads at its pace: nothing piles up here while it does not.
      if (text && !res.destroyed && !res.write(text)) await drained(res);
    };
    try {
      for await (const chunk of answer.body ?? []) {
        relayed += (chunk as Uint8Array).length;
        if (relayed > MAX_ANSWER_BYTES) {
          brokeOff = `the answer is over ${MAX_ANSWER_BYTES} bytes`;
          await answer.body?.cancel();
          break;
        }
        await relay(scrubber.push(decoder.decode(chunk as Uint8Array, { stream: true })));
        if (res.destroyed) break;
      }
      await relay(scrubber.push(decoder.decode()) + scrubber.end());
    } catch (error) {
      // The provider went away mid-answer (not the CLI, nor the end of the task): what was counted so far is still recorded.
      if (!clientGone.signal.aborted && !closing.signal.aborted) brokeOff = `the answer broke off (${scrub(errorMessage(error))})`;
    }
    res.end();
    if (failed) {
      state.lastFailure = failureOf(answer.status, model, errorText, route === 'model' && state.answered === 0);
      return;
    }
    const tokens = counter.end();
    // An error event in a 200 stream is the provider failing (overloaded, server error), as a 529 or 5xx would be.
    if (counter.failure) state.lastFailure = failureOf(counter.failure.status, model, `error event in the stream: ${counter.failure.message}`, false);
    else if (brokeOff) state.lastFailure = new ModelError(`${where}: ${brokeOff}`, 'connection');
    else state.lastFailure = undefined;
    if (route !== 'model') return;
    state.lastCallDeclined = counter.declined;
    if (!state.lastFailure) state.answered++;
    const usage = {
      inputTokens: tokens.inputTokens,
      outputTokens: tokens.outputTokens,
      cachedInputTokens: tokens.cachedInputTokens,
      cacheWriteTokens: tokens.cacheWriteTokens,
      cacheWrite1hTokens: tokens.cacheWrite1hTokens,
      reasoningTokens: tokens.reasoningTokens,
    };
    options.onModelCall?.({
      model: model.model,
      usage: { ...usage, costUsd: costUsd(model.price, usage), latencyMs: Math.round(performance.now() - started) },
    });
  };

  const server: Server = createServer((req, res) => {
    // What this request holds of the budget, given back however it ends.
    const held = { bytes: 0 };
    handle(req, res, held)
      .catch((error) => {
        if (!res.headersSent) refuse(req, res, 500, 'api_error', `coop-bench model proxy: ${scrub(errorMessage(error))}`);
        else res.destroy();
      })
      .finally(() => budget.give(held.bytes));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => resolve());
  });
  // The container's user may not be ours.
  chmodSync(options.socketPath, 0o666);

  let closed: Promise<void> | undefined;
  return {
    get calls() {
      return state.calls;
    },
    get stepLimitReached() {
      return state.stepLimitReached;
    },
    get lastCallDeclined() {
      return state.lastCallDeclined;
    },
    get lastFailure() {
      return state.lastFailure;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}
