// Model adapter for OpenAI's Responses API, used for the reasoning models (gpt-5, o-series). Their
// reasoning is carried from turn to turn: each answer's reasoning items come back with their
// encrypted content (nothing is stored at OpenAI: store=false) and are sent again before the calls
// they led to, with the ids of those items, as the OpenAI cookbook "Better performance from reasoning
// models using the Responses API" describes (see toInputItems); on Chat Completions the reasoning is
// dropped after every turn.
import type { FunctionTool, Response, ResponseCreateParamsNonStreaming, ResponseInputItem, ResponseReasoningItem } from 'openai/resources/responses/responses';
import { ConfiguredModel } from './configured-model.ts';
import { openAIClient } from './openai-model.ts';
import { costUsd } from './prices.ts';
import type { ResolvedModel } from './resolved.ts';
import { replayArguments } from './tool-arguments.ts';
import type { ChatMessage, CompletionRequest, ModelResponse, ReplayItems, ToolCall, ToolSpec } from './types.ts';

export class OpenAIResponsesModel extends ConfiguredModel {
  private connection?: ReturnType<typeof openAIClient>;

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
    const { sdk, client } = await (this.connection ??= openAIClient(this.config, this.fetch));
    const { answer, latencyMs } = await this.timed(sdk, () => client.responses.create(body, { signal: request.signal }));
    return fromResponse(answer, this.config, latencyMs);
  }
}

function toFunctionTool(tool: ToolSpec): FunctionTool {
  return { type: 'function', name: tool.name, description: tool.description, parameters: tool.parameters, strict: false };
}

/**
 * What an answer's output held, in its order: reasoning items with their encrypted content, and
 * the ids of the message and function_call items that came with them.
 */
type ReplayItem = ResponseReasoningItem | { type: 'message'; id: string } | { type: 'function_call'; id: string; call_id: string };

/**
 * An assistant turn goes back as its answer's output did: each reasoning item with its id and
 * encrypted content, then the message and function_call items that followed it, with their ids.
 *
 * Why this shape: it is the one OpenAI documents for stateless use (cookbook "Better performance
 * from reasoning models using the Responses API", section "Encrypted reasoning items": with
 * store=false and include=["reasoning.encrypted_content"], `context += response.output`, i.e. every
 * output item as returned, ids included). The service pairs a reasoning item with the item that
 * followed it by that item's id: without it, 400 "Item 'rs_..' of type 'reasoning' was provided
 * without its required following item" (OpenHands/software-agent-sdk#1754, openai/openai-node#1567,
 * langchain-ai/langchainjs#9082). The ids are no lookups of stored items: what the service looks up
 * is an item sent by id alone (a reasoning item without its encrypted content, an item_reference),
 * which with store=false is 404 "Item with id 'rs_..' not found. Items are not persisted when
 * `store` is set to false" (vercel/ai#7543). Clients that drop the message ids (langchain-ai/
 * langchain#38372) report no error either; the preflight (harness/run/preflight.ts) replays
 * exactly this shape, so a user sees in seconds which one the service takes.
 *
 * A turn with neither text nor calls goes back as nothing: a reasoning item must be followed by
 * the output it led to.
 */
function toInputItems(messages: ChatMessage[]): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      items.push({ role: 'user', content: message.content });
    } else if (message.role === 'tool') {
      items.push({ type: 'function_call_output', call_id: message.toolCallId, output: message.content });
    } else {
      items.push(...assistantItems(message));
    }
  }
  return items;
}

function assistantItems(message: Extract<ChatMessage, { role: 'assistant' }>): ResponseInputItem[] {
  const text = message.content.trim() !== '';
  const calls = message.toolCalls ?? [];
  if (!text && calls.length === 0) return [];
  const replayed = message.replay?.api === 'openai-responses' ? (message.replay.items as ReplayItem[]) : [];
  const items: ResponseInputItem[] = [];
  let textSent = false;
  const callsSent = new Set<string>();
  for (const item of replayed) {
    if (item.type === 'reasoning') {
      items.push(item);
    } else if (item.type === 'message' && !textSent) {
      // The whole answer's text in its first message item (gpt-5 writes one), even blank: the
      // reasoning before it is paired with it by its id.
      items.push({
        type: 'message',
        id: item.id,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: message.content, annotations: [] }],
      });
      textSent = true;
    } else if (item.type === 'function_call') {
      const call = calls.find((c) => c.id === item.call_id);
      if (call && !callsSent.has(call.id)) {
        items.push(functionCall(call, item.id));
        callsSent.add(call.id);
      }
    }
  }
  // A reasoning item left last (its output was cut off) has no following item: it cannot go back.
  while (items.at(-1)?.type === 'reasoning') items.pop();
  if (text && !textSent) items.push({ role: 'assistant', content: message.content });
  for (const call of calls) if (!callsSent.has(call.id)) items.push(functionCall(call));
  return items;
}

function functionCall(call: ToolCall, id?: string): ResponseInputItem {
  return { type: 'function_call', ...(id ? { id } : {}), call_id: call.id, name: call.name, arguments: replayArguments(call.arguments) };
}

function fromResponse(response: Response, config: ResolvedModel, latencyMs: number): ModelResponse {
  let content = '';
  const toolCalls: ToolCall[] = [];
  const replayed: ReplayItem[] = [];
  let refusal: string | undefined;
  for (const item of response.output) {
    if (item.type === 'message') {
      for (const part of item.content) {
        if (part.type === 'output_text') content += part.text;
        else if (part.type === 'refusal') refusal = `refusal: ${part.refusal}`;
      }
      replayed.push({ type: 'message', id: item.id });
    } else if (item.type === 'function_call') {
      toolCalls.push({ id: item.call_id, name: item.name, arguments: item.arguments });
      if (item.id) replayed.push({ type: 'function_call', id: item.id, call_id: item.call_id });
    } else if (item.type === 'reasoning') {
      // Only what the API takes back: the id, the summary and the encrypted reasoning.
      replayed.push({
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
  // api-reference "The response object": incomplete_details.reason content_filter, or a refusal
  // content part in the message, is the model declining on OpenAI's safety policy.
  if (incomplete === 'content_filter') refusal ??= 'incomplete_details.reason content_filter';
  // Only reasoning needs replaying: without it the ids of the other items are of no use.
  const replay: ReplayItems | undefined = replayed.some((item) => item.type === 'reasoning') ? { api: 'openai-responses', items: replayed } : undefined;
  return {
    content,
    toolCalls,
    usage: { ...usage, costUsd: costUsd(config.price, usage), latencyMs },
    stopReason: incomplete ?? (toolCalls.length > 0 ? 'tool_calls' : (response.status ?? undefined)),
    truncated: incomplete === 'max_output_tokens',
    ...(refusal ? { refusal } : {}),
    ...(replay ? { replay } : {}),
  };
}
