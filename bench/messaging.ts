// Message delivery latency between two agents: from the send to the moment the waiting recipient
// has woken and taken the message (committed to run.db, marked delivered). Two paths:
//   bus: the built-in agent loop's (in process: Mailbox.wait then take);
//   MCP: an external agent's (SDK client -> node bridge -> unix socket -> read_messages with wait_seconds),
//        on the host; in a container the same bridge and socket are reached through a bind mount.
// Run: npx tsx bench/messaging.ts [round trips]. Prints p50 and p99; no thresholds.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_MESSAGE_LIMITS, MessageBus, type Mailbox } from '../harness/messaging/bus.ts';
import { startMcpEndpoint } from '../harness/messaging/mcp-endpoint.ts';
import { RunStore } from '../harness/store/run-store.ts';

const ROUNDS = Number(process.argv[2] ?? 1000);
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

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function row(path: string, latencies: number[]): string[] {
  const sorted = [...latencies].sort((a, b) => a - b);
  return [path, String(sorted.length), ...[50, 99].map((p) => percentile(sorted, p).toFixed(3)), sorted[sorted.length - 1].toFixed(3)];
}

function printTable(rows: string[][]): void {
  const all = [['path', 'messages', 'p50 ms', 'p99 ms', 'max ms'], ...rows];
  const widths = all[0].map((_, c) => Math.max(...all.map((r) => r[c].length)));
  for (const r of all) console.log(r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'coop-bench-bench-'));
  const store = RunStore.open(dir, 'bench', { create: true });
  const pool = { repo: 'bench_task', taskId: 1, dir, features: [], publishedImage: 'bench:task1' };
  const taskId = store.ensureTask({ pool, features: [1, 2], setting: 'coop', models: ['noop', 'noop'], variant: '' }).id;
  // The per-agent quota bounds real runs; the bench sends far more.
  const bus = new MessageBus(store, { ...DEFAULT_MESSAGE_LIMITS, maxMessagesPerAgent: Number.MAX_SAFE_INTEGER });
  const agent1 = bus.mailbox(taskId, 'agent1', ['agent2']);
  const agent2 = bus.mailbox(taskId, 'agent2', ['agent1']);
  const endpoint = await startMcpEndpoint({ bus, taskId, agentId: 'agent2', partners: ['agent1'] });
  const client = new Client({ name: 'bench', version: '0' });
  try {
    const rows = [row('bus (agent loop, in process)', await busLatencies(agent1, agent2, ROUNDS))];
    await client.connect(new StdioClientTransport({ command: 'node', args: [join(endpoint.hostDir, 'mcp-bridge.mjs')] }));
    rows.push(row('MCP (node bridge, unix socket)', await mcpLatencies(agent1, client, MCP_ROUNDS)));
    console.log(`message delivery latency, send -> waiting recipient has taken it (run.db in ${tmpdir()}, WAL)`);
    printTable(rows);
  } finally {
    await client.close();
    await endpoint.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
