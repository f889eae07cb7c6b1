// A fake OpenAI API for tests, on 127.0.0.1 with a random port: Chat Completions and the Responses
// API (non-streaming) and the model list; or, with startFakeVllm, an OpenAI-compatible vLLM server.
// Requests the real service refuses get its error (contracts/openai-chat.ts, openai-responses.ts);
// the rest are answered from a script: a queue of replies, then a handler. Every request is recorded.
//
//   const server = await startFakeOpenAI();
//   server.enqueue('plain answer', chatReply(null, { toolCalls: [{ name: 'bash', arguments: { command: 'ls' } }] }));
//   const client = new OpenAI({ baseURL: server.url, apiKey: 'x' });
//   ...
//   expect(server.requests[0].body.messages).toEqual(...);
//   await server.close();
//
// A scripted answer is rendered for the endpoint it is asked on: the same chatReply(...) answers a
// chat completion or a response (with a reasoning item first, for reasoning models).
import { startScriptedServer, type AssistantTurn, type FakeHandler, type FakeReply, type RecordedRequest, type ScriptedServer } from './scripted-server.ts';
import { limitsOf, OPENAI_MODELS, type ModelLimits } from './contracts/limits.ts';
import { checkChatRequest, type ChatFlavour } from './contracts/openai-chat.ts';
import { checkResponsesRequest, ReasoningLedger } from './contracts/openai-responses.ts';
import { openaiRejection, openaiUnknownModel, vllmRejection } from './contracts/rejection.ts';

export type { AssistantTurn, FakeHandler, FakeReply, RecordedRequest } from './scripted-server.ts';
export type { ModelLimits } from './contracts/limits.ts';

export interface ToolCallSpec {
  id?: string;
  name: string;
  /** An object (sent as JSON text) or the raw arguments text. */
  arguments: unknown;
}

export interface FakeOpenAIServer extends ScriptedServer {
  /** Base URL for the OpenAI SDK, ending in /v1. */
  url: string;
}

export interface FakeOpenAIOptions {
  replies?: (FakeReply | string)[];
  handler?: FakeHandler;
  /** Limits of models beyond the built-in table (contracts/limits.ts), e.g. a tiny window. */
  limits?: Record<string, ModelLimits>;
  /** Default true: answers coop-bench's live preflight itself (preflight.ts); false: the script answers it. */
  answersPreflight?: boolean;
}

export interface FakeVllmOptions extends FakeOpenAIOptions {
  /** --max-model-len: prompt and completion together (default 32768). */
  maxModelLen?: number;
  /** --served-model-name: the names it answers to, and a 404 for any other (default: `fake-model`). */
  served?: string[];
}

let answerCount = 0;

/** A model answer: content and/or tool calls, for Chat Completions or the Responses API alike. */
export function chatReply(
  content: string | null,
  options: {
    toolCalls?: ToolCallSpec[];
    /**
     * Chat's finish_reason; on the Responses API `length` is an incomplete response for
     * max_output_tokens and `content_filter` one for content_filter.
     */
    finishReason?: string;
    /** The model declines: Chat's `message.refusal`, a `refusal` content part on the Responses API. */
    refusal?: string;
    usage?: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
  } = {},
): FakeReply {
  return {
    turn: {
      text: content,
      toolCalls: options.toolCalls?.map((call) => ({ id: call.id, name: call.name, input: call.arguments })),
      stop: options.finishReason,
      usage: options.usage,
      refusal: options.refusal,
    },
  };
}

/** An error answer in OpenAI's format. */
export function errorReply(status: number, message = `fake error ${status}`): FakeReply {
  return openaiRejection(status, message);
}

export const hangReply: FakeReply = { hang: true };

/** Usage of an answer that scripts none (the Anthropic fake bills its prompt cache instead). */
const DEFAULT_USAGE: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number } } = {
  prompt_tokens: 10,
  completion_tokens: 5,
};

const argumentsText = (input: unknown) => (typeof input === 'string' ? input : JSON.stringify(input));

function renderChat(turn: AssistantTurn, request: RecordedRequest): unknown {
  const toolCalls = turn.toolCalls?.map((call, i) => ({
    id: call.id ?? `call_${i + 1}`,
    type: 'function',
    function: { name: call.name, arguments: argumentsText(call.input) },
  }));
  const usage = (turn.usage as { prompt_tokens: number; completion_tokens: number } | undefined) ?? DEFAULT_USAGE;
  return {
    id: `chatcmpl-fake-${++answerCount}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.body?.model ?? 'fake-model',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: turn.text, refusal: turn.refusal ?? null, ...(toolCalls?.length ? { tool_calls: toolCalls } : {}) },
        finish_reason: turn.stop ?? (toolCalls?.length ? 'tool_calls' : 'stop'),
        logprobs: null,
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

function renderResponse(turn: AssistantTurn, request: RecordedRequest, limits: ModelLimits | undefined, ledger: ReasoningLedger): unknown {
  const body = request.body;
  const output: { type: string; id: string; [field: string]: unknown }[] = [];
  if (limits?.reasoning) {
    const item = ledger.issue(body.store !== false);
    const encrypted = Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
    output.push({ type: 'reasoning', id: item.id, summary: [], ...(encrypted ? { encrypted_content: item.encrypted } : {}) });
  }
  if (turn.text !== null || turn.refusal !== undefined) {
    // api-reference "The response object": a message's content is output_text and refusal parts.
    const content = [
      ...(turn.text !== null ? [{ type: 'output_text', text: turn.text, annotations: [] }] : []),
      ...(turn.refusal !== undefined ? [{ type: 'refusal', refusal: turn.refusal }] : []),
    ];
    output.push({ type: 'message', id: `msg_fake_${++answerCount}`, role: 'assistant', status: 'completed', content });
  }
  for (const [i, call] of (turn.toolCalls ?? []).entries()) {
    const id = `fc_fake_${++answerCount}`;
    output.push({ type: 'function_call', id, call_id: call.id ?? `call_${i + 1}`, name: call.name, arguments: argumentsText(call.input), status: 'completed' });
  }
  ledger.recordOutput(output);
  const given =
    (turn.usage as { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number } } | undefined) ?? DEFAULT_USAGE;
  const input = given.prompt_tokens;
  const outputTokens = given.completion_tokens;
  const reasoningTokens = limits?.reasoning ? Math.floor(outputTokens / 2) : 0;
  const incomplete = turn.stop === 'length' ? 'max_output_tokens' : turn.stop === 'content_filter' ? 'content_filter' : undefined;
  return {
    id: `resp_fake_${++answerCount}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model: body.model,
    status: incomplete ? 'incomplete' : 'completed',
    incomplete_details: incomplete ? { reason: incomplete } : null,
    error: null,
    output,
    usage: {
      input_tokens: input,
      input_tokens_details: { cached_tokens: given.prompt_tokens_details?.cached_tokens ?? 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: reasoningTokens },
      total_tokens: input + outputTokens,
    },
  };
}

function startServer(flavour: ChatFlavour, options: FakeVllmOptions): Promise<ScriptedServer> {
  const table = { ...OPENAI_MODELS, ...options.limits };
  const ledger = new ReasoningLedger();
  const maxModelLen = flavour === 'vllm' ? (options.maxModelLen ?? 32_768) : undefined;
  const served = flavour === 'vllm' ? (options.served ?? ['fake-model']) : undefined;
  const isChat = (r: RecordedRequest) => r.method === 'POST' && r.path === '/v1/chat/completions';
  const isResponses = (r: RecordedRequest) => flavour === 'openai' && r.method === 'POST' && r.path === '/v1/responses';
  const limitsFor = (r: RecordedRequest) => (flavour === 'openai' ? limitsOf(table, r.body?.model) : undefined);
  const notFound = (r: RecordedRequest) => {
    const message = `fake ${flavour} server: no route ${r.method} ${r.path}`;
    return flavour === 'vllm' ? vllmRejection(404, message) : openaiRejection(404, message);
  };
  return startScriptedServer(
    {
      isScripted: (r) => isChat(r) || isResponses(r),
      check: (r) =>
        (flavour === 'openai' ? openaiUnknownModel(r.body?.model, limitsFor(r)) : undefined) ??
        (isChat(r) ? checkChatRequest(r.body, { flavour, limits: limitsFor(r), maxModelLen, served }) : checkResponsesRequest(r.body, limitsFor(r), ledger)),
      render: (turn, r) => (isChat(r) ? renderChat(turn, r) : renderResponse(turn, r, limitsFor(r), ledger)),
      otherRoute: (r) => {
        if (!(r.method === 'GET' && r.path === '/v1/models')) return notFound(r);
        if (flavour === 'openai')
          return { body: { object: 'list', data: Object.keys(table).map((id) => ({ id, object: 'model', created: 0, owned_by: 'openai' })) } };
        // vLLM's model card carries max_model_len (vllm/entrypoints/openai/protocol.py, ModelCard).
        return {
          body: {
            object: 'list',
            data: served!.map((id) => ({
              id,
              object: 'model',
              created: 0,
              owned_by: 'vllm',
              root: id,
              parent: null,
              max_model_len: maxModelLen,
              permission: [],
            })),
          },
        };
      },
      unscripted:
        flavour === 'vllm' ? vllmRejection(500, 'fake vllm server: no scripted reply') : openaiRejection(500, 'fake openai server: no scripted reply'),
    },
    options,
  );
}

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAIServer> {
  const server = await startServer('openai', options);
  return { ...server, url: `http://127.0.0.1:${server.port}/v1` };
}

/** An OpenAI-compatible vLLM server: Chat Completions with vLLM's checks, and max_model_len in /v1/models. */
export async function startFakeVllm(options: FakeVllmOptions = {}): Promise<FakeOpenAIServer> {
  const server = await startServer('vllm', options);
  return { ...server, url: `http://127.0.0.1:${server.port}/v1` };
}
