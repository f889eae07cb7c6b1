// The HTTP core of the fake model servers: 127.0.0.1 on a random port, every request recorded,
// checked against the service's contract (a request the real service refuses gets its error and
// uses up no scripted reply), then answered from a queue of scripted replies, then by a handler.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { preflightStep } from './preflight.ts';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body, or the raw text when it is not JSON. */
  body: any;
}

/** One answer of the model: text and/or tool calls, rendered in whatever format the endpoint speaks. */
export interface AssistantTurn {
  text: string | null;
  toolCalls?: { id?: string; name: string; /** An object, or (OpenAI formats) the raw arguments text. */ input: unknown }[];
  /** The endpoint's own stop value (`length`, `max_tokens`, ...); default: what the turn implies. */
  stop?: string;
  /** The endpoint's own usage fields; default: counted from the request by the fakes' tokenizer. */
  usage?: Record<string, unknown>;
  /**
   * The model declines on the provider's safety policy, in the endpoint's own form: Anthropic's
   * `stop_reason: "refusal"` with `stop_details`, a Chat Completions `refusal`, a Responses
   * `refusal` content part.
   */
  refusal?: string;
}

export interface FakeReply {
  /** HTTP status (default 200). */
  status?: number;
  /** JSON body, or a function of the request that returns it. */
  body?: unknown | ((request: RecordedRequest) => unknown);
  /** A model answer, rendered by the server for the endpoint it was asked on (instead of `body`). */
  turn?: AssistantTurn;
  /** Wait before answering. */
  delayMs?: number;
  /** Never answer (until the server closes): for client timeouts. */
  hang?: boolean;
}

export type FakeHandler = (request: RecordedRequest) => FakeReply | string | Promise<FakeReply | string>;

export interface ScriptedServer {
  port: number;
  requests: RecordedRequest[];
  /** Requests the contract refused, with the error they got: a test of valid traffic expects none. */
  refusals: { request: RecordedRequest; reply: FakeReply }[];
  /** coop-bench's live preflight requests, answered by the fake itself (not in `requests`). */
  preflights: RecordedRequest[];
  /** Queue replies; a string is shorthand for an answer with that text. */
  enqueue(...replies: (FakeReply | string)[]): void;
  /** Answers when the queue is empty (undefined: the "no scripted reply" error). */
  handle(handler: FakeHandler | undefined): void;
  /** Forgets queued replies, the handler and the recorded requests (between tests). */
  reset(): void;
  close(): Promise<void>;
}

export interface ServerProtocol {
  /** Whether the scripted answers serve this request (the model endpoint). */
  isScripted(request: RecordedRequest): boolean;
  /** The real service's refusal of this request, if it would refuse it. */
  check(request: RecordedRequest): FakeReply | undefined;
  /** The body of a model answer for this request. */
  render(turn: AssistantTurn, request: RecordedRequest): unknown;
  /** Any other route: a fixed answer, e.g. a model list or a 404. */
  otherRoute(request: RecordedRequest): FakeReply;
  /** The answer when nothing is scripted. */
  unscripted: FakeReply;
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
}

export async function startScriptedServer(
  protocol: ServerProtocol,
  options: {
    replies?: (FakeReply | string)[];
    handler?: FakeHandler;
    /** Default true: answer coop-bench's live preflight as a model would (tests/fakes/preflight.ts); false: script it. */
    answersPreflight?: boolean;
  } = {},
): Promise<ScriptedServer> {
  const queue: (FakeReply | string)[] = [...(options.replies ?? [])];
  let handler = options.handler;
  const requests: RecordedRequest[] = [];
  const refusals: ScriptedServer['refusals'] = [];
  const preflights: RecordedRequest[] = [];

  const server = http.createServer(async (req, res) => {
    const request: RecordedRequest = { method: req.method ?? '', path: (req.url ?? '').split('?')[0]!, headers: req.headers, body: await readBody(req) };
    const preflight = options.answersPreflight !== false && protocol.isScripted(request) ? preflightStep(request.body) : undefined;
    (preflight ? preflights : requests).push(request);
    let reply: FakeReply;
    const refusal = protocol.isScripted(request) ? protocol.check(request) : undefined;
    if (refusal) {
      refusals.push({ request, reply: refusal });
      reply = refusal;
    } else if (preflight) {
      reply = { turn: 'text' in preflight ? { text: preflight.text } : { text: null, toolCalls: [preflight.call] } };
    } else if (protocol.isScripted(request)) {
      const next = queue.length > 0 ? queue.shift()! : handler ? await handler(request) : protocol.unscripted;
      reply = typeof next === 'string' ? { turn: { text: next } } : next;
    } else {
      reply = protocol.otherRoute(request);
    }
    if (reply.hang) return; // the socket is destroyed by close()
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    const payload = reply.turn
      ? protocol.render(reply.turn, request)
      : typeof reply.body === 'function'
        ? (reply.body as (r: RecordedRequest) => unknown)(request)
        : reply.body;
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
    res.end(payload === undefined ? '' : JSON.stringify(payload));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    refusals,
    preflights,
    enqueue: (...replies) => void queue.push(...replies),
    handle: (next) => {
      handler = next;
    },
    reset: () => {
      queue.length = 0;
      handler = undefined;
      requests.length = 0;
      refusals.length = 0;
      preflights.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
