// The HTTP core of the streaming fake model servers (the APIs agent CLIs speak): 127.0.0.1 on a
// random port, every request recorded, each answered by the API module's contract check first,
// then by the test's handler, as one JSON body or as server-sent events.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import type { Rejection } from './contracts/rejection.ts';

export interface StreamRequest {
  method: string;
  path: string;
  /** The query string without `?`. */
  query: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body, or the raw text when it is not JSON. */
  body: any;
  /** The status it was answered with (a refusal's 4xx), once answered. */
  status?: number;
}

/** One server-sent event (WHATWG format: `event:` line, `data:` line, blank line). */
export interface SseEvent {
  event?: string;
  data: unknown;
}

export interface StreamReply {
  status?: number;
  /** A JSON body. */
  json?: unknown;
  /** Server-sent events, written one by one (text/event-stream). */
  events?: SseEvent[];
}

/** A refusal by a contract (contracts/*.ts) as this server's reply. */
export const rejectionReply = (rejection: Rejection): StreamReply => ({ status: rejection.status, json: rejection.body });

export type StreamRoute = (request: StreamRequest) => StreamReply | Promise<StreamReply>;

export interface StreamServer {
  /** http://127.0.0.1:<port>, no path. */
  url: string;
  requests: StreamRequest[];
  close(): Promise<void>;
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const body = await text(req);
  try {
    return body === '' ? undefined : JSON.parse(body);
  } catch {
    return body;
  }
}

/** `route` answers every request: the API's own checks, then the test's script. */
export async function startStreamServer(route: StreamRoute): Promise<StreamServer> {
  const requests: StreamRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const [path, query = ''] = (req.url ?? '').split('?');
    const request: StreamRequest = { method: req.method ?? '', path: path!, query, headers: req.headers, body: await readJson(req) };
    requests.push(request);
    let reply: StreamReply;
    try {
      reply = await route(request);
    } catch (error) {
      reply = { status: 500, json: { error: { message: `fake server: ${(error as Error).message}` } } };
    }
    request.status = reply.status ?? 200;
    if (reply.events) {
      res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const event of reply.events) res.write(`${event.event ? `event: ${event.event}\n` : ''}data: ${JSON.stringify(event.data)}\n\n`);
      res.end();
      return;
    }
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
    res.end(reply.json === undefined ? '' : JSON.stringify(reply.json));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
