// A fake Anthropic Messages API for tests, on 127.0.0.1 with a random port, in the style of
// openai-server.ts. Requests the real API refuses get its error (contracts/anthropic-messages.ts);
// the rest are answered from a script (a queue of replies, then a handler), and billed by a prompt
// cache that behaves as the docs describe (cache_control breakpoints, 5-minute and 1-hour entries).
// Supports POST /v1/messages (non-streaming) with text and tool_use blocks.
//
//   const server = await startFakeAnthropic();
//   server.enqueue(messageReply(null, { toolUses: [{ name: 'bash', input: { command: 'ls' } }] }), 'done');
//   const client = new Anthropic({ baseURL: server.url, apiKey: 'x' });
//   ...
//   expect(server.requests[0].body.messages).toEqual(...);
//   await server.close();
import { startScriptedServer, type AssistantTurn, type FakeHandler, type FakeReply, type RecordedRequest, type ScriptedServer } from './scripted-server.ts';
import { ANTHROPIC_MODELS, countTokens, limitsOf, type ModelLimits } from './contracts/limits.ts';
import { checkMessagesRequest, PromptCache, thinkingSignature } from './contracts/anthropic-messages.ts';
import { anthropicRejection } from './contracts/rejection.ts';

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
    /** Ends with `stop_reason: "refusal"` and this explanation in `stop_details`. */
    refusal?: string;
    /** Default: billed by the fake's prompt cache from the request. */
    usage?: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
  } = {},
): FakeReply {
  return {
    turn: {
      text,
      toolCalls: options.toolUses?.map((use) => ({ id: use.id, name: use.name, input: use.input })),
      stop: options.stopReason,
      usage: options.usage,
      refusal: options.refusal,
    },
  };
}

/** An error answer in Anthropic's format (`{type: "error", error: {type, message}}`). */
export function anthropicErrorReply(status: number, message = `fake error ${status}`): FakeReply {
  return anthropicRejection(status, message);
}

function render(turn: AssistantTurn, request: RecordedRequest, limits: ModelLimits | undefined, cache: PromptCache): unknown {
  const toolUses = (turn.toolCalls ?? []).map((use, i) => ({ type: 'tool_use', id: use.id ?? `toolu_${i + 1}`, name: use.name, input: use.input }));
  // A model that thinks by default answers with a thinking block first; its text is omitted by
  // default (display "omitted"), its signature is what must come back.
  const thinking = limits?.thinksByDefault ? [{ type: 'thinking', thinking: '', signature: thinkingSignature('', `t${messageCount + 1}`) }] : [];
  const content = [...thinking, ...(turn.text === null ? [] : [{ type: 'text', text: turn.text, citations: null }]), ...toolUses];
  const billed = cache.bill(request.body, limits);
  const usage = turn.usage ? { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...turn.usage } : { ...billed, output_tokens: countTokens(content) };
  return {
    id: `msg_fake_${++messageCount}`,
    type: 'message',
    role: 'assistant',
    model: request.body?.model ?? 'fake-model',
    content,
    // Streaming refusals docs (platform.claude.com/docs/en/test-and-evaluate/strengthen-guardrails/
    // handle-streaming-refusals): the answer so far, `stop_reason: "refusal"` and `stop_details`.
    stop_reason: turn.refusal !== undefined ? 'refusal' : (turn.stop ?? (toolUses.length ? 'tool_use' : 'end_turn')),
    stop_details: turn.refusal !== undefined ? { type: 'refusal', category: null, explanation: turn.refusal } : null,
    stop_sequence: null,
    usage,
  };
}

export async function startFakeAnthropic(
  options: {
    replies?: (FakeReply | string)[];
    handler?: FakeHandler;
    limits?: Record<string, ModelLimits>;
    now?: () => number;
    /** Default true: answers coop-bench's live preflight itself (preflight.ts); false: the script answers it. */
    answersPreflight?: boolean;
  } = {},
): Promise<FakeAnthropicServer> {
  const table = { ...ANTHROPIC_MODELS, ...options.limits };
  const cache = new PromptCache(options.now);
  const isMessages = (r: RecordedRequest) => r.method === 'POST' && r.path === '/v1/messages';
  const server = await startScriptedServer(
    {
      isScripted: isMessages,
      check: (r) => {
        // Errors docs: a model the API does not serve (a typo, no access, a retired model) is a
        // 404 not_found_error, `model: <id>`. The fake serves the models of its table.
        const limits = limitsOf(table, r.body?.model);
        if (!limits && typeof r.body?.model === 'string') return anthropicRejection(404, `model: ${r.body.model}`);
        return checkMessagesRequest(r.body, limits);
      },
      render: (turn, r) => render(turn, r, limitsOf(table, r.body?.model), cache),
      otherRoute: (r) => anthropicErrorReply(404, `fake anthropic server: no route ${r.method} ${r.path}`),
      unscripted: anthropicErrorReply(500, 'fake anthropic server: no scripted reply'),
    },
    options,
  );
  return { ...server, url: `http://127.0.0.1:${server.port}` };
}
