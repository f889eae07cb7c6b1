// Token counts of one model call as it passes through the model proxy: from a JSON answer, or
// from a server-sent event stream read as it goes by (the CLIs always stream). Counted the way the
// built-in agent's adapters count them (harness/models), so costs compare. A stream can also fail
// after its 200 status: its error event is kept as the call's failure. An answer in which the model
// declined on its provider's safety policy is marked, as the built-in agent's adapters mark it.
import { proxyApi, type CallReading, type CallTokens, type Provider, type StreamFailure, type UsageReader } from '../../models/index.ts';

/** Reads the tokens of one answer, whole (JSON) or as server-sent events; everything else passes by uncounted. */
export class TokenCounter implements CallReading {
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
  private readonly reader: UsageReader;

  constructor(
    /** A provider an agent CLI speaks to (its entry has a `proxy`). */
    provider: Provider,
    private readonly streaming: boolean,
    /** A JSON answer (or one event) larger than this is not parsed (its tokens count 0). */
    private readonly maxJsonChars = 2 * 1024 * 1024,
  ) {
    this.reader = proxyApi(provider).usage;
  }

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
    const event = parse(data);
    if (event !== null && typeof event === 'object' && !Array.isArray(event)) this.reader.event(event as Record<string, unknown>, this);
  }

  private answer(body: unknown): void {
    this.reader.answer(body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined, this);
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
