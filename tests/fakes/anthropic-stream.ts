// A fake Anthropic Messages API with streaming, as Claude Code speaks it (POST /v1/messages with
// `stream: true`, answered with server-sent events). Each test scripts the assistant's turns with a
// handler; every request is recorded. What the real API rejects, this rejects too: the headers
// below (docs.anthropic.com/en/api — Errors, Versioning), the body by the same rules as the
// non-streaming fake (contracts/anthropic-messages.ts, with their sources).
//
//   const server = await startFakeAnthropicStream((request) => ({ toolUses: [{ name: 'Bash', input: { command: 'ls' } }] }));
//   // ANTHROPIC_BASE_URL=server.url
import type { SseEvent, StreamReply, StreamRequest, StreamServer } from './stream-server.ts';
import { rejectionReply, startStreamServer } from './stream-server.ts';
import { checkMessagesRequest, thinkingSignature } from './contracts/anthropic-messages.ts';
import { ANTHROPIC_MODELS, limitsOf } from './contracts/limits.ts';
import { anthropicRejection } from './contracts/rejection.ts';
import { preflightStep } from './preflight.ts';

export interface AssistantTurn {
  text?: string;
  toolUses?: { id?: string; name: string; input: Record<string, unknown> }[];
  /**
   * `cache_creation_input_tokens` are split by lifetime in `cache_creation` as the API reports it
   * (prompt caching docs, "Tracking cache performance"): all 5-minute writes unless `cache_write_1h`
   * says how many were written for 1 hour.
   */
  usage?: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number; cache_write_1h?: number };
  /**
   * The stream fails after message_start with this error, under its 200 status. Streaming messages
   * docs, "Error events" (docs.anthropic.com/en/docs/build-with-claude/streaming): "We may
   * occasionally send errors in the event stream. For example, during periods of high usage, you
   * may receive an overloaded_error, which would normally correspond to an HTTP 529 in a
   * non-streaming context" — `event: error`, data `{"type": "error", "error": {"type", "message"}}`.
   */
  streamError?: { type: string; message: string };
}

export type AnthropicTurnHandler = (request: StreamRequest) => AssistantTurn | Promise<AssistantTurn>;

let messages = 0;
let toolUses = 0;

function messageOf(turn: AssistantTurn, model: string) {
  // A model that thinks by default answers with a thinking block first (its text omitted, its
  // signature what must come back), as the non-streaming fake does.
  const thinks = limitsOf(ANTHROPIC_MODELS, model)?.thinksByDefault === true;
  const content = [
    ...(thinks ? [{ type: 'thinking', thinking: '', signature: thinkingSignature('', `ts${messages + 1}`) }] : []),
    ...(turn.text ? [{ type: 'text', text: turn.text }] : []),
    ...(turn.toolUses ?? []).map((use) => ({ type: 'tool_use', id: use.id ?? `toolu_fake_${++toolUses}`, name: use.name, input: use.input })),
  ];
  const { cache_write_1h: written1h = 0, ...given } = turn.usage ?? { input_tokens: 10, output_tokens: 5 };
  const written = given.cache_creation_input_tokens ?? 0;
  const usage = {
    cache_read_input_tokens: 0,
    ...given,
    cache_creation_input_tokens: written,
    cache_creation: { ephemeral_5m_input_tokens: written - written1h, ephemeral_1h_input_tokens: written1h },
  };
  return {
    id: `msg_fake_${++messages}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: turn.toolUses?.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage,
  };
}

/**
 * Streaming Messages: message_start (usage with the input counts), per content block a
 * content_block_start, its deltas (text_delta; input_json_delta for tool input, sent as partial
 * JSON) and content_block_stop, then message_delta (stop_reason, cumulative output_tokens) and
 * message_stop.
 */
export function messageEvents(message: ReturnType<typeof messageOf>): SseEvent[] {
  const event = (data: { type: string }): SseEvent => ({ event: data.type, data });
  const events: SseEvent[] = [
    event({ type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } } } as {
      type: string;
    }),
  ];
  message.content.forEach((block, index) => {
    if (block.type === 'thinking') {
      // Streaming docs, "Thinking delta": a thinking block ends with a signature_delta.
      events.push(event({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } } as { type: string }));
      const { signature } = block as { signature: string };
      events.push(event({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature } } as { type: string }));
    } else if (block.type === 'text') {
      events.push(event({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } } as { type: string }));
      events.push(event({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: (block as { text: string }).text } } as { type: string }));
    } else {
      const use = block as { id: string; name: string; input: unknown };
      events.push(
        event({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: use.id, name: use.name, input: {} } } as { type: string }),
      );
      const json = JSON.stringify(use.input);
      const half = Math.floor(json.length / 2);
      for (const part of [json.slice(0, half), json.slice(half)])
        events.push(event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } } as { type: string }));
    }
    events.push(event({ type: 'content_block_stop', index } as { type: string }));
  });
  events.push(
    event({
      type: 'message_delta',
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: message.usage.output_tokens },
    } as { type: string }),
  );
  events.push(event({ type: 'message_stop' }));
  return events;
}

export async function startFakeAnthropicStream(handler: AnthropicTurnHandler): Promise<StreamServer> {
  const refuse = (status: number, message: string) => rejectionReply(anthropicRejection(status, message));
  const route = async (request: StreamRequest): Promise<StreamReply> => {
    if (request.method !== 'POST' || !['/v1/messages', '/v1/messages/count_tokens'].includes(request.path))
      return refuse(404, `Not found: ${request.method} ${request.path}`);
    // Errors: no key is a 401. An API key goes in x-api-key; the SDKs also send one as
    // `Authorization: Bearer` (the TS SDK's authToken, which Claude Code uses for some setups).
    if (!request.headers['x-api-key'] && !/^Bearer \S+/.test(String(request.headers.authorization ?? ''))) {
      return refuse(401, 'x-api-key header is required');
    }
    if (!request.headers['anthropic-version']) return refuse(400, 'anthropic-version: header is required');
    if (request.path === '/v1/messages/count_tokens') return { json: { input_tokens: 10 } };
    const rejection = checkMessagesRequest(request.body, limitsOf(ANTHROPIC_MODELS, request.body?.model));
    if (rejection) return rejectionReply(rejection);
    const preflight = preflightStep(request.body);
    const turn: AssistantTurn = preflight ? ('text' in preflight ? { text: preflight.text } : { toolUses: [preflight.call] }) : await handler(request);
    const message = messageOf(turn, request.body.model);
    // Without a stream, the same failure is its HTTP status (529 for overloaded_error).
    if (request.body.stream !== true)
      return turn.streamError ? refuse(turn.streamError.type === 'overloaded_error' ? 529 : 500, turn.streamError.message) : { json: message };
    if (!turn.streamError) return { events: messageEvents(message) };
    return { events: [messageEvents(message)[0]!, { event: 'error', data: { type: 'error', error: turn.streamError } }] };
  };
  return startStreamServer(route);
}
