// The server side of a WebSocket (RFC 6455), as much as the exec subresource uses: the opening
// handshake with subprotocol negotiation, binary messages, ping/pong and the closing handshake.
// Frames from the client must be masked (RFC 6455 section 5.1): an unmasked one fails the connection.
// A message over `maxMessageBytes` ends the connection: the API server reads exec messages with
// golang.org/x/net/websocket, whose DefaultMaxPayloadBytes is 32 MB (its Receive fails with
// ErrFrameTooLarge and wsstream's read loop closes the connection; client-java PR #1315).
// With `idleMs`, a connection with no frame either way for that long is cut without a close frame,
// as a load balancer in front of API servers does (haproxy `timeout tunnel`/`timeout client`, 20 s in
// kubeadm's HA example; an AWS ELB's idle timeout, 60 s): pings are frames and keep it open.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export const MAX_MESSAGE_BYTES = 32 << 20;

export interface WebSocketLimits {
  maxMessageBytes?: number;
  idleMs?: number;
}

export interface WebSocketPeer {
  readonly protocol: string;
  send(data: Buffer): void;
  close(code?: number): void;
  onMessage(handler: (data: Buffer) => void): void;
  onClose(handler: () => void): void;
}

/** Completes the handshake with the first of `supported` the client offered; undefined (after a 400) when none. */
export function acceptWebSocket(
  request: IncomingMessage,
  socket: Duplex,
  supported: string[],
  reject: (status: number, body: string) => void,
  limits: WebSocketLimits = {},
): WebSocketPeer | undefined {
  const maxMessageBytes = limits.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  const key = request.headers['sec-websocket-key'];
  const offered = String(request.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const protocol = supported.find((p) => offered.includes(p));
  if (!key || request.headers['sec-websocket-version'] !== '13') {
    reject(400, 'not a WebSocket version 13 handshake');
    return undefined;
  }
  if (!protocol) {
    // wsstream.Conn.Open: "requested protocol(s) are not supported".
    reject(400, `requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${supported.join(' ')}]`);
    return undefined;
  }
  const accept = createHash('sha1').update(`${key}${GUID}`).digest('base64');
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${protocol}\r\n\r\n`,
  );

  const messageHandlers: ((data: Buffer) => void)[] = [];
  // Messages that arrive before anyone listens (the command is still being started) wait, as in a socket buffer.
  let early: Buffer[] | undefined = [];
  const closeHandlers: (() => void)[] = [];
  let closed = false;
  let buffer = Buffer.alloc(0);
  let fragments: Buffer[] = [];
  let fragmentBytes = 0;
  let idle: NodeJS.Timeout | undefined;
  const active = () => {
    if (!limits.idleMs || closed) return;
    clearTimeout(idle);
    idle = setTimeout(() => socket.destroy(), limits.idleMs);
  };
  active();

  const frame = (opcode: number, payload: Buffer): Buffer => {
    const length = payload.length;
    const header = length < 126 ? Buffer.from([0x80 | opcode, length]) : length < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
    if (length >= 126) {
      header[0] = 0x80 | opcode;
      if (length < 65536) {
        header[1] = 126;
        header.writeUInt16BE(length, 2);
      } else {
        header[1] = 127;
        header.writeBigUInt64BE(BigInt(length), 2);
      }
    }
    return Buffer.concat([header, payload]);
  };

  const finish = () => {
    if (closed) return;
    closed = true;
    clearTimeout(idle);
    socket.end();
    closeHandlers.forEach((handler) => handler());
  };

  const peer: WebSocketPeer = {
    protocol,
    send(data) {
      if (!closed && socket.writable) {
        socket.write(frame(2, data));
        active();
      }
    },
    close(code = 1000) {
      if (closed) return;
      const payload = Buffer.alloc(2);
      payload.writeUInt16BE(code);
      if (socket.writable) socket.write(frame(8, payload));
      finish();
    },
    onMessage(handler) {
      messageHandlers.push(handler);
      const waiting = early ?? [];
      early = undefined;
      waiting.forEach((message) => handler(message));
    },
    onClose: (handler) => void closeHandlers.push(handler),
  };

  socket.on('data', (chunk: Buffer) => {
    active();
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (buffer.length < 2) return;
      const fin = (buffer[0] & 0x80) !== 0;
      const opcode = buffer[0] & 0x0f;
      const masked = (buffer[1] & 0x80) !== 0;
      let length = buffer[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffer.length < 10) return;
        length = Number(buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (!masked) {
        peer.close(1002);
        return;
      }
      if (opcode < 8 && fragmentBytes + length > maxMessageBytes) {
        peer.close(1000);
        socket.destroy();
        return;
      }
      if (buffer.length < offset + 4 + length) return;
      const mask = buffer.subarray(offset, offset + 4);
      const payload = Buffer.from(buffer.subarray(offset + 4, offset + 4 + length));
      for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4];
      buffer = buffer.subarray(offset + 4 + length);
      if (opcode === 8) {
        peer.close(payload.length >= 2 ? payload.readUInt16BE(0) : 1000);
        return;
      }
      if (opcode === 9) {
        if (socket.writable) socket.write(frame(10, payload));
        continue;
      }
      if (opcode === 10) continue;
      fragments.push(payload);
      fragmentBytes += payload.length;
      if (fin) {
        const message = Buffer.concat(fragments);
        fragments = [];
        fragmentBytes = 0;
        if (early) early.push(message);
        else messageHandlers.forEach((handler) => handler(message));
      }
    }
  });
  socket.on('close', finish);
  socket.on('error', finish);
  return peer;
}
