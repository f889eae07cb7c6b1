// Message delivery latency between two agents: from the send to the moment the waiting recipient
// has woken and taken the message (committed to run.db, marked delivered). Two paths:
//   bus: the built-in agent loop's (in process: Mailbox.wait then take);
//   MCP: an external agent's (SDK client -> node bridge -> unix socket -> read_messages with wait_seconds),
//        on the host; in a container the same bridge and socket are reached through a bind mount.
// Part of `npm run bench` (bench/index.ts).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_MESSAGE_LIMITS, MessageBus, type Mailbox } from '../harness/messaging/bus.ts';
import { startMcpEndpoint } from '../harness/messaging/mcp-endpoint.ts';
import { RunStore } from '../harness/store/run-store.ts';
import { percentile, type BenchTable } from './table.ts';

const ROUNDS = 1000;
const TARGET_P99_MS = 10;
/** The MCP path costs a JSON-RPC round trip per message and a head start per wait. */
const MCP_ROUNDS = Math.max(1, Math.floor(ROUNDS / 5));
/** Time given to the MCP read to reach the server and start waiting; not part of the latency. */
const MCP_HEAD_START_MS = 5;

async function busLatencies(sender: Mailbox, recipient: Mailbox, rounds: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const received = (async () => {
      await recipient.wait(10_000);
      if (recipient.take().length !== 1) throw new Error('expected exactly one message');
      return performance.now();
    })();
    await sleep(0); // the sender is another agent: it sends from a later turn of the event loop
    const sentAt = performance.now();
    sender.send(recipient.agentId, `message ${i}`);
    latencies.push((await received) - sentAt);
  }
  return latencies;
}

async function mcpLatencies(sender: Mailbox, client: Client, rounds: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const reading = client.callTool({ name: 'read_messages', arguments: { wait_seconds: 10 } }).then((result) => {
      const text = (result.content as { text: string }[])[0].text;
      if (!text.endsWith(`message ${i}`)) throw new Error(`unexpected read: ${text}`);
      return performance.now();
    });
    await sleep(MCP_HEAD_START_MS);
    const sentAt = performance.now();
    sender.send('agent2', `message ${i}`);
    latencies.push((await reading) - sentAt);
  }
  return latencies;
}

export async function messageLatency(): Promise<BenchTable> {
  const dir = mkdtempSync(join(tmpdir(), 'coop-bench-bench-'));
  const store = RunStore.open(dir, 'bench', { create: true });
  const pool = { repo: 'bench_task', taskId: 1, dir, features: [], publishedImage: 'bench:task1' };
  const taskId = store.ensureTask({ pool, features: [1, 2], setting: 'coop', models: ['noop', 'noop'], variant: '' }).id;
  // The per-agent quota bounds real runs; the bench sends far more.
  const bus = new MessageBus(store, { ...DEFAULT_MESSAGE_LIMITS, maxMessagesPerAgent: Number.MAX_SAFE_INTEGER });
  const agent1 = bus.mailbox(taskId, 'agent1', ['agent2']);
  const agent2 = bus.mailbox(taskId, 'agent2', ['agent1']);
  const endpoint = await startMcpEndpoint({ mailbox: bus.mailbox(taskId, 'agent2', ['agent1']) });
  const client = new Client({ name: 'bench', version: '0' });
  try {
    const busMs = await busLatencies(agent1, agent2, ROUNDS);
    await client.connect(new StdioClientTransport({ command: 'node', args: [join(endpoint.hostDir, 'mcp-bridge.mjs')] }));
    const mcpMs = await mcpLatencies(agent1, client, MCP_ROUNDS);
    const row = (path: string, latencies: number[]) => [
      path,
      latencies.length,
      ms3(percentile(latencies, 50)),
      ms3(percentile(latencies, 99)),
      ms3(Math.max(...latencies)),
    ];
    const p99 = percentile(busMs, 99);
    return {
      id: 'message_latency',
      title: '3. Message delivery latency between two agents',
      measures: `From send to the moment the waiting recipient has woken and taken the message (committed to run.db in WAL mode, marked delivered). bus: the built-in agent loop's path (in process). MCP: an external agent's path (SDK client -> node bridge -> unix socket -> read_messages with wait_seconds), on the host; in a container the same bridge and socket are reached through a bind mount.`,
      columns: ['path', 'messages', 'p50 ms', 'p99 ms', 'max ms'],
      rows: [row('bus (agent loop, in process)', busMs), row('MCP (node bridge, unix socket)', mcpMs)],
      target: { text: `p99 <= ${TARGET_P99_MS} ms on the agents' path (bus)`, value: p99, met: p99 <= TARGET_P99_MS },
      notes: [`run.db in ${tmpdir()}; the MCP row is informational (external agents add their own CLI's latency).`],
    };
  } finally {
    await client.close();
    await endpoint.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const ms3 = (value: number) => value.toFixed(3);
