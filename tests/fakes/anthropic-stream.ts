// A fake Anthropic Messages API with streaming, as Claude Code speaks it (POST /v1/messages with
// `stream: true`, answered with server-sent events). Each test scripts the assistant's turns with a
// handler; every request is recorded. What the real API rejects, this rejects too (sources below:
// docs.anthropic.com/en/api — Messages, Streaming Messages, Errors, Versioning; tool use guide).
//
//   const server = await startFakeAnthropicStream((request) => ({ toolUses: [{ name: 'Bash', input: { command: 'ls' } }] }));
//   // ANTHROPIC_BASE_URL=server.url
import type { SseEvent, StreamReply, StreamRequest, StreamServer } from './stream-server.ts';
import { startStreamServer } from './stream-server.ts';

export interface AssistantTurn {
  text?: string;
  toolUses?: { id?: string; name: string; input: Record<string, unknown> }[];
  usage?: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
}

export type AnthropicTurnHandler = (request: StreamRequest) => AssistantTurn | Promise<AssistantTurn>;

let messages = 0;
let toolUses = 0;

/** Errors: `{type: "error", error: {type, message}}` with the documented type per status. */
export function anthropicError(status: number, message: string): StreamReply {
  const type =
    status === 401
      ? 'authentication_error'
      : status === 404
        ? 'not_found_error'
        : status === 429
          ? 'rate_limit_error'
          : status >= 500
            ? 'api_error'
            : 'invalid_request_error';
  return { status, json: { type: 'error', error: { type, message } } };
}

type Block = { type: string; id?: string; tool_use_id?: string };

/** What the Messages API refuses in a request body; undefined when it is valid. */
export function messagesRequestProblem(body: any): string | undefined {
  if (typeof body?.model !== 'string' || body.model === '') return 'model: Field required';
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return 'max_tokens: Field required (an integer >= 1)';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  if (body.messages[0].role !== 'user') return 'messages: first message must use the "user" role';
  // Tool use guide: every tool_use must be answered by a tool_result in the very next (user)
  // message, and a tool_result must answer a tool_use of the message just before it.
  for (let i = 0; i < body.messages.length; i++) {
    const message = body.messages[i];
    if (message.role !== 'user' && message.role !== 'assistant') return `messages.${i}.role: must be "user" or "assistant"`;
    const blocks: Block[] = Array.isArray(message.content) ? message.content : [];
    const previous: Block[] = i > 0 && Array.isArray(body.messages[i - 1].content) ? body.messages[i - 1].content : [];
    const asked = previous.filter((b) => b.type === 'tool_use').map((b) => b.id);
    const answered = blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id);
    for (const id of answered)
      if (!asked.includes(id))
        return `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    if (message.role === 'user' && asked.length > 0) {
      const missing = asked.filter((id) => !answered.includes(id));
      if (missing.length) return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}`;
    }
  }
  return undefined;
}

function messageOf(turn: AssistantTurn, model: string) {
  const content = [
    ...(turn.text ? [{ type: 'text', text: turn.text }] : []),
    ...(turn.toolUses ?? []).map((use) => ({ type: 'tool_use', id: use.id ?? `toolu_fake_${++toolUses}`, name: use.name, input: use.input })),
  ];
  const usage = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, ...turn.usage };
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
    if (block.type === 'text') {
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
  const route = async (request: StreamRequest): Promise<StreamReply> => {
    if (request.method !== 'POST' || !['/v1/messages', '/v1/messages/count_tokens'].includes(request.path))
      return anthropicError(404, `Not found: ${request.method} ${request.path}`);
    // Errors: a missing key is 401 authentication_error; Versioning: the header is required.
    if (!request.headers['x-api-key']) return anthropicError(401, 'x-api-key header is required');
    if (!request.headers['anthropic-version']) return anthropicError(400, 'anthropic-version: header is required');
    if (request.path === '/v1/messages/count_tokens') return { json: { input_tokens: 10 } };
    const problem = messagesRequestProblem(request.body);
    if (problem) return anthropicError(400, problem);
    const message = messageOf(await handler(request), request.body.model);
    return request.body.stream === true ? { events: messageEvents(message) } : { json: message };
  };
  return startStreamServer(route);
}
