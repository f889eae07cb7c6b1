// The MCP message tool from inside real agent containers with `--network none`: the SDK client
// runs the command of /run/coop-bench/mcp.json through `docker exec -i`, as an agent CLI would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineAt, requireEngine } from '../../harness/sandbox/docker/engine.ts';
import { poolImage } from '../../harness/sandbox/docker/images.ts';
import { DockerSandbox } from '../../harness/sandbox/docker/sandbox.ts';
import { DEFAULT_LIMITS } from '../../harness/sandbox/types.ts';
import { containerLabels } from '../../harness/sandbox/labels.ts';
import { MessageBus } from '../../harness/messaging/bus.ts';
import { startMcpEndpoint, type McpEndpoint } from '../../harness/messaging/mcp-endpoint.ts';
import { RunStore } from '../../harness/store/run-store.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';
import { loadPool } from '../../tasks/pools.ts';

const RUN = 'mcp-integration';
let dir: string;
let store: RunStore;
let bus: MessageBus;

beforeAll(async () => {
  await requireEngine();
  dir = mkdtempSync(join(tmpdir(), 'coop-bench-mcp-it-'));
  store = RunStore.open(dir, RUN, { create: true });
  bus = new MessageBus(store);
});

afterAll(() => {
  store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as { type: string; text: string }[]).map((c) => c.text).join('');
}

// argkit's image has node (18) and no python; tabulite's has python3 and no node: the launcher in
// mcp.json must pick the bridge each can run.
describe.each([
  { pool: 'argkit_task/task1', runtime: 'node' },
  { pool: 'tabulite_task/task1', runtime: 'python3' },
])('an agent CLI in a $pool container (no network, $runtime)', ({ pool: poolPath, runtime }) => {
  it("sees its partner's messages and answers them through MCP", async () => {
    const pool = loadPool(join(SHIPPED_POOLS, poolPath));
    const image = await poolImage(engineAt(), pool, { log: (line) => console.log(line) });
    const taskId = store.ensureTask({ pool, features: [1, 2], setting: 'coop', models: ['external', 'noop'], variant: '' }).id;
    const agent2 = bus.mailbox(taskId, 'agent2', ['agent1']);

    let endpoint: McpEndpoint | undefined;
    let sandbox: DockerSandbox | undefined;
    let client: Client | undefined;
    try {
      endpoint = await startMcpEndpoint({ mailbox: bus.mailbox(taskId, 'agent1', ['agent2']) });
      sandbox = await DockerSandbox.start(image.engine, {
        image: image.id,
        labels: containerLabels(RUN, 'agent'),
        limits: DEFAULT_LIMITS,
        network: 'none',
        binds: [endpoint.bind],
      });

      // Really without network: only the loopback interface, and the engine agrees.
      expect((await sandbox.container.inspect()).HostConfig.NetworkMode).toBe('none');
      const interfaces = await sandbox.exec(['sh', '-c', "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '"]);
      expect(interfaces.stdout.trim().split('\n')).toEqual(['lo']);
      const which = await sandbox.exec(['sh', '-c', 'command -v node || command -v python3']);
      expect(which.stdout).toContain(runtime);
      // The mount is read-only: an agent cannot swap the bridge the next connection runs.
      expect((await sandbox.exec(['sh', '-c', 'echo x > /run/coop-bench/mcp-bridge.mjs'])).exitCode).not.toBe(0);

      const config = JSON.parse(await sandbox.readFile('/run/coop-bench/mcp.json'));
      const server = config.mcpServers['coop-bench'] as { command: string; args: string[] };
      // As an unprivileged user (agent CLIs often run as one; with userns remapping even root is one).
      client = new Client({ name: 'test-agent-cli', version: '0' });
      await client.connect(
        new StdioClientTransport({
          command: 'docker',
          args: ['exec', '-i', '--user', '65534:65534', sandbox.id, server.command, ...server.args],
          stderr: 'pipe',
        }),
      );
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['read_messages', 'send_message']);

      agent2.send('agent1', 'I will change src/format.* lines 10-30 only');
      agent2.send('agent1', 'tell me which functions you touch');
      expect(textOf(await client.callTool({ name: 'read_messages', arguments: {} }))).toBe(
        '[Message from agent2]: I will change src/format.* lines 10-30 only\n\n[Message from agent2]: tell me which functions you touch',
      );

      const reply = agent2.wait(30_000);
      expect(textOf(await client.callTool({ name: 'send_message', arguments: { to: 'agent2', message: 'only parseArgs(), lines 50-70' } }))).toBe(
        'Sent to agent2.',
      );
      expect(await reply).toBe(true);
      expect(agent2.take().map((m) => [m.from, m.body])).toEqual([['agent1', 'only parseArgs(), lines 50-70']]);

      const waiting = client.callTool({ name: 'read_messages', arguments: { wait_seconds: 20 } });
      setTimeout(() => agent2.send('agent1', 'thanks, final status: done'), 200);
      expect(textOf(await waiting)).toBe('[Message from agent2]: thanks, final status: done');

      const conversation = bus.conversation(taskId);
      expect(conversation.map((m) => [m.from, m.to])).toEqual([
        ['agent2', ['agent1']],
        ['agent2', ['agent1']],
        ['agent1', ['agent2']],
        ['agent2', ['agent1']],
      ]);
      expect(conversation.every((m) => Object.values(m.deliveredAt).every((t) => t !== null))).toBe(true);
    } finally {
      await client?.close();
      await sandbox?.remove();
      await endpoint?.close();
    }
  });
});
