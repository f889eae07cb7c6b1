// A fake OpenAI Responses API with streaming, as Codex CLI speaks it (POST /v1/responses with
// `stream: true` and `store: false`, answered with server-sent events). Each test scripts the
// model's turns with a handler; every request is recorded. What the real API rejects, this rejects
// too, by the same rules as the non-streaming fake (contracts/openai-responses.ts, with their
// sources; events: platform.openai.com/docs/api-reference/responses — Streaming events).
//
//   const server = await startFakeResponses((request) => ({ calls: [{ name: 'exec_command', arguments: { cmd: 'ls' } }] }));
//   // base_url = `${server.url}/v1`
import type { SseEvent, StreamRequest, StreamServer } from './stream-server.ts';
import { rejectionReply, startStreamServer } from './stream-server.ts';
import { checkResponsesRequest, ReasoningLedger } from './contracts/openai-responses.ts';
import { OPENAI_MODELS, limitsOf } from './contracts/limits.ts';
import { openaiRejection, openaiUnknownModel } from './contracts/rejection.ts';
import { preflightStep } from './preflight.ts';

export interface ResponseTurn {
  text?: string;
  /** Function calls; `namespace` for tools of a namespace (Codex puts an MCP server's tools in one). */
  calls?: { name: string; arguments: Record<string, unknown>; namespace?: string }[];
  /**
   * A call of a client-executed `tool_search` tool (Responses API reference, ToolSearchCall:
   * `arguments`, `call_id`, `execution: "client"`): the client searches its deferred tools and sends
   * the matches back in a `tool_search_output` item. Codex defers MCP servers' tools behind it.
   */
  search?: { query: string };
  usage?: { input_tokens: number; output_tokens: number; cached_tokens?: number };
  /**
   * The stream fails after response.created, under its 200 status (Responses API reference,
   * "Streaming events"; the SDK's ResponseFailedEvent and ResponseErrorEvent): `response.failed`
   * carries the response with `status: "failed"` and `error: {code, message}` (codes such as
   * server_error, rate_limit_exceeded), an `error` event carries `code`, `message` and `param`.
   */
  streamError?: { event: 'response.failed' | 'error'; code: string; message: string };
}

export type ResponseTurnHandler = (request: StreamRequest) => ResponseTurn | Promise<ResponseTurn>;

let responses = 0;
let items = 0;

function responseOf(turn: ResponseTurn, model: string) {
  const output: Record<string, unknown>[] = [
    ...(turn.text
      ? [
          {
            type: 'message',
            id: `msg_fake_${++items}`,
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: turn.text, annotations: [] }],
          },
        ]
      : []),
    ...(turn.calls ?? []).map((call) => ({
      type: 'function_call',
      id: `fc_fake_${++items}`,
      call_id: `call_fake_${items}`,
      name: call.name,
      ...(call.namespace ? { namespace: call.namespace } : {}),
      arguments: JSON.stringify(call.arguments),
      status: 'completed',
    })),
    ...(turn.search
      ? [
          {
            type: 'tool_search_call',
            id: `tsc_fake_${++items}`,
            call_id: `call_fake_${items}`,
            execution: 'client',
            arguments: { query: turn.search.query },
            status: 'completed',
          },
        ]
      : []),
  ];
  const usage = turn.usage ?? { input_tokens: 10, output_tokens: 5 };
  return {
    id: `resp_fake_${++responses}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model,
    output,
    usage: {
      input_tokens: usage.input_tokens,
      input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
      output_tokens: usage.output_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.input_tokens + usage.output_tokens,
    },
  };
}

/**
 * Streaming events: response.created and response.in_progress; per output item
 * response.output_item.added, its deltas (output_text for messages, function_call_arguments for
 * calls) and response.output_item.done; then response.completed with the usage. Every event has a
 * sequence_number.
 */
export function responseEvents(response: ReturnType<typeof responseOf>): SseEvent[] {
  let sequence = 0;
  const events: SseEvent[] = [];
  const event = (type: string, fields: Record<string, unknown>) => events.push({ event: type, data: { type, sequence_number: sequence++, ...fields } });
  const pending = { ...response, status: 'in_progress', output: [], usage: null };
  event('response.created', { response: pending });
  event('response.in_progress', { response: pending });
  response.output.forEach((item, output_index) => {
    if (item.type === 'tool_search_call') {
      event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress' } });
      event('response.output_item.done', { output_index, item });
      return;
    }
    event('response.output_item.added', {
      output_index,
      item: item.type === 'message' ? { ...item, status: 'in_progress', content: [] } : { ...item, status: 'in_progress', arguments: '' },
    });
    if (item.type === 'message') {
      const text = (item.content as { text: string }[])[0]!.text;
      const part = { type: 'output_text', text: '', annotations: [] };
      event('response.content_part.added', { item_id: item.id, output_index, content_index: 0, part });
      event('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta: text });
      event('response.output_text.done', { item_id: item.id, output_index, content_index: 0, text });
      event('response.content_part.done', { item_id: item.id, output_index, content_index: 0, part: { ...part, text } });
    } else {
      event('response.function_call_arguments.delta', { item_id: item.id, output_index, delta: item.arguments });
      event('response.function_call_arguments.done', { item_id: item.id, output_index, arguments: item.arguments });
    }
    event('response.output_item.done', { output_index, item });
  });
  event('response.completed', { response });
  return events;
}

export async function startFakeResponses(handler: ResponseTurnHandler): Promise<StreamServer> {
  // This fake hands out no reasoning items, so any that come back are refused as unknown.
  const ledger = new ReasoningLedger();
  return startStreamServer(async (request) => {
    if (request.method !== 'POST' || request.path !== '/v1/responses') {
      return rejectionReply(openaiRejection(404, `Invalid URL (${request.method} ${request.path})`));
    }
    if (!/^Bearer \S+/.test(String(request.headers.authorization ?? ''))) {
      return rejectionReply(
        openaiRejection(
          401,
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        ),
      );
    }
    const limits = limitsOf(OPENAI_MODELS, request.body?.model);
    const rejection = openaiUnknownModel(request.body?.model, limits) ?? checkResponsesRequest(request.body, limits, ledger);
    if (rejection) return rejectionReply(rejection);
    // coop-bench's live preflight is answered here, as a model would (preflight.ts).
    const preflight = preflightStep(request.body);
    const turn: ResponseTurn = preflight
      ? 'text' in preflight
        ? { text: preflight.text }
        : { calls: [{ name: preflight.call.name, arguments: preflight.call.input }] }
      : await handler(request);
    const response = responseOf(turn, request.body.model);
    const failure = turn.streamError;
    if (!failure) return request.body.stream === true ? { events: responseEvents(response) } : { json: response };
    // Without a stream, the same failure is its HTTP status.
    if (request.body.stream !== true)
      return rejectionReply(openaiRejection(failure.code === 'rate_limit_exceeded' ? 429 : 500, failure.message, null, failure.code));
    const [created] = responseEvents(response);
    const error = { code: failure.code, message: failure.message };
    const last: SseEvent =
      failure.event === 'error'
        ? { event: 'error', data: { type: 'error', sequence_number: 1, ...error, param: null } }
        : { event: 'response.failed', data: { type: 'response.failed', sequence_number: 1, response: { ...response, status: 'failed', output: [], error } } };
    return { events: [created!, last] };
  });
}
