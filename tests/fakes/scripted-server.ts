// The HTTP core of the fake model servers: 127.0.0.1 on a random port, every request recorded,
// answered from a queue of scripted replies first, then by a handler function.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body, or the raw text when it is not JSON. */
  body: any;
}

export interface FakeReply {
  /** HTTP status (default 200). */
  status?: number;
  /** JSON body, or a function of the request that returns it. */
  body?: unknown | ((request: RecordedRequest) => unknown);
  /** Wait before answering. */
  delayMs?: number;
  /** Never answer (until the server closes): for client timeouts. */
  hang?: boolean;
}

export type FakeHandler = (request: RecordedRequest) => FakeReply | string | Promise<FakeReply | string>;

export interface ScriptedServer {
  port: number;
  requests: RecordedRequest[];
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
  /** Any other route: a fixed answer, e.g. a model list or a 404. */
  otherRoute(request: RecordedRequest): FakeReply;
  /** The answer for a plain string in the script. */
  textReply(text: string): FakeReply;
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

export async function startScriptedServer(protocol: ServerProtocol, options: { replies?: (FakeReply | string)[]; handler?: FakeHandler } = {}): Promise<ScriptedServer> {
  const queue: (FakeReply | string)[] = [...(options.replies ?? [])];
  let handler = options.handler;
  const requests: RecordedRequest[] = [];

  const server = http.createServer(async (req, res) => {
    const request: RecordedRequest = { method: req.method ?? '', path: (req.url ?? '').split('?')[0]!, headers: req.headers, body: await readBody(req) };
    requests.push(request);
    let reply: FakeReply;
    if (protocol.isScripted(request)) {
      const next = queue.length > 0 ? queue.shift()! : handler ? await handler(request) : protocol.unscripted;
      reply = typeof next === 'string' ? protocol.textReply(next) : next;
    } else {
      reply = protocol.otherRoute(request);
    }
    if (reply.hang) return; // the socket is destroyed by close()
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    const payload = typeof reply.body === 'function' ? (reply.body as (r: RecordedRequest) => unknown)(request) : reply.body;
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
    res.end(payload === undefined ? '' : JSON.stringify(payload));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    handle: (next) => {
      handler = next;
    },
    reset: () => {
      queue.length = 0;
      handler = undefined;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
