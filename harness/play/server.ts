// The page of `coop-bench play`: bound to 127.0.0.1 on a random port. Every request carries the
// seat's random token (a URL without it, or with another seat's, gets 403), and a request that says
// it comes from another origin, or names another host (DNS rebinding), gets 403 too. The page talks
// over one WebSocket: JSON events both ways, binary frames for the terminal's output.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Seat } from './seat.ts';
import { MessageRejected } from '../messaging/bus.ts';
import { errorMessage } from '../errors.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const require = createRequire(import.meta.url);
const ASSETS: Record<string, { file: string; type: string }> = {
  '/page.js': { file: join(here, 'page', 'page.js'), type: 'text/javascript' },
  '/page.css': { file: join(here, 'page', 'page.css'), type: 'text/css' },
  '/xterm.js': { file: require.resolve('@xterm/xterm/lib/xterm.js'), type: 'text/javascript' },
  '/xterm.css': { file: require.resolve('@xterm/xterm/css/xterm.css'), type: 'text/css' },
};
/** A frame larger than this is refused (a paste of a whole file is far below). */
const MAX_FRAME_BYTES = 1024 * 1024;

export interface PlayServer {
  /** The page of a seat, token included. */
  url(seat: Seat): string;
  close(): Promise<void>;
}

function sameToken(given: string | null, token: string): boolean {
  if (given === null || given.length !== token.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(token));
}

export async function startPlayServer(seats: Seat[]): Promise<PlayServer> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const page = readFileSync(join(here, 'page', 'page.html'), 'utf8');

  /** The seat a request is for, or undefined when it must be refused. */
  const seatOf = (request: http.IncomingMessage): { seat: Seat; path: string } | undefined => {
    if (request.headers.host !== origin.slice('http://'.length)) return undefined;
    const from = request.headers.origin;
    if (from !== undefined && from !== origin) return undefined;
    const url = new URL(request.url ?? '/', origin);
    const seat = seats.find((s) => sameToken(url.searchParams.get('token'), s.token));
    return seat && { seat, path: url.pathname };
  };

  server.on('request', (request, response) => {
    const found = seatOf(request);
    // Inline styles: xterm.js sizes its DOM renderer with style elements it makes.
    const headers = {
      'content-security-policy': `default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src ${origin.replace('http:', 'ws:')}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    };
    if (!found || request.method !== 'GET') {
      response.writeHead(403, { ...headers, 'content-type': 'text/plain' }).end('forbidden: open the URL coop-bench play printed\n');
      return;
    }
    const { seat, path } = found;
    if (path === '/') {
      // The token is hex this process made: nothing to escape.
      response.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8' }).end(page.replaceAll('{{token}}', seat.token));
      return;
    }
    const asset = ASSETS[path];
    if (!asset) {
      response.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    response.writeHead(200, { ...headers, 'content-type': `${asset.type}; charset=utf-8` }).end(readFileSync(asset.file));
  });

  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  server.on('upgrade', (request, socket, head) => {
    const found = seatOf(request);
    // A browser always says where a WebSocket comes from: one that does not is no page of ours.
    if (!found || found.path !== '/ws' || request.headers.origin !== origin) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => connect(found.seat, ws));
  });

  return {
    url: (seat) => `${origin}/?token=${seat.token}`,
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One page's socket: events from the page are checked, then handed to the seat. */
function connect(seat: Seat, ws: WebSocket): void {
  const send = (event: object) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(event));
  };
  const detach = seat.attach({ send, sendOutput: (chunk) => ws.readyState === ws.OPEN && ws.send(chunk) });
  ws.on('close', detach);
  ws.on('message', (data, isBinary) => {
    if (isBinary) return;
    let event: { type?: unknown; data?: unknown; body?: unknown; cols?: unknown; rows?: unknown };
    try {
      event = JSON.parse(data.toString('utf8'));
    } catch {
      return;
    }
    if (typeof event !== 'object' || event === null) return;
    try {
      if (event.type === 'input' && typeof event.data === 'string') seat.input(event.data);
      else if (event.type === 'resize' && isSize(event.cols) && isSize(event.rows)) seat.resize(event.cols, event.rows);
      else if (event.type === 'active') seat.touch();
      else if (event.type === 'say' && typeof event.body === 'string') seat.say(event.body);
      else if (event.type === 'finish') seat.finish();
    } catch (error) {
      send({ type: 'error', text: error instanceof MessageRejected ? error.message : errorMessage(error) });
    }
  });
}

function isSize(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 2 && n <= 1000;
}
