// Token counts of one model call as it passes through the model proxy: from a JSON answer, or
// from a server-sent event stream read as it goes by (the CLIs always stream). Counted the way the
// built-in agent's adapters count them (harness/models), so costs compare.
import type { Provider } from '../../models/index.ts';

export interface CallTokens {
  /** All input tokens, including those read from or written to the prompt cache. */
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
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
 * AnthropicModel does). In a stream, `message_start` carries the input counts and `message_delta`
 * the cumulative output count (and, in newer API versions, final input counts).
 */
function anthropicTokens(usage: Json | undefined, into: CallTokens): void {
  if (!usage) return;
  const cacheRead = count(usage.cache_read_input_tokens);
  const input = count(usage.input_tokens) + count(usage.cache_creation_input_tokens) + cacheRead;
  if (input > 0) {
    into.inputTokens = input;
    into.cachedInputTokens = cacheRead;
  }
  if ('output_tokens' in usage) into.outputTokens = count(usage.output_tokens);
}

/** OpenAI Responses usage: `input_tokens` includes `input_tokens_details.cached_tokens`. */
function openaiTokens(usage: Json | undefined, into: CallTokens): void {
  if (!usage) return;
  into.inputTokens = count(usage.input_tokens);
  into.outputTokens = count(usage.output_tokens);
  into.cachedInputTokens = count(object(usage.input_tokens_details)?.cached_tokens);
}

/** Reads the tokens of one answer, whole (JSON) or as server-sent events; everything else passes by uncounted. */
export class TokenCounter {
  readonly tokens: CallTokens = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
  private pending = '';
  private json = '';
  private jsonTooLarge = false;

  constructor(
    private readonly provider: Provider,
    private readonly streaming: boolean,
    /** A JSON answer larger than this is not parsed (its tokens count 0). */
    private readonly maxJsonChars = 8 * 1024 * 1024,
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
      else if (event.type === 'message_delta') anthropicTokens(object(event.usage), this.tokens);
    } else if (typeof event.type === 'string' && ['response.completed', 'response.incomplete', 'response.failed'].includes(event.type)) {
      this.openaiResponse(object(event.response));
    }
  }

  private answer(body: unknown): void {
    if (this.provider === 'anthropic') this.anthropicMessage(object(body));
    else this.openaiResponse(object(body));
  }

  private anthropicMessage(message: Json | undefined): void {
    anthropicTokens(object(message?.usage), this.tokens);
  }

  private openaiResponse(response: Json | undefined): void {
    openaiTokens(object(response?.usage), this.tokens);
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
