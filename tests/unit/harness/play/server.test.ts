// The play page's server refuses what is not the page itself: a request without the seat's token or
// with another seat's, a request from another origin or for another host, a WebSocket from
// another origin. The page and its WebSocket, with the token and its own origin, are served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import WebSocket from 'ws';
import { Seat } from '../../../../harness/play/seat.ts';
import { startPlayServer, type PlayServer } from '../../../../harness/play/server.ts';

let server: PlayServer;
const seat = new Seat('agent1');
const other = new Seat('agent2');

beforeAll(async () => {
  server = await startPlayServer([seat]);
});
afterAll(async () => server.close());

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        let body = '';
        response.on('data', (c) => (body += c));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

/** The HTTP status a WebSocket handshake got (101 when it opened). */
function handshake(url: string, origin?: string): Promise<{ status: number; hello?: unknown }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, origin ? { origin } : {});
    ws.on('unexpected-response', (_request, response) => resolve({ status: response.statusCode ?? 0 }));
    ws.on('message', (data) => {
      resolve({ status: 101, hello: JSON.parse(data.toString()) });
      ws.close();
    });
    ws.on('error', () => undefined);
  });
}

describe('the play server', () => {
  it('serves the page and its scripts with the seat token', async () => {
    const page = await get(server.url(seat));
    expect(page.status).toBe(200);
    expect(page.body).toContain(`/page.js?token=${seat.token}`);
    const origin = new URL(server.url(seat)).origin;
    expect((await get(`${origin}/xterm.js?token=${seat.token}`)).status).toBe(200);
  });

  it('refuses a request without the token, or with a token that is no seat of this server', async () => {
    const origin = new URL(server.url(seat)).origin;
    expect((await get(`${origin}/`)).status).toBe(403);
    expect((await get(`${origin}/xterm.js`)).status).toBe(403);
    expect((await get(`${origin}/?token=${other.token}`)).status).toBe(403);
    expect((await get(`${origin}/?token=${seat.token.slice(0, -1)}0`)).status).toBe(403);
  });

  it('refuses a request from another origin, or naming another host', async () => {
    expect((await get(server.url(seat), { origin: 'http://evil.example' })).status).toBe(403);
    expect((await get(server.url(seat), { host: 'evil.example' })).status).toBe(403);
  });

  it("opens the WebSocket only from the page's own origin with the token", async () => {
    const origin = new URL(server.url(seat)).origin;
    const ws = `${origin.replace('http:', 'ws:')}/ws?token=${seat.token}`;
    expect(await handshake(ws, origin)).toEqual({ status: 101, hello: expect.objectContaining({ type: 'hello', agentId: 'agent1', state: 'waiting' }) });
    expect((await handshake(ws, 'http://evil.example')).status).toBe(403);
    expect((await handshake(ws)).status).toBe(403);
    expect((await handshake(`${origin.replace('http:', 'ws:')}/ws`, origin)).status).toBe(403);
  });
});
