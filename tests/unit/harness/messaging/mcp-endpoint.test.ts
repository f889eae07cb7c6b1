// The MCP endpoint on the host: the SDK client talks to the bridge scripts exactly as an agent CLI
// in a container would, over the endpoint's unix socket (the Docker path is in tests/integration/mcp.test.ts).
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { MessageBus, type Mailbox } from '../../../../harness/messaging/bus.ts';
import { startMcpEndpoint, type McpEndpoint } from '../../../../harness/messaging/mcp-endpoint.ts';
import { channelOf, conditionTools } from '../../../../harness/messaging/conditions.ts';
import { TeamView } from '../../../../harness/run/partner-view.ts';
import { openStoreFixture, type StoreFixture } from './store-fixture.ts';

let fixture: StoreFixture;
let bus: MessageBus;
let task: number;
let endpoint: McpEndpoint;
let waits: MockInstance<Mailbox['wait']>;
const clients: Client[] = [];

beforeEach(async () => {
  fixture = openStoreFixture();
  bus = new MessageBus(fixture.store);
  task = fixture.addTask([1, 2]);
  const mailbox = bus.mailbox(task, 'agent2', ['agent1']);
  // How each wait of the endpoint ended: true (a message), false (its deadline), or rejected (cancelled).
  waits = vi.spyOn(mailbox, 'wait');
  endpoint = await startMcpEndpoint({ mailbox, taskText: '# Feature 2\nAdd --verbose.\n' });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await endpoint.close();
  fixture.dispose();
});

/** An SDK client running `command` the way mcp.json says, with the container path mapped to hostDir. */
async function connectClient(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'test-agent-cli', version: '0' });
  await client.connect(new StdioClientTransport({ command, args: args.map((a) => a.replace(endpoint.containerDir, endpoint.hostDir)), stderr: 'pipe' }));
  clients.push(client);
  return client;
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as { type: string; text: string }[]).map((c) => c.text).join('');
}

const hasPython = (() => {
  try {
    execFileSync('python3', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

describe('the per-agent folder', () => {
  it('holds the socket, the bridges and a standard mcp.json, open to any container user', () => {
    const config = JSON.parse(readFileSync(join(endpoint.hostDir, 'mcp.json'), 'utf8'));
    expect(config).toEqual({ mcpServers: { 'coop-bench': { command: 'sh', args: ['/run/coop-bench/mcp-bridge.sh'] } } });
    expect(endpoint.bind).toBe(`${endpoint.hostDir}:/run/coop-bench:ro`);
    expect(statSync(join(endpoint.hostDir, 'mcp.sock')).isSocket()).toBe(true);
    expect(statSync(join(endpoint.hostDir, 'mcp.sock')).mode & 0o777).toBe(0o666);
    expect(statSync(join(endpoint.hostDir, 'mcp-bridge.mjs')).mode & 0o777).toBe(0o644);
    expect(readFileSync(join(endpoint.hostDir, 'task.md'), 'utf8')).toBe('# Feature 2\nAdd --verbose.\n');
    // Its parent is private to this host user.
    expect(statSync(join(endpoint.hostDir, '..')).mode & 0o777).toBe(0o700);
  });

  it('is removed on close, and close can be called twice', async () => {
    await endpoint.close();
    await endpoint.close();
    expect(existsSync(join(endpoint.hostDir, '..'))).toBe(false);
  });
});

describe.each([
  { bridge: 'sh launcher (as mcp.json)', command: 'sh', args: ['/run/coop-bench/mcp-bridge.sh'], skip: false },
  { bridge: 'node', command: 'node', args: ['/run/coop-bench/mcp-bridge.mjs'], skip: false },
  { bridge: 'python3', command: 'python3', args: ['/run/coop-bench/mcp-bridge.py'], skip: !hasPython },
])('an MCP client through the $bridge bridge', ({ command, args, skip }) => {
  it.skipIf(skip)("reads the partner's messages in order and replies", async () => {
    const client = await connectClient(command, args);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['read_messages', 'send_message']);
    expect(client.getInstructions()).toMatch(/You are agent2\. Your partners \(agent1\)/);

    const agent1 = bus.mailbox(task, 'agent1', ['agent2']);
    agent1.send('agent2', 'I take src/parse.js lines 1-40');
    agent1.send('agent2', 'please keep out of parseFlags()');
    expect(textOf(await client.callTool({ name: 'read_messages', arguments: {} }))).toBe(
      '[Message from agent1]: I take src/parse.js lines 1-40\n\n[Message from agent1]: please keep out of parseFlags()',
    );
    expect(bus.conversation(task).map((m) => m.deliveredAt.agent2)).toEqual([expect.any(String), expect.any(String)]);
    expect(textOf(await client.callTool({ name: 'read_messages', arguments: {} }))).toBe('No new messages.');

    const woken = agent1.wait(10_000);
    expect(textOf(await client.callTool({ name: 'send_message', arguments: { to: 'agent1', message: 'agreed: I edit lines 41-80' } }))).toBe('Sent to agent1.');
    expect(await woken).toBe(true);
    expect(agent1.take().map((m) => [m.from, m.body])).toEqual([['agent2', 'agreed: I edit lines 41-80']]);
  });
});

describe('the message tools over MCP', () => {
  it('report a rejected send to the agent as a tool error', async () => {
    const client = await connectClient('node', ['/run/coop-bench/mcp-bridge.mjs']);
    const wrong = await client.callTool({ name: 'send_message', arguments: { to: 'agent3', message: 'hi' } });
    expect(wrong.isError).toBe(true);
    expect(textOf(wrong)).toMatch(/not among your partners: "agent3": use agent1 or "all"/);
    const long = await client.callTool({ name: 'send_message', arguments: { to: 'all', message: 'x'.repeat(10_001) } });
    expect(long.isError).toBe(true);
    expect(textOf(long)).toMatch(/over the limit of 10000/);
    const badWait = await client.callTool({ name: 'read_messages', arguments: { wait_seconds: 3600 } });
    expect(badWait.isError).toBe(true);
    expect(bus.conversation(task)).toEqual([]);
  });

  it('read_messages with wait_seconds returns as soon as a message arrives', async () => {
    const client = await connectClient('node', ['/run/coop-bench/mcp-bridge.mjs']);
    const reading = client.callTool({ name: 'read_messages', arguments: { wait_seconds: 20 } });
    await vi.waitFor(() => expect(waits).toHaveBeenCalled(), { timeout: 20_000 });
    bus.mailbox(task, 'agent1', ['agent2']).send('agent2', 'your turn');
    expect(textOf(await reading)).toBe('[Message from agent1]: your turn');
    // The message ended the wait, not its 20-second deadline.
    expect(await waits.mock.results[0]!.value).toBe(true);
  });

  it('a wait in progress ends when the endpoint closes', async () => {
    const client = await connectClient('node', ['/run/coop-bench/mcp-bridge.mjs']);
    const reading = client.callTool({ name: 'read_messages', arguments: { wait_seconds: 25 } }).catch((e: Error) => e);
    await vi.waitFor(() => expect(waits).toHaveBeenCalled(), { timeout: 20_000 });
    await endpoint.close();
    // Cancelled by the close, not ended by its 25-second deadline (that would resolve false).
    await expect(waits.mock.results[0]!.value).rejects.toBeDefined();
    await reading;
  });

  it('drops a connection that sends an endless line', async () => {
    const socket = connect(join(endpoint.hostDir, 'mcp.sock'));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
    const chunk = Buffer.alloc(64 * 1024, 'a');
    for (let i = 0; i < 8 && !socket.destroyed; i++) socket.write(chunk);
    await closed;
  });
});

describe('run conditions over MCP', () => {
  it("serves a condition's partner tools beside the message tools, and says what is left of a bandwidth", async () => {
    await endpoint.close();
    const view = new TeamView();
    view.stopped('agent1', Promise.resolve('diff --git a/src/a.js b/src/a.js\n+++ b/src/a.js\n+export const a = 1;\n'));
    const conditions = { bandwidth: { messages: 2, chars: 100 }, visibility: 'diff' as const };
    endpoint = await startMcpEndpoint({
      mailbox: bus.mailbox(task, 'agent2', ['agent1'], channelOf(conditions)),
      extraTools: conditionTools(conditions, ['agent1'], view),
    });
    const client = await connectClient('sh', ['/run/coop-bench/mcp-bridge.sh']);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['send_message', 'read_messages', 'partner_diff']);
    expect(textOf(await client.callTool({ name: 'send_message', arguments: { to: 'agent1', message: 'I take src/b.js' } }))).toBe(
      'Sent to agent1. You can send 1 more message in this task, each at most 100 characters.',
    );
    expect(textOf(await client.callTool({ name: 'partner_diff', arguments: {} }))).toBe(
      'agent1 has stopped; its final changes:\ndiff --git a/src/a.js b/src/a.js\n+++ b/src/a.js\n+export const a = 1;\n',
    );
    const wrong = await client.callTool({ name: 'partner_diff', arguments: { partner: 'agent3' } });
    expect(wrong.isError).toBe(true);
    expect(textOf(wrong)).toBe('Error: "agent3" is not one of your partners: use agent1');
  });
});
