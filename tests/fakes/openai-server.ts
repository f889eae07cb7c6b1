// A small OpenAI-compatible HTTP server for tests, on 127.0.0.1 with a random port.
// Each test scripts it: a queue of replies (used first, in order) and/or a handler function.
// Every request is recorded. Supports POST /v1/chat/completions (non-streaming) and GET /v1/models.
//
//   const server = await startFakeOpenAI();
//   server.enqueue('plain answer', chatReply(null, { toolCalls: [{ name: 'bash', arguments: { command: 'ls' } }] }));
//   const client = new OpenAI({ baseURL: server.url, apiKey: 'x' });
//   ...
//   expect(server.requests[0].body.messages).toEqual(...);
//   await server.close();
import { startScriptedServer, type FakeHandler, type FakeReply, type RecordedRequest, type ScriptedServer } from './scripted-server.ts';

export type { FakeHandler, FakeReply, RecordedRequest } from './scripted-server.ts';

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

let completionCount = 0;

/** A chat completion answer: assistant content and/or tool calls. */
export function chatReply(
  content: string | null,
  options: {
    toolCalls?: ToolCallSpec[];
    finishReason?: string;
    usage?: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
  } = {},
): FakeReply {
  const toolCalls = options.toolCalls?.map((call, i) => ({
    id: call.id ?? `call_${i + 1}`,
    type: 'function',
    function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
  }));
  const usage = options.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
  return {
    body: (request: RecordedRequest) => ({
      id: `chatcmpl-fake-${++completionCount}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.body?.model ?? 'fake-model',
      choices: [{
        index: 0,
        message: { role: 'assistant', content, refusal: null, ...(toolCalls?.length ? { tool_calls: toolCalls } : {}) },
        finish_reason: options.finishReason ?? (toolCalls?.length ? 'tool_calls' : 'stop'),
        logprobs: null,
      }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    }),
  };
}

/** An error answer in OpenAI's format. */
export function errorReply(status: number, message = `fake error ${status}`): FakeReply {
  return { status, body: { error: { message, type: 'fake_error', code: null, param: null } } };
}

export const hangReply: FakeReply = { hang: true };

export async function startFakeOpenAI(options: { replies?: (FakeReply | string)[]; handler?: FakeHandler } = {}): Promise<FakeOpenAIServer> {
  const server = await startScriptedServer(
    {
      isScripted: (r) => r.method === 'POST' && r.path === '/v1/chat/completions',
      otherRoute: (r) =>
        r.method === 'GET' && r.path === '/v1/models'
          ? { body: { object: 'list', data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' }] } }
          : errorReply(404, `fake openai server: no route ${r.method} ${r.path}`),
      textReply: (text) => chatReply(text),
      unscripted: errorReply(500, 'fake openai server: no scripted reply'),
    },
    options,
  );
  return { ...server, url: `http://127.0.0.1:${server.port}/v1` };
}
