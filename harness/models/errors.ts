// Turns the SDKs' errors, after their retries are spent, into one line that says what failed
// and what to do. Messages never contain the API key.
import type { ResolvedModel } from './resolved.ts';

type ErrorClass<T = Error> = abstract new (...args: never[]) => T;

/**
 * A provider SDK's error classes (openai's and @anthropic-ai/sdk's have the same), given by the
 * adapter whose SDK made the call: this module loads no SDK, so a run loads only its providers'.
 */
export interface SdkErrors {
  APIError: ErrorClass<Error & { status?: number; error?: unknown; code?: unknown }>;
  APIConnectionError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIUserAbortError: ErrorClass;
}

export type ModelErrorKind =
  'timeout' | 'connection' | 'rate_limit' | 'server' | 'auth' | 'not_found' | 'first_request_refused' | 'context_too_long' | 'request';

/**
 * Failures that say nothing about the agent: the service could not be reached or kept failing after
 * the retries, refused the key, does not serve the model (404: a typo, no access, a retired model),
 * or refused an agent's first request, which holds nothing a model wrote (the prompt, tools and
 * parameters the harness or the agent's program sends every task alike). The others (a prompt too
 * long, a request refused for what the conversation holds) happen because of what the model wrote:
 * the agent loop handles them.
 */
export const INFRASTRUCTURE_KINDS: readonly ModelErrorKind[] = ['timeout', 'connection', 'rate_limit', 'server', 'auth', 'not_found', 'first_request_refused'];

/** Failures every later call with the same model and key meets too: a run stops on the first. */
export const CONFIGURATION_KINDS: readonly ModelErrorKind[] = ['auth', 'not_found', 'first_request_refused'];

export class ModelError extends Error {
  constructor(
    message: string,
    readonly kind: ModelErrorKind,
    /** HTTP status of the last attempt, when the server answered. */
    readonly status?: number,
    /** context_too_long: the prompt's size and the limit, as far as the provider said. */
    readonly overflow?: OverflowFigures,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

/**
 * A refusal of an agent's first request (before any answer), `error`: no agent's doing. It holds the
 * task's prompt and what the harness or the agent's program sends every task: while `model` has
 * answered nothing in the run it is the configuration's, after that this task's prompt's.
 */
export class FirstRequestRefused extends ModelError {
  constructor(
    error: ModelError,
    /** The model id sent to the provider (as model calls record it). */
    readonly model: string,
  ) {
    super(
      `${error.message} (the agent's first request, before any model answer: it holds only the task's prompt and what every task sends)`,
      'first_request_refused',
      error.status,
    );
  }
}

/** What an error message may name about the call (the key only to scrub it from provider text). */
export type CallContext = Pick<ResolvedModel, 'model' | 'baseURL' | 'keyVariable' | 'apiKey' | 'maxRetries' | 'timeoutMs'>;

/**
 * The providers' words for a prompt over the window: OpenAI "maximum context length is", gpt-5
 * "Input tokens exceed the configured limit of 272000 tokens", the Responses API "exceeds the context
 * window", Anthropic "prompt is too long" and "input length and `max_tokens` exceed context limit",
 * vLLM "maximum context length"; plus OpenAI's code `context_length_exceeded`.
 */
const CONTEXT_TOO_LONG =
  /context[_ ](length|window|limit)|prompt is too long|input tokens exceed the configured limit|input is too long|too many (input )?tokens/i;

/** A ModelError for a failed call of `sdk`; a caller's abort is returned unchanged so it reads as an abort. */
export function toModelError(error: unknown, call: CallContext, sdk: SdkErrors): unknown {
  if (error instanceof sdk.APIUserAbortError) return error;

  const where = `model ${call.model} at ${new URL(call.baseURL).host}`;
  const attempts = `${call.maxRetries + 1} attempt${call.maxRetries === 0 ? '' : 's'}`;
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new ModelError(`${where}: no answer within ${call.timeoutMs / 1000} s (${attempts}): check that the server is up, or retry later`, 'timeout');
  }
  if (error instanceof sdk.APIConnectionError) {
    return new ModelError(
      `${where}: cannot connect (${connectionCause(error)}, ${attempts}): check that the server is running and the base URL is right`,
      'connection',
    );
  }
  if (error instanceof sdk.APIError && typeof error.status === 'number') {
    const status = error.status;
    const detail = redact(providerMessage(error), call.apiKey);
    const failure = statusFailure(status, where, detail, call.keyVariable, ` after ${attempts}`);
    if (failure) return failure;
    if (status === 413 || CONTEXT_TOO_LONG.test(detail) || providerCode(error) === 'context_length_exceeded') {
      return new ModelError(
        `${where}: the conversation does not fit the context window (${status}): ${detail}`,
        'context_too_long',
        status,
        overflowFigures(detail),
      );
    }
    return new ModelError(`${where}: request rejected (${status}): ${detail}`, 'request', status);
  }
  return error;
}

/**
 * The failures an HTTP status alone tells, alike for the built-in agent and the CLI agents' proxy.
 * A 404 is the model (OpenAI `model_not_found`, Anthropic `not_found_error` "model: ...", vLLM
 * NotFoundError) or an endpoint the harness got wrong: never the agent's doing.
 */
export function statusFailure(status: number, where: string, detail: string, keyVariable: string, afterAttempts = ''): ModelError | undefined {
  if (status === 401 || status === 403) {
    return new ModelError(`${where}: the API key was rejected (${status}): check ${keyVariable} (environment or ./.env)`, 'auth', status);
  }
  if (status === 404) {
    return new ModelError(
      `${where}: not found (404): ${detail}; check the model name (a model its provider retired is no longer served: harness/models/README.md)`,
      'not_found',
      status,
    );
  }
  if (status === 429) {
    return new ModelError(`${where}: rate limited (429)${afterAttempts}: ${detail}; lower the concurrency or retry later`, 'rate_limit', status);
  }
  if (status === 408 || status >= 500) {
    return new ModelError(`${where}: server error ${status}${afterAttempts}: ${detail}; the provider is failing, retry later`, 'server', status);
  }
  return undefined;
}

export interface OverflowFigures {
  /** Tokens of the prompt that did not fit. */
  prompt?: number;
  /** Tokens the prompt may hold. */
  limit?: number;
}

/** The numbers in the providers' overflow messages, so the agent can size its next prompt. */
export function overflowFigures(message: string): OverflowFigures {
  const number = (pattern: RegExp) => {
    const match = pattern.exec(message);
    return match ? Number(match[1]) : undefined;
  };
  return {
    prompt: number(/resulted in (\d+) tokens/) ?? number(/\((\d+) in the messages/) ?? number(/too long: (\d+) tokens/) ?? number(/context limit: (\d+) \+/),
    limit: number(/configured limit of (\d+)/) ?? number(/maximum context length is (\d+)/) ?? number(/> (\d+) maximum/) ?? number(/> (\d+), decrease/),
  };
}

function providerCode(error: { error?: unknown; code?: unknown }): unknown {
  return error.code ?? (error.error as { code?: unknown } | undefined)?.code;
}

/** The server's own words: OpenAI puts them in `error.message`, Anthropic in `error.error.message`. */
function providerMessage(error: { error?: unknown; message: string }): string {
  const body = error.error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const text =
    typeof body?.message === 'string' ? body.message : typeof body?.error?.message === 'string' ? body.error.message : error.message.replace(/^\d{3} /, '');
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

function connectionCause(error: Error): string {
  // undici wraps the socket error: TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }).
  const cause = error.cause as (Error & { code?: string; cause?: { code?: string; message?: string } }) | undefined;
  return cause?.cause?.code ?? cause?.code ?? cause?.cause?.message ?? cause?.message ?? error.message;
}

function redact(text: string, secret: string): string {
  return secret.length >= 8 ? text.split(secret).join('[redacted]') : text;
}
