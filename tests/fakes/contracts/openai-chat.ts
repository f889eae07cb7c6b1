// What OpenAI's Chat Completions endpoint, and vLLM's OpenAI-compatible one, refuse. A pure function
// of the request body, so that a streaming endpoint can call it too. Each rule names its source.
import { countTokens, type ModelLimits } from './limits.ts';
import { openaiEffortRejection, openaiRejection, vllmRejection, type Rejection } from './rejection.ts';

export type ChatFlavour = 'openai' | 'vllm';

export interface ChatContract {
  flavour: ChatFlavour;
  /** The model's limits, when the server knows them (vLLM: its max_model_len for every model). */
  limits?: ModelLimits;
  /** vLLM: --max-model-len, the prompt and the completion together. */
  maxModelLen?: number;
  /** vLLM: the names it serves (a request for another is a 404). */
  served?: string[];
}

interface Message {
  role?: string;
  content?: unknown;
  tool_calls?: { id?: string; function?: { name?: string; arguments?: unknown } }[];
  tool_call_id?: string;
}

/** The prompt's size by the fakes' tokenizer: messages and tool definitions. */
export function chatPromptTokens(body: { messages?: unknown; tools?: unknown }): number {
  return countTokens(body.messages) + countTokens(body.tools);
}

export function checkChatRequest(body: any, contract: ChatContract): Rejection | undefined {
  const reject = contract.flavour === 'vllm' ? (status: number, message: string) => vllmRejection(status, message) : openaiRejection;
  if (contract.served && !contract.served.includes(body?.model)) {
    // vLLM answers a model it does not serve with 404 (serving_engine.py, _check_model).
    return reject(404, `The model \`${body?.model}\` does not exist.`);
  }
  const messages: Message[] = Array.isArray(body?.messages) ? body.messages : [];
  if (messages.length === 0) return reject(400, "[] is too short - 'messages'");
  if (body.tool_choice !== undefined && !(Array.isArray(body.tools) && body.tools.length > 0)) {
    // OpenAI: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."
    return reject(400, "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.");
  }
  return contract.flavour === 'openai' ? checkOpenAI(body, messages, contract.limits) : checkVllm(body, messages, contract);
}

function checkOpenAI(body: any, messages: Message[], limits: ModelLimits | undefined): Rejection | undefined {
  const pairing = checkToolPairing(messages);
  if (pairing) return pairing;
  for (const [i, m] of messages.entries()) {
    if (m.role === 'assistant' && (m.content === null || m.content === undefined) && !m.tool_calls?.length) {
      return openaiRejection(400, "Invalid value for 'content': expected a string, got null.", `messages.[${i}].content`);
    }
  }
  const effort = openaiEffortRejection('reasoning_effort', body.reasoning_effort, limits);
  if (effort) return effort;
  if (limits?.reasoning) {
    // Reasoning models fix the temperature and take max_completion_tokens only (OpenAI's reasoning
    // guide; the temperature error as reported in github.com/tmc/langchaingo/issues/1355).
    if (body.temperature !== undefined && body.temperature !== 1) {
      return openaiRejection(
        400,
        `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`,
        'temperature',
        'unsupported_value',
      );
    }
    if (body.max_tokens !== undefined) {
      return openaiRejection(
        400,
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        'max_tokens',
        'unsupported_parameter',
      );
    }
  }
  const asked = body.max_completion_tokens ?? body.max_tokens;
  if (limits && typeof asked === 'number' && asked > limits.maxOutput) {
    return openaiRejection(
      400,
      `max_tokens is too large: ${asked}. This model supports at most ${limits.maxOutput} completion tokens, whereas you provided ${asked}.`,
      'max_tokens',
      'invalid_value',
    );
  }
  const prompt = chatPromptTokens(body);
  if (limits && prompt > limits.inputLimit) {
    // gpt-5 has an input limit of its own (github.com/cline/cline/issues/5474); other models
    // report their context length.
    const message = String(body.model).startsWith('gpt-5')
      ? `Input tokens exceed the configured limit of ${limits.inputLimit} tokens. Your messages resulted in ${prompt} tokens. Please reduce the length of the messages.`
      : `This model's maximum context length is ${limits.inputLimit} tokens. However, your messages resulted in ${prompt} tokens. Please reduce the length of the messages.`;
    return openaiRejection(400, message, 'messages', 'context_length_exceeded');
  }
  return undefined;
}

/**
 * Every tool call answered by a tool message before the next other message, and no tool message
 * without its call (github.com/BerriAI/litellm/issues/10083, github.com/smarter-sh/smarter/issues/264).
 */
function checkToolPairing(messages: Message[]): Rejection | undefined {
  let pending = new Set<string>();
  let callsAt = -1;
  const unanswered = () =>
    openaiRejection(
      400,
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending].join(', ')}`,
      `messages.[${callsAt}].role`,
    );
  for (const [i, m] of messages.entries()) {
    if (m.role === 'tool') {
      if (!pending.delete(String(m.tool_call_id))) {
        return openaiRejection(
          400,
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`,
        );
      }
      continue;
    }
    if (pending.size > 0) return unanswered();
    if (m.role === 'assistant' && m.tool_calls?.length) {
      pending = new Set(m.tool_calls.map((c) => String(c.id)));
      callsAt = i;
    }
  }
  return pending.size > 0 ? unanswered() : undefined;
}

function checkVllm(body: any, messages: Message[], contract: ChatContract): Rejection | undefined {
  // vLLM json.loads() the arguments of every earlier tool call before it renders the chat template
  // (chat_utils.py, _postprocess_messages): invalid JSON is a 400 for every later request
  // (github.com/vllm-project/vllm/issues/43995; llama-server parses them the same way).
  for (const m of messages) {
    for (const call of m.role === 'assistant' ? (m.tool_calls ?? []) : []) {
      const args = call.function?.arguments;
      if (typeof args !== 'string') continue;
      try {
        JSON.parse(args);
      } catch (error) {
        return vllmRejection(400, pythonJsonError(args, error as Error));
      }
    }
  }
  if (contract.maxModelLen !== undefined) {
    // serving_engine.py, _validate_input (github.com/vllm-project/vllm/issues/20409).
    const prompt = chatPromptTokens(body);
    const completion = body.max_completion_tokens ?? body.max_tokens ?? 0;
    if (prompt + completion > contract.maxModelLen || prompt >= contract.maxModelLen) {
      return vllmRejection(
        400,
        `This model's maximum context length is ${contract.maxModelLen} tokens. However, you requested ${prompt + completion} tokens (${prompt} in the messages, ${completion} in the completion). Please reduce the length of the messages or completion.`,
      );
    }
  }
  return undefined;
}

/** Python's json error text, which vLLM passes on ("Expecting value: line 1 column 1 (char 0)"). */
function pythonJsonError(text: string, error: Error): string {
  const at = /position (\d+)/.exec(error.message);
  const char = at ? Number(at[1]) : text.length;
  const before = text.slice(0, char);
  const line = before.split('\n').length;
  const column = char - before.lastIndexOf('\n');
  return `Expecting value: line ${line} column ${column} (char ${char})`;
}
