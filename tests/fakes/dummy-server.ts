// The service of the test's dummy provider (tests/unit/harness/models/dummy-provider.ts): a model
// API that exists only here, so its contract is written here and nowhere else. It refuses, before
// any scripted reply is used:
// - a request without the key header `x-dummy-key`, or with another key: 401 `unauthorized`;
// - a model it does not serve: 404 `unknown_model`;
// - a body without `model` or `messages`, a tool message without the call it answers, tool
//   messages without tools: 400 `bad_request`.
// POST /v1/complete answers {text, tool_calls: [{id, name, arguments}], usage: {input_tokens,
// output_tokens}, stop}; GET /v1/models/<model> gives the model's {context_window}.
import { startScriptedServer, type FakeHandler, type FakeReply, type RecordedRequest, type ScriptedServer } from './scripted-server.ts';

export const DUMMY_KEY = 'dummy-test-key-1';

export interface FakeDummyServer extends ScriptedServer {
  url: string;
}

const refuse = (status: number, code: string, message: string): FakeReply => ({ status, body: { error: { code, message } } });

function check(request: RecordedRequest, served: readonly string[]): FakeReply | undefined {
  if (request.headers['x-dummy-key'] !== DUMMY_KEY) return refuse(401, 'unauthorized', 'missing or wrong x-dummy-key');
  const body = request.body as { model?: unknown; messages?: { role: string; tool_call_id?: string; tool_calls?: { id: string }[] }[]; tools?: unknown[] };
  if (typeof body?.model !== 'string' || !Array.isArray(body.messages)) return refuse(400, 'bad_request', 'model and messages are required');
  if (!served.includes(body.model)) return refuse(404, 'unknown_model', `model ${body.model} is not served here`);
  const calls = new Set(body.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)));
  const orphan = body.messages.find((m) => m.role === 'tool' && !calls.has(m.tool_call_id ?? ''));
  if (orphan) return refuse(400, 'bad_request', `tool message ${orphan.tool_call_id} answers no call`);
  if (body.messages.some((m) => m.role === 'tool') && !body.tools?.length) return refuse(400, 'bad_request', 'tool messages without tools');
  return undefined;
}

export async function startFakeDummy(o: { served?: string[]; contextWindow?: number; handler?: FakeHandler } = {}): Promise<FakeDummyServer> {
  const served = o.served ?? ['some-model'];
  let calls = 0;
  const server = await startScriptedServer(
    {
      isScripted: (request) => request.method === 'POST' && request.path === '/v1/complete',
      check: (request) => check(request, served),
      render: (turn, request) => ({
        text: turn.text ?? '',
        tool_calls: (turn.toolCalls ?? []).map((call) => ({
          id: call.id ?? `call_${++calls}`,
          name: call.name,
          arguments: typeof call.input === 'string' ? call.input : JSON.stringify(call.input),
        })),
        // Its own count: 4 characters a token, as the other fakes count.
        usage: { input_tokens: Math.ceil(JSON.stringify(request.body).length / 4), output_tokens: 10 },
        stop: turn.toolCalls?.length ? 'tool' : 'end',
      }),
      otherRoute: (request) => {
        if (request.headers['x-dummy-key'] !== DUMMY_KEY) return refuse(401, 'unauthorized', 'missing or wrong x-dummy-key');
        const model = /^\/v1\/models\/([^/]+)$/.exec(request.path)?.[1];
        if (request.method === 'GET' && model && served.includes(model)) return { body: { id: model, context_window: o.contextWindow ?? 16_000 } };
        return refuse(404, 'not_found', `no route ${request.method} ${request.path}`);
      },
      unscripted: refuse(500, 'server_error', 'fake: no scripted reply'),
    },
    { handler: o.handler },
  );
  return { ...server, url: `http://127.0.0.1:${server.port}/v1` };
}
