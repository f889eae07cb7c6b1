// Token counts of one model call as it passes through the model proxy: from a JSON answer, or
// from a server-sent event stream read as it goes by (the CLIs always stream). Counted the way the
// built-in agent's adapters count them (harness/models), so costs compare. A stream can also fail
// after its 200 status: its error event is kept as the call's failure. An answer in which the model
// declined on its provider's safety policy is marked, as the built-in agent's adapters mark it.
import type { Provider } from '../../models/index.ts';

export interface CallTokens {
  /** All input tokens, including those read from or written to the prompt cache. */
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  /** The part of inputTokens written to the prompt cache for 5 minutes. */
  cacheWriteTokens: number;
  /** The part of inputTokens written to the prompt cache for 1 hour. */
  cacheWrite1hTokens: number;
  reasoningTokens: number;
}

/** An error event inside a stream whose HTTP status was 200, as the HTTP status it stands for. */
export interface StreamFailure {
  status: number;
  message: string;
}

type Json = Record<string, unknown>;

function object(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/**
 * Anthropic Messages usage: `input_tokens` excludes cache reads and writes, which are added (as
 * AnthropicModel does). Writes are split by lifetime in `cache_creation` (ephemeral_5m/1h); without
 * the split they are 5-minute writes, the API's default lifetime (prompt caching docs). In a stream,
 * `message_start` carries the input counts and `message_delta` the cumulative output count (and, in
 * newer API versions, final input counts).
 */
function anthropicTokens(usage: Json | undefined, into: CallTokens): void {
  if (!usage) return;
  const cacheRead = count(usage.cache_read_input_tokens);
  const written = count(usage.cache_creation_input_tokens);
  const input = count(usage.input_tokens) + written + cacheRead;
  if (input > 0) {
    const byTtl = object(usage.cache_creation);
    const written1h = Math.min(written, count(byTtl?.ephemeral_1h_input_tokens));
    into.inputTokens = input;
    into.cachedInputTokens = cacheRead;
    into.cacheWriteTokens = written - written1h;
    into.cacheWrite1hTokens = written1h;
  }
  if ('output_tokens' in usage) into.outputTokens = count(usage.output_tokens);
}

/** OpenAI Responses usage: `input_tokens` includes `input_tokens_details.cached_tokens`. */
function openaiTokens(usage: Json | undefined, into: CallTokens): void {
  if (!usage) return;
  into.inputTokens = count(usage.input_tokens);
  into.outputTokens = count(usage.output_tokens);
  into.cachedInputTokens = count(object(usage.input_tokens_details)?.cached_tokens);
  into.reasoningTokens = count(object(usage.output_tokens_details)?.reasoning_tokens);
}

/**
 * Anthropic's error types and their HTTP statuses (docs.anthropic.com/en/api/errors; the SDK's
 * ErrorType). In a stream they come as `event: error` after the 200 status (streaming messages docs,
 * "Error events": an overloaded_error there "would normally correspond to an HTTP 529").
 */
const ANTHROPIC_ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  conflict_error: 409,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

function anthropicErrorStatus(type: unknown): number {
  return typeof type === 'string' && Object.hasOwn(ANTHROPIC_ERROR_STATUS, type) ? ANTHROPIC_ERROR_STATUS[type]! : 500;
}

/**
 * OpenAI's Responses error codes (the SDK's ResponseError: `response.failed`'s `response.error.code`,
 * or an `error` event's `code`) as statuses: the service failing (server_error, vector_store_timeout,
 * or no code) is a 5xx, rate_limit_exceeded a 429, the others are about the request.
 */
function openaiErrorStatus(code: unknown): number {
  if (code === 'rate_limit_exceeded') return 429;
  if (typeof code !== 'string' || code === 'server_error' || code === 'vector_store_timeout') return 500;
  return 400;
}

/** `<code>: <message>` of an error event, each part bounded, either left out when absent. */
function said(code: unknown, message: unknown): string {
  return [code, message]
    .filter((part): part is string => typeof part === 'string' && part !== '')
    .map((part) => part.slice(0, 300))
    .join(': ');
}

/** Reads the tokens of one answer, whole (JSON) or as server-sent events; everything else passes by uncounted. */
export class TokenCounter {
  readonly tokens: CallTokens = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: 0 };
  /** The stream's error event, if it sent one. */
  failure: StreamFailure | undefined;
  /**
   * The model declined on its provider's safety policy: Anthropic's `stop_reason: "refusal"`
   * (streaming refusals docs), OpenAI's `incomplete_details.reason: "content_filter"` or a
   * `refusal` output part (Responses API reference).
   */
  declined = false;
  private pending = '';
  private json = '';
  private jsonTooLarge = false;

  constructor(
    private readonly provider: Provider,
    private readonly streaming: boolean,
    /** A JSON answer (or one event) larger than this is not parsed (its tokens count 0). */
    private readonly maxJsonChars = 2 * 1024 * 1024,
  ) {}

  push(chunk: string): void {
    if (!this.streaming) {
      if (this.json.length + chunk.length > this.maxJsonChars) this.jsonTooLarge = true;
      else this.json += chunk;
      return;
    }
    this.pending += chunk;
    // Events end with a blank line (WHATWG server-sent events); CRLF is allowed.
    const events = this.pending.split(/\r?\n\r?\n/);
    this.pending = events.pop() ?? '';
    // One event cannot grow without bound: a stream that never ends its event is not counted.
    if (this.pending.length > this.maxJsonChars) this.pending = '';
    for (const event of events) this.event(event);
  }

  /** Call at the end of the answer; returns the tokens counted. */
  end(): CallTokens {
    if (this.streaming) {
      if (this.pending.trim()) this.event(this.pending);
    } else if (!this.jsonTooLarge) {
      this.answer(parse(this.json));
    }
    return this.tokens;
  }

  private event(text: string): void {
    const data = text
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    const event = object(parse(data));
    if (!event) return;
    if (this.provider === 'anthropic') {
      if (event.type === 'message_start') this.anthropicMessage(object(event.message));
      else if (event.type === 'message_delta') {
        anthropicTokens(object(event.usage), this.tokens);
        if (object(event.delta)?.stop_reason === 'refusal') this.declined = true;
      } else if (event.type === 'error') {
        const error = object(event.error);
        this.failure ??= { status: anthropicErrorStatus(error?.type), message: said(error?.type, error?.message) };
      }
    } else if (event.type === 'response.completed' || event.type === 'response.incomplete') {
      this.openaiResponse(object(event.response));
    } else if (event.type === 'response.failed') {
      const response = object(event.response);
      this.openaiResponse(response);
      const error = object(response?.error);
      this.failure ??= { status: openaiErrorStatus(error?.code), message: `response.failed: ${said(error?.code, error?.message)}` };
    } else if (event.type === 'error') {
      this.failure ??= { status: openaiErrorStatus(event.code), message: `error event: ${said(event.code, event.message)}` };
    }
  }

  private answer(body: unknown): void {
    if (this.provider === 'anthropic') this.anthropicMessage(object(body));
    else this.openaiResponse(object(body));
  }

  private anthropicMessage(message: Json | undefined): void {
    anthropicTokens(object(message?.usage), this.tokens);
    if (message?.stop_reason === 'refusal') this.declined = true;
  }

  private openaiResponse(response: Json | undefined): void {
    openaiTokens(object(response?.usage), this.tokens);
    if (object(response?.incomplete_details)?.reason === 'content_filter') this.declined = true;
    const output = Array.isArray(response?.output) ? response.output : [];
    const parts = output.flatMap((item) => {
      const content = object(item)?.content;
      return Array.isArray(content) ? content : [];
    });
    if (parts.some((part) => object(part)?.type === 'refusal')) this.declined = true;
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
