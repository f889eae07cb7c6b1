// Makes the MCP message server reachable from inside one agent's container, which has no network:
// the host serves it on a unix socket in a per-agent folder that is bind-mounted (read-only) at
// /run/coop-bench/, next to a tiny stdio bridge the agent CLI starts with the container's own
// runtime (`sh /run/coop-bench/mcp-bridge.sh`, see mcp.json there). A unix socket is a file, not
// a network endpoint, so `--network none` does not cut it off, and nothing else is exposed.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_NAME, createMessageServer, type McpMailbox } from './mcp-server.ts';
import type { ExtraTool } from '../agents/types.ts';

export const CONTAINER_DIR = '/run/coop-bench';
const SOCKET_NAME = 'mcp.sock';
const BRIDGE_FILES = ['mcp-bridge.sh', 'mcp-bridge.mjs', 'mcp-bridge.py'];
/** Largest JSON-RPC line accepted from an agent (a 10,000-character message escapes to ~60 KB). */
const MAX_LINE_BYTES = 256 * 1024;
/** An agent CLI may restart its MCP server; more connections than this at once are refused. */
const MAX_CONNECTIONS = 4;
/** sun_path is 108 bytes on Linux, terminating NUL included. */
const MAX_SOCKET_PATH = 107;

export interface McpEndpointOptions {
  /** The agent's end of the task's bus (MessageBus.mailbox). */
  mailbox: McpMailbox;
  /** A run condition's tools about the partners, served beside the message tools. */
  extraTools?: readonly ExtraTool[];
  /** The agent's instructions (its feature and the coordination rules), for agent CLIs: task.md. */
  taskText?: string;
  /**
   * Where the per-agent folder is created (default: the OS temp dir). When coop-bench itself runs
   * in a container and drives the host's engine, this must be a path the host sees identically.
   */
  parentDir?: string;
}

export interface McpEndpoint {
  /** The folder on the host: mcp.sock, the bridge scripts, mcp.json, task.md if given. */
  hostDir: string;
  /** Where it appears inside the container. */
  containerDir: string;
  /** For ContainerSpec.binds: `<hostDir>:/run/coop-bench:ro`. */
  bind: string;
  /** Closes every connection and removes the socket and the folder; safe to call twice. */
  close(): Promise<void>;
}

/** The standard `mcpServers` configuration an MCP-capable agent CLI reads. */
export function mcpConfig(): { mcpServers: Record<string, { command: string; args: string[] }> } {
  return { mcpServers: { [SERVER_NAME]: { command: 'sh', args: [`${CONTAINER_DIR}/mcp-bridge.sh`] } } };
}

export async function startMcpEndpoint(options: McpEndpointOptions): Promise<McpEndpoint> {
  const { mailbox } = options;
  // The private parent (0700) keeps other host users out; the mounted child is open to whatever
  // user the container runs as.
  const privateDir = mkdtempSync(join(options.parentDir ?? tmpdir(), 'coop-bench-mcp-'));
  leftovers.add(privateDir);
  const hostDir = join(privateDir, mailbox.agentId);
  const socketPath = join(hostDir, SOCKET_NAME);
  const closing = new AbortController();
  const connections = new Set<Socket>();
  let server: Server | undefined;
  try {
    if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
      throw new Error(`the MCP socket path ${socketPath} is longer than ${MAX_SOCKET_PATH} bytes: choose a shorter parentDir`);
    }
    mkdirSync(hostDir, { mode: 0o755 });
    chmodSync(hostDir, 0o755);
    for (const file of BRIDGE_FILES) {
      copyFileSync(fileURLToPath(new URL(`./bridge/${file}`, import.meta.url)), join(hostDir, file));
      chmodSync(join(hostDir, file), 0o644);
    }
    writeFileSync(join(hostDir, 'mcp.json'), `${JSON.stringify(mcpConfig(), null, 2)}\n`, { mode: 0o644 });
    if (options.taskText !== undefined) writeFileSync(join(hostDir, 'task.md'), options.taskText, { mode: 0o644 });

    server = createServer((socket) => {
      connections.add(socket);
      socket.on('close', () => connections.delete(socket));
      socket.on('error', () => socket.destroy());
      const mcp = createMessageServer(mailbox, closing.signal, options.extraTools);
      const transport = new StdioServerTransport(socket, socket, { maxBufferSize: MAX_LINE_BYTES });
      // The transport closes itself on an oversized line; the socket must go with it.
      transport.onclose = () => socket.destroy();
      socket.on('close', () => void mcp.close());
      mcp.connect(transport).catch(() => socket.destroy());
    });
    server.maxConnections = MAX_CONNECTIONS;
    await listen(server, socketPath);
    chmodSync(socketPath, 0o666);
  } catch (error) {
    closing.abort();
    server?.close();
    remove(privateDir);
    throw error;
  }

  let closed: Promise<void> | undefined;
  return {
    hostDir,
    containerDir: CONTAINER_DIR,
    bind: `${hostDir}:${CONTAINER_DIR}:ro`,
    close() {
      closed ??= (async () => {
        closing.abort();
        for (const socket of connections) socket.destroy();
        await new Promise<void>((resolve) => server!.close(() => resolve()));
        remove(privateDir);
      })();
      return closed;
    },
  };
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Folders of endpoints not closed yet: removed at any exit Node sees (process.exit, the end of work; not SIGKILL). */
const leftovers = new Set<string>();
process.once('exit', () => leftovers.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function remove(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  leftovers.delete(dir);
}
