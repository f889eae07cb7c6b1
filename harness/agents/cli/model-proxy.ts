// The model endpoint of one agent CLI: an HTTP server on a unix socket (mounted into the agent's
// container, which has no network) that forwards the provider's model endpoints, and nothing else,
// to the real API with the user's key added on the way out. Every call's tokens and cost are
// recorded as the built-in agent's are; the step limit is enforced here, for any CLI.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { chmodSync } from 'node:fs';
import { FirstRequestRefused, ModelError, costUsd, statusFailure, type Provider, type Usage } from '../../models/index.ts';
import type { ResolvedModel } from '../../models/resolve.ts';
import { errorMessage } from '../../errors.ts';
import { TokenCounter } from './usage.ts';

/** POST routes forwarded per provider: `model` calls are counted as steps and costed, `free` ones are not. */
const ROUTES: Record<Provider, Record<string, 'model' | 'free'>> = {
  anthropic: { '/v1/messages': 'model', '/v1/messages/count_tokens': 'free' },
  openai: { '/v1/responses': 'model', '/v1/responses/compact': 'model' },
};

/** Never forwarded upstream: the container's placeholder credentials, and hop-by-hop headers. */
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
  'te',
  'upgrade',
  'cookie',
]);
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'content-length', 'content-encoding', 'transfer-encoding']);
/** The largest request body accepted (a long conversation is a few MB). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface ModelCall {
  model: string;
  usage: Usage;
}

export interface ModelProxyOptions {
  provider: Provider;
  socketPath: string;
  /** The upstream call settings (base URL, key, price, timeout) for a model id the CLI asks for. */
  resolve: (model: string) => ResolvedModel;
  /** Model calls allowed; the next one is refused with an error the CLI stops on. */
  maxCalls: number;
  onModelCall?: (call: ModelCall) => void;
}

export interface ModelProxy {
  /** Model calls forwarded so far. */
  readonly calls: number;
  /** A call was refused because `maxCalls` were made. */
  readonly stepLimitReached: boolean;
  /** The provider's failure on the last call, if it failed (unreachable, 429, 5xx, key rejected). */
  readonly lastFailure: ModelError | undefined;
  close(): Promise<void>;
}

/** Errors in the provider's own format, so the CLI reports them as it would the provider's. */
function errorBody(provider: Provider, type: string, message: string): string {
  return JSON.stringify(provider === 'anthropic' ? { type: 'error', error: { type, message } } : { error: { message, type, code: null, param: null } });
}

function upstreamURL(provider: Provider, baseURL: string, pathAndQuery: string): string {
  // The OpenAI base URL includes /v1 (the SDK appends /responses); the Anthropic one does not.
  const base = baseURL.replace(/\/+$/, '');
  return provider === 'openai' ? `${base}${pathAndQuery.replace(/^\/v1/, '')}` : `${base}${pathAndQuery}`;
}

/**
 * A failing provider is infrastructure (the task runs again on resume), as for the built-in agent;
 * so is a refusal before any answer (`firstCall`): the CLI's first request holds nothing a model wrote.
 */
function failureOf(status: number, model: ResolvedModel, detail: string, firstCall: boolean): ModelError | undefined {
  const where = `model ${model.model} at ${new URL(model.baseURL).host}`;
  const text = detail.split(model.apiKey).join('[key]').slice(0, 300);
  const failure = statusFailure(status, where, text, model.keyVariable);
  if (failure || !firstCall) return failure;
  return new FirstRequestRefused(new ModelError(`${where}: request rejected (${status}): ${text}`, 'request', status), model.model);
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export async function startModelProxy(options: ModelProxyOptions): Promise<ModelProxy> {
  const { provider } = options;
  const closing = new AbortController();
  const state = { calls: 0, answered: 0, stepLimitReached: false, lastFailure: undefined as ModelError | undefined };

  const refuse = (res: ServerResponse, status: number, type: string, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(errorBody(provider, type, message));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const pathAndQuery = req.url ?? '/';
    const route = ROUTES[provider][pathAndQuery.split('?')[0]!];
    if (req.method !== 'POST' || !route) {
      req.resume();
      return refuse(
        res,
        403,
        'permission_error',
        `coop-bench forwards only the model endpoints (POST ${Object.keys(ROUTES[provider]).join(', ')}), not ${req.method} ${pathAndQuery.slice(0, 200)}`,
      );
    }
    const body = await readBody(req);
    if (!body) return refuse(res, 413, 'request_too_large', `request body over ${MAX_BODY_BYTES} bytes`);
    let request: { model?: unknown; stream?: unknown };
    try {
      request = JSON.parse(body.toString('utf8'));
    } catch {
      return refuse(res, 400, 'invalid_request_error', 'the request body is not JSON');
    }
    if (typeof request?.model !== 'string' || request.model === '') return refuse(res, 400, 'invalid_request_error', 'the request names no model');
    if (route === 'model') {
      if (state.calls >= options.maxCalls) {
        state.stepLimitReached = true;
        return refuse(res, 400, 'invalid_request_error', `coop-bench: the step limit of ${options.maxCalls} model calls is reached; stop now`);
      }
      state.calls++;
    }
    const model = options.resolve(request.model);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!DROPPED_HEADERS.has(name) && typeof value === 'string') headers[name] = value;
    }
    if (provider === 'anthropic') headers['x-api-key'] = model.apiKey;
    else headers.authorization = `Bearer ${model.apiKey}`;
    headers['accept-encoding'] = 'identity';

    const started = performance.now();
    // A CLI that hangs up (stopped, timed out) ends the upstream call too.
    const clientGone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) clientGone.abort();
    });
    let upstream: Response;
    try {
      upstream = await fetch(upstreamURL(provider, model.baseURL, pathAndQuery), {
        method: 'POST',
        headers,
        body: new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.length),
        signal: AbortSignal.any([closing.signal, clientGone.signal, AbortSignal.timeout(model.timeoutMs)]),
      });
    } catch (error) {
      if (clientGone.signal.aborted || closing.signal.aborted) return;
      const timedOut = (error as Error).name === 'TimeoutError';
      state.lastFailure = new ModelError(
        `model ${model.model} at ${new URL(model.baseURL).host}: ${
          timedOut
            ? `no answer within ${model.timeoutMs / 1000} s`
            : `cannot connect (${errorMessage((error as Error).cause ?? error)
                .split(model.apiKey)
                .join('[key]')})`
        }: check that the server is up and the base URL is right`,
        timedOut ? 'timeout' : 'connection',
      );
      return refuse(res, 502, 'api_error', `coop-bench could not reach the model API: ${state.lastFailure.message}`);
    }

    const responseHeaders: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!DROPPED_RESPONSE_HEADERS.has(name)) responseHeaders[name] = value;
    });
    res.writeHead(upstream.status, responseHeaders);
    const streaming = (upstream.headers.get('content-type') ?? '').includes('text/event-stream');
    const counter = new TokenCounter(provider, streaming);
    const failed = upstream.status >= 400;
    let errorText = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of upstream.body ?? []) {
        res.write(chunk);
        const text = decoder.decode(chunk as Uint8Array, { stream: true });
        if (failed) errorText = (errorText + text).slice(0, 2000);
        else counter.push(text);
      }
    } catch (error) {
      // The provider went away mid-answer (not the CLI, nor the end of the task): what was counted so far is still recorded.
      if (!failed && !clientGone.signal.aborted && !closing.signal.aborted)
        state.lastFailure = new ModelError(
          `model ${model.model}: the answer broke off (${errorMessage(error).split(model.apiKey).join('[key]')})`,
          'connection',
        );
    }
    res.end();
    if (failed) {
      state.lastFailure = failureOf(upstream.status, model, errorText, route === 'model' && state.answered === 0);
      return;
    }
    state.lastFailure = undefined;
    if (route !== 'model') return;
    state.answered++;
    const tokens = counter.end();
    const usage = { inputTokens: tokens.inputTokens, outputTokens: tokens.outputTokens, cachedInputTokens: tokens.cachedInputTokens };
    options.onModelCall?.({
      model: model.model,
      usage: { ...usage, costUsd: costUsd(model.price, usage), latencyMs: Math.round(performance.now() - started) },
    });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) refuse(res, 500, 'api_error', `coop-bench model proxy: ${errorMessage(error)}`);
      else res.destroy();
    });
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
