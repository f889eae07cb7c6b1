// Anthropic: the Messages API (anthropic-model.ts), and Claude Code's calls through the model proxy.
import { AnthropicModel } from '../anthropic-model.ts';
import { count, object, said, type CallReading, type CallTokens, type Json, type ModelProvider } from './provider.ts';

/**
 * Anthropic Messages usage: `input_tokens` excludes cache reads and writes, which are added (as
 * AnthropicModel does). Writes are split by lifetime in `cache_creation` (ephemeral_5m/1h); without
 * the split they are 5-minute writes, the API's default lifetime (prompt caching docs). In a stream,
 * `message_start` carries the input counts and `message_delta` the cumulative output count (and, in
 * newer API versions, final input counts).
 */
function readTokens(usage: Json | undefined, into: CallTokens): void {
  if (!usage) return;
  const cacheRead = count(usage.cache_read_input_tokens);
  const written = count(usage.cache_creation_input_tokens);
  const input = count(usage.input_tokens) + written + cacheRead;
  if (input > 0) {
    const byTtl = object(usage.cache_creation);
    const written1h = Math.min(written, count(byTtl?.ephemeral_1h_input_tokens));
    into.inputTokens = input;
    into.cachedInputTokens = cacheRead;
    into.cacheWriteTokens = written - written1h;
    into.cacheWrite1hTokens = written1h;
  }
  if ('output_tokens' in usage) into.outputTokens = count(usage.output_tokens);
}

/**
 * Anthropic's error types and their HTTP statuses (docs.anthropic.com/en/api/errors; the SDK's
 * ErrorType). In a stream they come as `event: error` after the 200 status (streaming messages docs,
 * "Error events": an overloaded_error there "would normally correspond to an HTTP 529").
 */
const ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  conflict_error: 409,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

function errorStatus(type: unknown): number {
  return typeof type === 'string' && Object.hasOwn(ERROR_STATUS, type) ? ERROR_STATUS[type]! : 500;
}

/** A message's usage; `stop_reason: "refusal"` is a decline (streaming refusals docs). */
function readMessage(message: Json | undefined, into: CallReading): void {
  readTokens(object(message?.usage), into.tokens);
  if (message?.stop_reason === 'refusal') into.declined = true;
}

export const anthropic: ModelProvider = {
  name: 'anthropic',
  keyVariable: 'ANTHROPIC_API_KEY',
  baseURLVariable: 'ANTHROPIC_BASE_URL',
  defaultBaseURL: 'https://api.anthropic.com',
  api: () => 'messages',
  // The Messages API requires max_tokens.
  unknownModelMaxOutputTokens: 8192,
  takesReasoningEffort: false,
  create: (model, fetch) => new AnthropicModel(model, fetch),
  proxy: {
    routes: { '/v1/messages': 'model', '/v1/messages/count_tokens': 'free' },
    basePath: '',
    api: 'messages',
    keyHeaders: (apiKey) => ({ 'x-api-key': apiKey }),
    errorBody: (type, message) => JSON.stringify({ type: 'error', error: { type, message } }),
    busyErrorType: 'overloaded_error',
    usage: {
      answer: readMessage,
      event(event, into) {
        if (event.type === 'message_start') readMessage(object(event.message), into);
        else if (event.type === 'message_delta') {
          readTokens(object(event.usage), into.tokens);
          if (object(event.delta)?.stop_reason === 'refusal') into.declined = true;
        } else if (event.type === 'error') {
          const error = object(event.error);
          into.failure ??= { status: errorStatus(error?.type), message: said(error?.type, error?.message) };
        }
      },
    },
  },
};
