// Model adapter for OpenAI's Responses API, used for the reasoning models (gpt-5, o-series). Their
// reasoning is carried from turn to turn: each answer's reasoning items come back with their
// encrypted content (nothing is stored at OpenAI: store=false) and are sent again before the calls
// they led to, as the OpenAI cookbook "Better performance from reasoning models using the Responses
// API" describes; on Chat Completions the reasoning is dropped after every turn.
import type { FunctionTool, Response, ResponseCreateParamsNonStreaming, ResponseInputItem, ResponseReasoningItem } from 'openai/resources/responses/responses';
import { ConfiguredModel } from './configured-model.ts';
import { openAIClient } from './openai-model.ts';
import { costUsd } from './prices.ts';
import type { ResolvedModel } from './resolve.ts';
import { replayArguments } from './tool-arguments.ts';
import type { ChatMessage, CompletionRequest, ModelResponse, ReplayItems, ToolCall, ToolSpec } from './types.ts';

export class OpenAIResponsesModel extends ConfiguredModel {
  private readonly client = openAIClient(this.config);

  async complete(request: CompletionRequest): Promise<ModelResponse> {
    const maxOutputTokens = request.maxOutputTokens ?? this.config.maxOutputTokens;
    const tools = request.tools?.length ? request.tools.map(toFunctionTool) : undefined;
    const body: ResponseCreateParamsNonStreaming = {
      model: this.id,
      input: toInputItems(request.messages),
      ...(request.system ? { instructions: request.system } : {}),
      ...(tools ? { tools } : {}),
      ...(tools && request.toolChoice ? { tool_choice: request.toolChoice } : {}),
      store: false,
      include: ['reasoning.encrypted_content'],
      ...(this.config.reasoningEffort ? { reasoning: { effort: this.config.reasoningEffort } } : {}),
      ...(maxOutputTokens !== undefined ? { max_output_tokens: maxOutputTokens } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    };
    const { answer, latencyMs } = await this.timed(() => this.client.responses.create(body, { signal: request.signal }));
    return fromResponse(answer, this.config, latencyMs);
  }
}

function toFunctionTool(tool: ToolSpec): FunctionTool {
  return { type: 'function', name: tool.name, description: tool.description, parameters: tool.parameters, strict: false };
}

/**
 * An assistant turn goes back as its reasoning items, its text and its calls, in that order. A turn
 * with neither text nor calls goes back as nothing: a reasoning item must be followed by the output
 * it led to.
 */
function toInputItems(messages: ChatMessage[]): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      items.push({ role: 'user', content: message.content });
    } else if (message.role === 'tool') {
      items.push({ type: 'function_call_output', call_id: message.toolCallId, output: message.content });
    } else {
      const text = message.content.trim() !== '';
      if (!text && !message.toolCalls?.length) continue;
      if (message.replay?.api === 'openai-responses') items.push(...(message.replay.items as ResponseReasoningItem[]));
      if (text) items.push({ role: 'assistant', content: message.content });
      for (const call of message.toolCalls ?? []) {
        items.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: replayArguments(call.arguments) });
      }
    }
  }
  return items;
}

function fromResponse(response: Response, config: ResolvedModel, latencyMs: number): ModelResponse {
  let content = '';
  const toolCalls: ToolCall[] = [];
  const reasoning: ResponseReasoningItem[] = [];
  for (const item of response.output) {
    if (item.type === 'message') {
      for (const part of item.content) if (part.type === 'output_text') content += part.text;
    } else if (item.type === 'function_call') {
      toolCalls.push({ id: item.call_id, name: item.name, arguments: item.arguments });
    } else if (item.type === 'reasoning') {
      // Only what the API takes back: the id, the summary and the encrypted reasoning.
      reasoning.push({
        type: 'reasoning',
        id: item.id,
        summary: item.summary,
        ...(item.encrypted_content ? { encrypted_content: item.encrypted_content } : {}),
      });
    }
  }
  const usage = {
    inputTokens: response.usage?.input_tokens ?? 0,
    outputTokens: response.usage?.output_tokens ?? 0,
    cachedInputTokens: response.usage?.input_tokens_details?.cached_tokens ?? 0,
    reasoningTokens: response.usage?.output_tokens_details?.reasoning_tokens ?? 0,
  };
  const incomplete = response.status === 'incomplete' ? response.incomplete_details?.reason : undefined;
  const replay: ReplayItems | undefined = reasoning.length > 0 ? { api: 'openai-responses', items: reasoning } : undefined;
  return {
    content,
    toolCalls,
    usage: { ...usage, costUsd: costUsd(config.price, usage), latencyMs },
    stopReason: incomplete ?? (toolCalls.length > 0 ? 'tool_calls' : (response.status ?? undefined)),
    truncated: incomplete === 'max_output_tokens',
    ...(replay ? { replay } : {}),
  };
}
