// Model adapter for OpenAI's Chat Completions API with function calling, and for any
// OpenAI-compatible server (vLLM, Ollama, llama.cpp) named in the spec.
import type OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { ConfiguredModel } from './configured-model.ts';
import { costUsd } from './prices.ts';
import type { ResolvedModel } from './resolved.ts';
import { replayArguments } from './tool-arguments.ts';
import type { ChatMessage, CompletionRequest, ModelResponse, ToolCall, ToolSpec } from './types.ts';

/**
 * The SDK (loaded at a model's first call: a run of other providers never loads it) and a client.
 * The SDK retries 408/409/429/5xx, timeouts and connection errors with exponential backoff (0.5 s
 * doubling up to 8 s, up to 25% jitter) and honours retry-after headers.
 */
export async function openAIClient(config: ResolvedModel, fetch?: typeof globalThis.fetch): Promise<{ sdk: typeof OpenAI; client: OpenAI }> {
  const { default: sdk } = await import('openai');
  return {
    sdk,
    client: new sdk({ apiKey: config.apiKey, baseURL: config.baseURL, maxRetries: config.maxRetries, timeout: config.timeoutMs, ...(fetch ? { fetch } : {}) }),
  };
}

export class OpenAIModel extends ConfiguredModel {
  private connection?: ReturnType<typeof openAIClient>;

  async complete(request: CompletionRequest): Promise<ModelResponse> {
    const maxOutputTokens = request.maxOutputTokens ?? this.config.maxOutputTokens;
    const tools = request.tools?.length ? request.tools.map(toOpenAITool) : undefined;
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: this.id,
      messages: toOpenAIMessages(request.system, request.messages),
      ...(tools ? { tools } : {}),
      ...(tools && request.toolChoice ? { tool_choice: request.toolChoice } : {}),
      // gpt-5 and the o-series reject any temperature but the default: send none unless asked.
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(maxOutputTokens !== undefined ? { max_completion_tokens: maxOutputTokens } : {}),
      ...(this.config.reasoningEffort ? { reasoning_effort: this.config.reasoningEffort } : {}),
    };
    const { sdk, client } = await (this.connection ??= openAIClient(this.config, this.fetch));
    const { answer, latencyMs } = await this.timed(sdk, () => client.chat.completions.create(body, { signal: request.signal }));
    return fromOpenAICompletion(answer, this.config, latencyMs);
  }
}

function toOpenAIMessages(system: string | undefined, messages: ChatMessage[]): ChatCompletionMessageParam[] {
  const converted: ChatCompletionMessageParam[] = system ? [{ role: 'system', content: system }] : [];
  for (const message of messages) {
    if (message.role === 'user') {
      converted.push({ role: 'user', content: message.content });
    } else if (message.role === 'tool') {
      converted.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.content });
    } else if (message.toolCalls?.length) {
      converted.push({
        role: 'assistant',
        content: message.content.trim() === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: replayArguments(call.arguments) },
        })),
      });
    } else {
      converted.push({ role: 'assistant', content: message.content });
    }
  }
  return converted;
}

function toOpenAITool(tool: ToolSpec): ChatCompletionTool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

function fromOpenAICompletion(completion: ChatCompletion, config: ResolvedModel, latencyMs: number): ModelResponse {
  const choice = completion.choices[0];
  const toolCalls: ToolCall[] = [];
  for (const [index, call] of (choice?.message.tool_calls ?? []).entries()) {
    // Some local servers leave the id empty; the tool message must still name its call.
    if (call.type === 'function') toolCalls.push({ id: call.id || `call_${index}`, name: call.function.name, arguments: call.function.arguments });
  }
  const usage = {
    inputTokens: completion.usage?.prompt_tokens ?? 0,
    outputTokens: completion.usage?.completion_tokens ?? 0,
    cachedInputTokens: completion.usage?.prompt_tokens_details?.cached_tokens ?? 0,
    reasoningTokens: completion.usage?.completion_tokens_details?.reasoning_tokens ?? 0,
  };
  // The model declined (message.refusal) or the content filter cut the answer (finish_reason
  // content_filter): api-reference "The chat completion object".
  const refusal = choice?.message.refusal?.trim()
    ? `refusal: ${choice.message.refusal.trim()}`
    : choice?.finish_reason === 'content_filter'
      ? 'finish_reason content_filter'
      : undefined;
  return {
    content: choice?.message.content ?? '',
    toolCalls,
    usage: { ...usage, costUsd: costUsd(config.price, usage), latencyMs },
    stopReason: choice?.finish_reason ?? undefined,
    truncated: choice?.finish_reason === 'length',
    ...(refusal ? { refusal } : {}),
  };
}
