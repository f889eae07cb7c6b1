// Model adapter for OpenAI's chat completions API with function calling, and for any
// OpenAI-compatible server (vLLM, Ollama, llama.cpp) named in the spec.
import OpenAI from 'openai';
import type {
  ChatCompletion, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam, ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { toModelError } from './errors.ts';
import { costUsd } from './prices.ts';
import type { ResolvedModel } from './resolve.ts';
import type { ChatMessage, CompletionRequest, Model, ModelResponse, ToolCall, ToolSpec } from './types.ts';

export class OpenAIModel implements Model {
  readonly spec: string;
  readonly id: string;
  readonly contextWindow: number;
  private readonly client: OpenAI;

  constructor(private readonly config: ResolvedModel) {
    this.spec = config.spec;
    this.id = config.model;
    this.contextWindow = config.contextWindow;
    // The SDK retries 408/409/429/5xx, timeouts and connection errors with exponential
    // backoff (0.5 s doubling up to 8 s, up to 25% jitter) and honours retry-after headers.
    this.client = new OpenAI({ apiKey: config.apiKey, baseURL: config.baseURL, maxRetries: config.maxRetries, timeout: config.timeoutMs });
  }

  async complete(request: CompletionRequest): Promise<ModelResponse> {
    const maxOutputTokens = request.maxOutputTokens ?? this.config.maxOutputTokens;
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: this.id,
      messages: toOpenAIMessages(request.system, request.messages),
      ...(request.tools?.length ? { tools: request.tools.map(toOpenAITool) } : {}),
      // gpt-5 and the o-series reject any temperature but the default: send none unless asked.
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(maxOutputTokens !== undefined ? { max_completion_tokens: maxOutputTokens } : {}),
    };
    const started = performance.now();
    let completion: ChatCompletion;
    try {
      completion = await this.client.chat.completions.create(body, { signal: request.signal });
    } catch (error) {
      throw toModelError(error, this.config);
    }
    const latencyMs = Math.round(performance.now() - started);
    return fromOpenAICompletion(completion, this.config, latencyMs);
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
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
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
  };
  return {
    content: choice?.message.content ?? '',
    toolCalls,
    usage: { ...usage, costUsd: costUsd(config.price, usage), latencyMs },
    stopReason: choice?.finish_reason ?? undefined,
  };
}
