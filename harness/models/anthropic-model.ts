// Model adapter for Anthropic's Messages API: the system prompt is a separate parameter, tool calls
// are tool_use blocks, and tool results go back as tool_result blocks in a user turn. Prompt caching
// is on: a breakpoint after the system prompt (tools and system are the stable prefix) and a rolling
// one on the last block of the conversation, so each step reads the previous steps from the cache
// (prompt caching docs: cache reads cost 0.1x the input price, writes 1.25x for 5 minutes or 2x
// for 1 hour; a breakpoint finds an earlier entry up to 20 blocks back).
import type Anthropic from '@anthropic-ai/sdk';
import type {
  CacheControlEphemeral,
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { ConfiguredModel } from './configured-model.ts';
import { costUsd } from './prices.ts';
import type { ResolvedModel } from './resolved.ts';
import { argumentsObject } from './tool-arguments.ts';
import type { ChatMessage, CompletionRequest, ModelResponse, ToolSpec } from './types.ts';

type Turn = { role: 'user' | 'assistant'; content: ContentBlockParam[] };

export class AnthropicModel extends ConfiguredModel {
  private connection?: Promise<{ sdk: typeof Anthropic; client: Anthropic }>;

  /**
   * The SDK (loaded at the first call: a run of other providers never loads it) and a client. The
   * SDK retries 408/409/429/5xx, timeouts and connection errors with exponential backoff (0.5 s
   * doubling up to 8 s, up to 25% jitter) and honours retry-after headers.
   */
  private async connect(): Promise<{ sdk: typeof Anthropic; client: Anthropic }> {
    const { default: sdk } = await import('@anthropic-ai/sdk');
    const { apiKey, baseURL, maxRetries, timeoutMs } = this.config;
    return { sdk, client: new sdk({ apiKey, baseURL, maxRetries, timeout: timeoutMs, ...(this.fetch ? { fetch: this.fetch } : {}) }) };
  }

  async complete(request: CompletionRequest): Promise<ModelResponse> {
    const cacheControl: CacheControlEphemeral = this.config.cacheTtl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
    const messages = toAnthropicTurns(request.messages);
    markLastBlock(messages, cacheControl);
    const tools = request.tools?.length ? request.tools.map(toAnthropicTool) : undefined;
    const body: MessageCreateParamsNonStreaming = {
      model: this.id,
      // The adapter always has a number here: the table's limit, or a fallback for unknown models.
      max_tokens: request.maxOutputTokens ?? this.config.maxOutputTokens!,
      messages,
      ...(request.system?.trim() ? { system: [{ type: 'text', text: request.system, cache_control: cacheControl }] } : {}),
      ...(tools ? { tools } : {}),
      ...(tools && request.toolChoice ? { tool_choice: { type: request.toolChoice } } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    };
    const { sdk, client } = await (this.connection ??= this.connect());
    const { answer, latencyMs } = await this.timed(sdk, () => client.messages.create(body, { signal: request.signal }));
    return fromAnthropicMessage(answer, this.config, latencyMs);
  }
}

/**
 * Consecutive messages of one role become one turn (tool results and injected partner messages
 * both travel as user turns), and in a user turn the tool_result blocks come first, as the API
 * requires. Text that is empty or only whitespace is dropped: the API refuses it.
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
  const blocks: ContentBlockParam[] = message.content.trim() === '' ? [] : [{ type: 'text', text: message.content }];
  // Thinking blocks go back first and unchanged with the tool calls they led to: a model that thinks
  // by default (Sonnet 5.5) refuses a tool result whose assistant turn lost them
  // (platform.claude.com/docs/build-with-claude/thinking-tool-workflows).
  if (message.role === 'assistant' && message.replay?.api === 'anthropic-messages') blocks.unshift(...(message.replay.items as ContentBlockParam[]));
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) {
      // The API wants an object: malformed arguments (already answered with an error) go back as {}.
      blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: argumentsObject(call.arguments) ?? {} });
    }
  }
  return blocks;
}

function isToolResult(block: ContentBlockParam): block is ToolResultBlockParam {
  return block.type === 'tool_result';
}

/** The rolling breakpoint: everything up to the newest block is cached for the next step. */
function markLastBlock(turns: Turn[], cacheControl: CacheControlEphemeral): void {
  const block = turns.at(-1)?.content.at(-1);
  if (block) (block as TextBlockParam).cache_control = cacheControl;
}

function toAnthropicTool(tool: ToolSpec): Tool {
  return { name: tool.name, description: tool.description, input_schema: tool.parameters as Tool.InputSchema };
}

function fromAnthropicMessage(message: Message, config: ResolvedModel, latencyMs: number): ModelResponse {
  let content = '';
  const toolCalls: ModelResponse['toolCalls'] = [];
  const thinking: ContentBlockParam[] = [];
  for (const block of message.content) {
    if (block.type === 'text') content += block.text;
    else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
    else if (block.type === 'thinking') thinking.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    else if (block.type === 'redacted_thinking') thinking.push({ type: 'redacted_thinking', data: block.data });
  }
  // input_tokens counts only the tokens after the last cache breakpoint: reads and writes come on top.
  const read = message.usage.cache_read_input_tokens ?? 0;
  const written = message.usage.cache_creation_input_tokens ?? 0;
  const byTtl = message.usage.cache_creation;
  const written1h = byTtl ? byTtl.ephemeral_1h_input_tokens : config.cacheTtl === '1h' ? written : 0;
  const usage = {
    inputTokens: message.usage.input_tokens + read + written,
    outputTokens: message.usage.output_tokens,
    cachedInputTokens: read,
    cacheWriteTokens: written - written1h,
    cacheWrite1hTokens: written1h,
  };
  return {
    content,
    toolCalls,
    usage: { ...usage, costUsd: costUsd(config.price, usage), latencyMs },
    ...(thinking.length > 0 ? { replay: { api: 'anthropic-messages' as const, items: thinking } } : {}),
    stopReason: message.stop_reason ?? undefined,
    ...(message.stop_reason === 'refusal' ? { refusal: refusalText(message) } : {}),
    // model_context_window_exceeded: the output ran into the end of the context window.
    truncated: message.stop_reason === 'max_tokens' || message.stop_reason === 'model_context_window_exceeded',
  };
}

/**
 * Claude 4 models stop with `stop_reason: "refusal"` when the safety classifiers intervene, with
 * `stop_details` saying why; continuing without removing the refused turn gets more refusals
 * (platform.claude.com/docs/en/test-and-evaluate/strengthen-guardrails/handle-streaming-refusals).
 */
function refusalText(message: Message): string {
  const details = (message as { stop_details?: { category?: string | null; explanation?: string | null } | null }).stop_details;
  const words = [details?.category, details?.explanation].filter((part): part is string => typeof part === 'string' && part.trim() !== '');
  return words.length > 0 ? `stop_reason refusal: ${words.join(': ')}` : 'stop_reason refusal';
}
