// An agent CLI (Claude Code, Codex...) working inside its container. The container keeps no
// network: the CLI's model API is the harness's model proxy (model-proxy.ts), reached through a
// unix socket in a mounted folder and relayed to the container's own loopback; its message tool is
// the harness's MCP server (harness/messaging/mcp-endpoint.ts). Everything here goes through the
// sandbox's exec and writeFile, whatever backs it.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Agent, AgentContext, AgentHostSetup, AgentOutcome } from '../types.ts';
import type { ModelCallRecord } from '../llm-agent.ts';
import type { ResolvedModel } from '../../models/resolve.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import { CONTAINER_DIR as MCP_DIR, mcpConfig, startMcpEndpoint, type McpEndpoint } from '../../messaging/mcp-endpoint.ts';
import { SERVER_NAME } from '../../messaging/mcp-server.ts';
import { WORKSPACE } from '../../../tasks/prompts.ts';
import { agentPrompts, loadAgentConfig, type AgentConfig } from '../config/agent-config.ts';
import { boundText } from '../../errors.ts';
import { packageDir } from './binaries.ts';
import { startModelProxy, type ModelProxy } from './model-proxy.ts';
import type { CliDefinition, CliPlatform } from './cli.ts';

/** Where the model proxy's folder (socket and relay) appears in the container. */
export const API_DIR = '/run/coop-bench-api';
/** The relay's port on the container's own loopback: no other machine can reach it. */
export const API_PORT = 48100;
const HOME = '/opt/coop-bench/home';
const RELAY_FILES = ['api-relay.sh', 'api-relay.mjs', 'api-relay.py'];
/** The event stream kept in memory (head and tail): steps are read as it comes, so this only bounds stderr and leftovers. */
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;
/** sun_path is 108 bytes on Linux, terminating NUL included. */
const MAX_SOCKET_PATH = 107;

export const DEFAULT_CLI_TIMEOUT_MS = 60 * 60_000;

export interface CliAgentOptions {
  /** Prompt templates and the step limit, as for the harness's own agent (default: the shipped configuration). */
  config?: AgentConfig;
  /** Wall-clock limit of one CLI run. */
  timeoutMs?: number;
  /** The agent's model and where it is served (key, base URL, price): the proxy's one upstream. */
  upstream: ResolvedModel;
  onModelCall?: (call: ModelCallRecord) => void;
  /** Progress lines (a CLI build fetched on first use). */
  log?: (line: string) => void;
}

interface HostSide {
  proxy: ModelProxy;
  endpoint?: McpEndpoint;
}

export class CliAgent implements Agent {
  private host?: HostSide;
  private readonly config: AgentConfig;

  constructor(
    readonly model: string,
    private readonly cli: CliDefinition,
    private readonly modelId: string,
    private readonly options: CliAgentOptions,
  ) {
    this.config = options.config ?? loadAgentConfig();
  }

  async prepare(context: Omit<AgentContext, 'sandbox' | 'trajectory'>): Promise<AgentHostSetup> {
    const root = mkdtempSync(join(tmpdir(), 'coop-bench-api-'));
    leftovers.add(root);
    const folder = join(root, context.agentId);
    let endpoint: McpEndpoint | undefined;
    try {
      mkdirSync(folder, { mode: 0o755 });
      const socketPath = join(folder, 'api.sock');
      if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH)
        throw new Error(`the model socket path ${socketPath} is longer than ${MAX_SOCKET_PATH} bytes: set a shorter TMPDIR`);
      for (const file of RELAY_FILES) copyFileSync(fileURLToPath(new URL(`./relay/${file}`, import.meta.url)), join(folder, file));
      const proxy = await startModelProxy({
        provider: this.cli.provider,
        socketPath,
        upstream: this.options.upstream,
        maxCalls: this.config.stepLimit,
        onModelCall: ({ model, usage }) => this.options.onModelCall?.({ agentId: context.agentId, model, usage }),
      });
      endpoint = context.mailbox
        ? await startMcpEndpoint({ mailbox: context.mailbox, extraTools: context.extraTools }).catch(async (error) => {
            await proxy.close();
            throw error;
          })
        : undefined;
      this.host = { proxy, endpoint };
      return {
        mounts: [{ hostPath: folder, containerPath: API_DIR }, ...(endpoint ? [{ hostPath: endpoint.hostDir, containerPath: MCP_DIR }] : [])],
        release: async () => {
          await proxy.close();
          await endpoint?.close();
          remove(root);
        },
      };
    } catch (error) {
      remove(root);
      throw error;
    }
  }

  async run(context: AgentContext): Promise<AgentOutcome> {
    const { sandbox, trajectory, signal } = context;
    if (!this.host) throw new Error(`${this.cli.name}: run() before prepare()`);
    const { proxy, endpoint } = this.host;
    await this.install(sandbox);

    // The task prompt of the shipped templates with the CLI's wording; the CLI keeps its own system prompt.
    const prompt = agentPrompts(this.config, {
      agentId: context.agentId,
      features: context.features,
      partners: context.partners,
      messaging: context.mailbox !== undefined,
      gitRemotes: context.gitRemotes,
      tools: 'cli',
      partnerTools: context.extraTools?.map((t) => t.name),
    }).task;
    const server = mcpConfig().mcpServers[SERVER_NAME]!;
    const launch = this.cli.launch({
      model: this.modelId,
      prompt,
      maxSteps: this.config.stepLimit,
      apiURL: `http://127.0.0.1:${API_PORT}`,
      mcpConfigPath: endpoint ? `${MCP_DIR}/mcp.json` : undefined,
      mcpServer: endpoint ? { name: SERVER_NAME, ...server } : undefined,
      home: HOME,
    });
    for (const file of launch.files) await sandbox.writeFile(file.path, file.content);
    await sandbox.exec(['mkdir', '-p', HOME]);

    const reader = this.cli.reader(trajectory);
    const lines = new LineSplitter((line) => {
      let event: unknown;
      try {
        event = JSON.parse(line);
      } catch {
        return; // a line that is not an event (a warning printed to stdout)
      }
      if (event !== null && typeof event === 'object') reader.line(event);
    });
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_CLI_TIMEOUT_MS;
    const result = await sandbox.exec(['sh', `${API_DIR}/api-relay.sh`, String(API_PORT), ...launch.command], {
      cwd: WORKSPACE,
      env: { ...launch.env, HOME },
      timeoutMs,
      maxOutputBytes: MAX_OUTPUT_BYTES,
      signal,
      onStdout: (chunk) => lines.push(chunk),
    });
    lines.end();
    const ending = reader.ending();
    const stderr = boundText(result.stderr.trim(), 2000);
    if (stderr) trajectory.record({ kind: 'note', name: 'stderr', output: stderr });

    if (proxy.stepLimitReached) return { status: 'step_limit', error: `stopped after ${this.config.stepLimit} model calls` };
    // The CLI stopped on a refusal, as the built-in agent does: resending gets more refusals.
    if (proxy.lastCallDeclined) return { status: 'refused', error: `the model declined to go on, on its provider's safety policy (its last answer)` };
    if (result.timedOut) return { status: 'error', error: `${this.cli.name} did not finish within ${Math.round(timeoutMs / 60_000)} min` };
    if (result.exitCode === 0 && ending?.status === 'finished') return { status: 'finished' };
    // The CLI gave up because the provider kept failing: infrastructure, as for the built-in agent.
    if (proxy.lastFailure) throw proxy.lastFailure;
    if (ending?.status === 'step_limit') return { status: 'step_limit', error: ending.error };
    const why = ending?.error ?? (stderr.split('\n').slice(-3).join(' ') || 'no final event');
    return { status: 'error', error: `${this.cli.name} exited with code ${result.exitCode}: ${why}`.slice(0, 1000) };
  }

  /** Copies the CLI build for the container's platform in (fetched on first use). */
  private async install(sandbox: Sandbox): Promise<void> {
    const build = this.cli.build(await platformOf(sandbox));
    const dir = await packageDir(build.packageName, { log: this.options.log });
    for (const file of build.files) await sandbox.writeFile(file.to, { hostPath: join(dir, file.from), mode: 0o755 });
  }
}

/** Folders of proxies not released yet: removed at any exit Node sees (as the MCP endpoint's). */
const leftovers = new Set<string>();
process.once('exit', () => leftovers.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function remove(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  leftovers.delete(dir);
}

async function platformOf(sandbox: Sandbox): Promise<CliPlatform> {
  const probe = await sandbox.exec(['sh', '-c', 'uname -m; ls /lib/ld-musl-* 2>/dev/null || true']);
  const [machine = '', musl = ''] = probe.stdout.split('\n');
  const arch = machine === 'x86_64' || machine === 'amd64' ? 'x64' : machine === 'aarch64' || machine === 'arm64' ? 'arm64' : undefined;
  if (!arch) throw new Error(`agent CLIs have builds for x86_64 and aarch64 containers, not ${machine || 'this one'}`);
  return { arch, libc: musl.trim() ? 'musl' : 'glibc' };
}

/** Splits a byte stream into lines (UTF-8 safe across chunks); a line longer than 16 MiB is dropped. */
class LineSplitter {
  private readonly decoder = new TextDecoder();
  private pending = '';

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer): void {
    this.pending += this.decoder.decode(chunk, { stream: true });
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    if (this.pending.length > 16 * 1024 * 1024) this.pending = '';
    for (const line of lines) if (line.trim()) this.onLine(line);
  }

  end(): void {
    if (this.pending.trim()) this.onLine(this.pending);
    this.pending = '';
  }
}
