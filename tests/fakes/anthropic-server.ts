// A small Anthropic Messages API server for tests, on 127.0.0.1 with a random port, in the style
// of openai-server.ts (same reply and request types). Each test scripts it: a queue of replies
// (used first, in order) and/or a handler function. Every request is recorded.
// Supports POST /v1/messages (non-streaming) with text and tool_use blocks.
//
//   const server = await startFakeAnthropic();
//   server.enqueue(messageReply(null, { toolUses: [{ name: 'bash', input: { command: 'ls' } }] }), 'done');
//   const client = new Anthropic({ baseURL: server.url, apiKey: 'x' });
//   ...
//   expect(server.requests[0].body.messages).toEqual(...);
//   await server.close();
import { startScriptedServer, type FakeHandler, type FakeReply, type RecordedRequest, type ScriptedServer } from './scripted-server.ts';

export { hangReply } from './openai-server.ts';
export type { FakeHandler, FakeReply, RecordedRequest } from './scripted-server.ts';

export interface ToolUseSpec {
  id?: string;
  name: string;
  input: Record<string, unknown>;
}

export interface FakeAnthropicServer extends ScriptedServer {
  /** Base URL for the Anthropic SDK (no /v1: the SDK adds it). */
  url: string;
}

let messageCount = 0;

/** A Messages API answer: a text block (unless null) followed by tool_use blocks. */
export function messageReply(
  text: string | null,
  options: {
    toolUses?: ToolUseSpec[];
    stopReason?: string;
    usage?: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
  } = {},
): FakeReply {
  const toolUses = (options.toolUses ?? []).map((use, i) => ({ type: 'tool_use', id: use.id ?? `toolu_${i + 1}`, name: use.name, input: use.input }));
  const content = [...(text === null ? [] : [{ type: 'text', text, citations: null }]), ...toolUses];
  const usage = options.usage ?? { input_tokens: 10, output_tokens: 5 };
  return {
    body: (request: RecordedRequest) => ({
      id: `msg_fake_${++messageCount}`,
      type: 'message',
      role: 'assistant',
      model: request.body?.model ?? 'fake-model',
      content,
      stop_reason: options.stopReason ?? (toolUses.length ? 'tool_use' : 'end_turn'),
      stop_sequence: null,
      usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...usage },
    }),
  };
}

/** An error answer in Anthropic's format (`{type: "error", error: {type, message}}`). */
export function anthropicErrorReply(status: number, message = `fake error ${status}`): FakeReply {
  const type = status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  return { status, body: { type: 'error', error: { type, message } } };
}

export async function startFakeAnthropic(options: { replies?: (FakeReply | string)[]; handler?: FakeHandler } = {}): Promise<FakeAnthropicServer> {
  const server = await startScriptedServer(
    {
      isScripted: (r) => r.method === 'POST' && r.path === '/v1/messages',
      otherRoute: (r) => anthropicErrorReply(404, `fake anthropic server: no route ${r.method} ${r.path}`),
      textReply: (text) => messageReply(text),
      unscripted: anthropicErrorReply(500, 'fake anthropic server: no scripted reply'),
    },
    options,
  );
  return { ...server, url: `http://127.0.0.1:${server.port}` };
}
