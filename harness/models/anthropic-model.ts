// Model adapter for Anthropic's Messages API: the system prompt is a separate parameter,
// tool calls are tool_use blocks, and tool results go back as tool_result blocks in a user turn.
import Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam, Message, MessageCreateParamsNonStreaming, Tool, ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { toModelError } from './errors.ts';
import { costUsd } from './prices.ts';
import type { ResolvedModel } from './resolve.ts';
import type { ChatMessage, CompletionRequest, Model, ModelResponse, ToolSpec } from './types.ts';

/** Anthropic requires max_tokens; used when neither the request nor the options give one. */
export const DEFAULT_ANTHROPIC_MAX_OUTPUT_TOKENS = 8192;

type Turn = { role: 'user' | 'assistant'; content: ContentBlockParam[] };

export class AnthropicModel implements Model {
  readonly spec: string;
  readonly id: string;
  readonly contextWindow: number;
  private readonly client: Anthropic;

  constructor(private readonly config: ResolvedModel) {
    this.spec = config.spec;
    this.id = config.model;
    this.contextWindow = config.contextWindow;
    // The SDK retries 408/409/429/5xx, timeouts and connection errors with exponential
    // backoff (0.5 s doubling up to 8 s, up to 25% jitter) and honours retry-after headers.
    this.client = new Anthropic({ apiKey: config.apiKey, baseURL: config.baseURL, maxRetries: config.maxRetries, timeout: config.timeoutMs });
  }

  async complete(request: CompletionRequest): Promise<ModelResponse> {
    const body: MessageCreateParamsNonStreaming = {
      model: this.id,
      max_tokens: request.maxOutputTokens ?? this.config.maxOutputTokens ?? DEFAULT_ANTHROPIC_MAX_OUTPUT_TOKENS,
      messages: toAnthropicTurns(request.messages),
      ...(request.system ? { system: request.system } : {}),
      ...(request.tools?.length ? { tools: request.tools.map(toAnthropicTool) } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    };
    const started = performance.now();
    let message: Message;
    try {
      message = await this.client.messages.create(body, { signal: request.signal });
    } catch (error) {
      throw toModelError(error, this.config);
    }
    const latencyMs = Math.round(performance.now() - started);
    return fromAnthropicMessage(message, this.config, latencyMs);
  }
}

/**
 * Consecutive messages of one role become one turn (tool results and injected partner
 * messages both travel as user turns), and in a user turn the tool_result blocks come first,
 * as the API requires. Empty text blocks are dropped: the API rejects them.
 */
function toAnthropicTurns(messages: ChatMessage[]): Turn[] {
  const turns: Turn[] = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = toBlocks(message);
    if (blocks.length === 0) continue;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  }
  for (const turn of turns) {
    if (turn.role === 'user') {
      turn.content = [...turn.content.filter(isToolResult), ...turn.content.filter((block) => !isToolResult(block))];
    }
  }
  return turns;
}

function toBlocks(message: ChatMessage): ContentBlockParam[] {
  if (message.role === 'tool') return [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content }];
  const blocks: ContentBlockParam[] = message.content === '' ? [] : [{ type: 'text', text: message.content }];
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) {
      blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call.arguments) });
    }
  }
  return blocks;
}

function isToolResult(block: ContentBlockParam): block is ToolResultBlockParam {
  return block.type === 'tool_result';
}

/**
 * The API wants the input as an object. Arguments that are not a JSON object (possible only
 * in a history edited by hand) go back as {}: the agent loop has already answered that call
 * with an error, and the history must stay valid.
 */
function toolInput(argumentsText: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(argumentsText);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  return {};
}

function toAnthropicTool(tool: ToolSpec): Tool {
  return { name: tool.name, description: tool.description, input_schema: tool.parameters as Tool.InputSchema };
}

function fromAnthropicMessage(message: Message, config: ResolvedModel, latencyMs: number): ModelResponse {
  let content = '';
  const toolCalls: ModelResponse['toolCalls'] = [];
  for (const block of message.content) {
    if (block.type === 'text') content += block.text;
    else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
  }
  // input_tokens excludes cache reads and writes; cache writes are counted at the input price
  // (they cost 25% more), which only matters if prompt caching is ever turned on.
  const cacheRead = message.usage.cache_read_input_tokens ?? 0;
  const usage = {
    inputTokens: message.usage.input_tokens + (message.usage.cache_creation_input_tokens ?? 0) + cacheRead,
    outputTokens: message.usage.output_tokens,
    cachedInputTokens: cacheRead,
  };
  return {
    content,
    toolCalls,
    usage: { ...usage, costUsd: costUsd(config.price, usage), latencyMs },
    stopReason: message.stop_reason ?? undefined,
  };
}
