// A request a real service refuses: the HTTP status and the JSON body it answers with. The fake
// servers send it as is; a streaming endpoint can send the same before it opens a stream.
import type { ModelLimits } from './limits.ts';

export interface Rejection {
  status: number;
  body: unknown;
}

/** OpenAI's error body (api-reference "Error codes"): `{error: {message, type, param, code}}`. */
export function openaiRejection(status: number, message: string, param: string | null = null, code: string | null = null): Rejection {
  const type = status === 404 ? 'invalid_request_error' : status === 429 ? 'rate_limit_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { status, body: { error: { message, type, param, code } } };
}

/**
 * A model the OpenAI API does not serve (a typo, no access, a retired snapshot): 404
 * `model_not_found`, "The model `<id>` does not exist or you do not have access to it." (api-reference
 * "Error codes"; the same body the SDK's NotFoundError carries). `limits`: the model's entry in the
 * fake's table, undefined when it serves no such model.
 */
export function openaiUnknownModel(model: unknown, limits: ModelLimits | undefined): Rejection | undefined {
  if (typeof model !== 'string' || limits) return undefined;
  return openaiRejection(404, `The model \`${model}\` does not exist or you do not have access to it.`, null, 'model_not_found');
}

/**
 * vLLM's error body: `{error: {message, type, param, code}}` with the HTTP status as the code and
 * the exception class as the type (github.com/vllm-project/vllm/issues/43995).
 */
export function vllmRejection(status: number, message: string): Rejection {
  const type = status === 404 ? 'NotFoundError' : status >= 500 ? 'InternalServerError' : 'BadRequestError';
  return { status, body: { error: { message, type, param: null, code: status } } };
}

/** Anthropic's error types by HTTP status (docs "Errors"); other 5xx are `api_error`, other 4xx `invalid_request_error`. */
const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

/** Anthropic's error body (docs "Errors"): `{type: "error", error: {type, message}}`. */
export function anthropicRejection(status: number, message: string): Rejection {
  const type = ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { status, body: { type: 'error', error: { type, message } } };
}

/**
 * A reasoning effort the model does not take. A model without reasoning (gpt-4.1, gpt-4o) answers
 * 400 "... 'reasoning_effort' is not supported with this model" (github.com/brendanlong/lion-reader/pull/1325;
 * worded as the API's other "Unsupported parameter" errors); a value outside the model's list
 * answers "Unsupported value: 'reasoning_effort' does not support 'none' with this model. Supported
 * values are: 'minimal', 'low', 'medium', and 'high'." (github.com/Kilo-Org/cloud/pull/3807).
 * `param`: `reasoning_effort` (Chat Completions) or `reasoning.effort` (Responses).
 */
export function openaiEffortRejection(param: string, effort: unknown, limits: ModelLimits | undefined): Rejection | undefined {
  if (effort === undefined || effort === null || !limits) return undefined;
  if (!limits.efforts) return openaiRejection(400, `Unsupported parameter: '${param}' is not supported with this model.`, param, 'unsupported_parameter');
  if (limits.efforts.includes(String(effort))) return undefined;
  const values = limits.efforts.map((e) => `'${e}'`);
  const list = `${values.slice(0, -1).join(', ')}, and ${values.at(-1)}`;
  return openaiRejection(
    400,
    `Unsupported value: '${param}' does not support '${String(effort)}' with this model. Supported values are: ${list}.`,
    param,
    'unsupported_value',
  );
}
