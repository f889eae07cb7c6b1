// The model interface agents and judges call: one chat completion with tools, whatever the provider.

/** A tool the model may call; `parameters` is a JSON Schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments exactly as the model wrote them (JSON text, possibly malformed). */
  arguments: string;
}

/**
 * What a provider needs back verbatim on later turns and nothing else can hold: the Responses API's
 * reasoning items (with their encrypted content), the Messages API's thinking blocks (with their
 * signatures). Opaque to the agent; only the adapter that made it reads it.
 */
export interface ReplayItems {
  api: 'openai-responses' | 'anthropic-messages';
  items: unknown[];
}

export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[]; replay?: ReplayItems }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

export interface Usage {
  /** All input tokens of the call: uncached, read from the prompt cache and written to it. */
  inputTokens: number;
  /** All output tokens, reasoning included. */
  outputTokens: number;
  /** The part of inputTokens read from the prompt cache (billed at a lower price). */
  cachedInputTokens?: number;
  /** The part of inputTokens written to the prompt cache for 5 minutes (Anthropic: 1.25x the input price). */
  cacheWriteTokens?: number;
  /** The part of inputTokens written to the prompt cache for 1 hour (Anthropic: 2x the input price). */
  cacheWrite1hTokens?: number;
  /** The part of outputTokens the model spent reasoning. */
  reasoningTokens?: number;
  /** From the price table; 0 when the model's price is unknown. */
  costUsd: number;
  latencyMs: number;
}

export interface ModelResponse {
  content: string;
  toolCalls: ToolCall[];
  usage: Usage;
  /** Provider's reason for stopping (e.g. stop, tool_calls, length, end_turn, max_tokens). */
  stopReason?: string;
  /** The output was cut off at the output token limit: the last tool call may be incomplete. */
  truncated?: boolean;
  /**
   * The provider stopped the answer on its safety policy (Anthropic `stop_reason: "refusal"`, OpenAI
   * `content_filter` or a `refusal` content part): its words, or the stop reason when it gave none.
   * Resending the same conversation gets the same refusal.
   */
  refusal?: string;
  /** To be kept on the assistant message and sent back with it. */
  replay?: ReplayItems;
}

export interface CompletionRequest {
  system?: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** `none`: the tools are defined (the history may hold tool calls) but the model may not call them. */
  toolChoice?: 'auto' | 'none';
  temperature?: number;
  maxOutputTokens?: number;
  signal?: AbortSignal;
}

export interface Model {
  /** The spec the user gave (`gpt-5`, `anthropic:claude-...`, `openai:qwen@http://...`). */
  readonly spec: string;
  /** Concrete model id sent to the provider. */
  readonly id: string;
  /**
   * Tokens a prompt may hold, the output budget already set aside; undefined when unknown (an agent
   * needs it: `coop-bench run` finds it out before it starts, see context-window.ts).
   */
  readonly contextWindow?: number;
  /** Output tokens a request asks for unless it says otherwise; undefined: the server decides. */
  readonly maxOutputTokens?: number;
  complete(request: CompletionRequest): Promise<ModelResponse>;
}
