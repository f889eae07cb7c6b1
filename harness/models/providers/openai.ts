// OpenAI, and every OpenAI-compatible server named in a spec (vLLM, Ollama, llama.cpp): Chat
// Completions (openai-model.ts) or the Responses API (openai-responses.ts), and Codex's calls
// through the model proxy.
import { CATALOGUE } from '../catalogue.ts';
import { toModelError } from '../errors.ts';
import { OpenAIModel } from '../openai-model.ts';
import { OpenAIResponsesModel } from '../openai-responses.ts';
import type { ResolvedModel } from '../resolved.ts';
import { count, object, said, type CallReading, type Json, type ModelProvider } from './provider.ts';

/**
 * OpenAI's reasoning models, which keep their reasoning between turns only on the Responses API
 * (OpenAI's reasoning guide): those the catalogue lists with efforts, else by name. A server named
 * in the spec keeps Chat Completions: vLLM, Ollama and llama.cpp speak it, and few of them the
 * Responses API.
 */
function isOpenAIReasoningModel(model: string, entry = CATALOGUE.entry(model)): boolean {
  return entry ? entry.reasoningEfforts !== undefined : /^(gpt-[5-9]|o1|o3|o4)([-.]|$)/.test(model);
}

/** vLLM's /v1/models gives each model's max_model_len (vllm/entrypoints/openai/protocol.py, ModelCard). */
async function maxModelLen(model: ResolvedModel): Promise<number | undefined> {
  const { default: OpenAI } = await import('openai');
  const client = new OpenAI({ apiKey: model.apiKey, baseURL: model.baseURL, maxRetries: 1, timeout: 30_000 });
  try {
    for await (const entry of client.models.list()) {
      const length = (entry as { max_model_len?: unknown }).max_model_len;
      if (entry.id === model.model && typeof length === 'number' && length > 0) return length;
    }
    return undefined;
  } catch (error) {
    throw toModelError(error, { ...model, maxRetries: 1, timeoutMs: 30_000 }, OpenAI);
  }
}

/**
 * OpenAI's Responses error codes (the SDK's ResponseError: `response.failed`'s `response.error.code`,
 * or an `error` event's `code`) as statuses: the service failing (server_error, vector_store_timeout,
 * or no code) is a 5xx, rate_limit_exceeded a 429, the others are about the request.
 */
function errorStatus(code: unknown): number {
  if (code === 'rate_limit_exceeded') return 429;
  if (typeof code !== 'string' || code === 'server_error' || code === 'vector_store_timeout') return 500;
  return 400;
}

/**
 * A response's usage (`input_tokens` includes `input_tokens_details.cached_tokens`); a decline is
 * `incomplete_details.reason: "content_filter"` or a `refusal` output part (Responses API reference).
 */
function readResponse(response: Json | undefined, into: CallReading): void {
  const usage = object(response?.usage);
  if (usage) {
    into.tokens.inputTokens = count(usage.input_tokens);
    into.tokens.outputTokens = count(usage.output_tokens);
    into.tokens.cachedInputTokens = count(object(usage.input_tokens_details)?.cached_tokens);
    into.tokens.reasoningTokens = count(object(usage.output_tokens_details)?.reasoning_tokens);
  }
  if (object(response?.incomplete_details)?.reason === 'content_filter') into.declined = true;
  const output = Array.isArray(response?.output) ? response.output : [];
  const parts = output.flatMap((item) => {
    const content = object(item)?.content;
    return Array.isArray(content) ? content : [];
  });
  if (parts.some((part) => object(part)?.type === 'refusal')) into.declined = true;
}

export const openai: ModelProvider = {
  name: 'openai',
  keyVariable: 'OPENAI_API_KEY',
  baseURLVariable: 'OPENAI_BASE_URL',
  defaultBaseURL: 'https://api.openai.com/v1',
  api: ({ model, baseURL, entry }, options) => options.openaiApi ?? (baseURL === undefined && isOpenAIReasoningModel(model, entry) ? 'responses' : 'chat'),
  takesReasoningEffort: true,
  serverContextWindow: maxModelLen,
  create: (model, fetch) => (model.api === 'responses' ? new OpenAIResponsesModel(model, fetch) : new OpenAIModel(model, fetch)),
  proxy: {
    routes: { '/v1/responses': 'model', '/v1/responses/compact': 'model' },
    basePath: '/v1',
    api: 'responses',
    keyHeaders: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
    errorBody: (type, message) => JSON.stringify({ error: { message, type, code: null, param: null } }),
    busyErrorType: 'server_error',
    usage: {
      answer: readResponse,
      event(event, into) {
        if (event.type === 'response.completed' || event.type === 'response.incomplete') readResponse(object(event.response), into);
        else if (event.type === 'response.failed') {
          const response = object(event.response);
          readResponse(response, into);
          const error = object(response?.error);
          into.failure ??= { status: errorStatus(error?.code), message: `response.failed: ${said(error?.code, error?.message)}` };
        } else if (event.type === 'error') {
          into.failure ??= { status: errorStatus(event.code), message: `error event: ${said(event.code, event.message)}` };
        }
      },
    },
  },
};
