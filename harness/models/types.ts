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

export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

export interface Usage {
  /** All input tokens of the call, including those served from the provider's prompt cache. */
  inputTokens: number;
  outputTokens: number;
  /** The part of inputTokens read from the prompt cache (billed at a lower price). */
  cachedInputTokens?: number;
  /** From the price table; 0 when the model's price is unknown. */
  costUsd: number;
  latencyMs: number;
}

export interface ModelResponse {
  content: string;
  toolCalls: ToolCall[];
  usage: Usage;
  /** Provider's reason for stopping (e.g. stop, tool_calls, length, end_turn). */
  stopReason?: string;
}

export interface CompletionRequest {
  system?: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  temperature?: number;
  maxOutputTokens?: number;
  signal?: AbortSignal;
}

export interface Model {
  /** The spec the user gave (`gpt-5`, `anthropic:claude-...`, `openai:qwen@http://...`). */
  readonly spec: string;
  /** Concrete model id sent to the provider. */
  readonly id: string;
  /** Context window in tokens, for compaction. */
  readonly contextWindow: number;
  complete(request: CompletionRequest): Promise<ModelResponse>;
}
