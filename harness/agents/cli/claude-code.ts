// Claude Code (`claude-code[:<model>]`): the native binary of @anthropic-ai/claude-code, run in
// print mode with its stream-json events. Flags and variables: code.claude.com/docs (CLI reference,
// env vars); checked against the pinned version's own --help.
import type { CliDefinition, EventReader } from './cli.ts';
import { field, text } from './cli.ts';
import type { Trajectory } from '../trajectory.ts';

const BINARY = '/opt/coop-bench/claude-code/claude';

export const claudeCode: CliDefinition = {
  name: 'claude-code',
  title: 'Claude Code 2.1.330',
  provider: 'anthropic',
  // The current Sonnet. The binary names models only inside minified code, not as a list this
  // harness can read: any model runs, and the catalogue still refuses a retired one.
  defaultModel: 'claude-sonnet-5-5',

  // Separate glibc and musl builds, each dynamically linked against its libc.
  build: ({ arch, libc }) => ({
    packageName: `@anthropic-ai/claude-code-linux-${arch}${libc === 'musl' ? '-musl' : ''}`,
    files: [{ from: 'claude', to: BINARY }],
  }),

  launch: ({ model, prompt, maxSteps, apiURL, mcpConfigPath }) => ({
    command: [
      BINARY,
      '-p',
      prompt,
      '--output-format',
      'stream-json',
      '--verbose',
      '--model',
      model,
      '--max-turns',
      String(maxSteps),
      // The container is the sandbox: no permission prompts (nobody would answer them).
      '--dangerously-skip-permissions',
      // Only our message server, never a project's .mcp.json.
      '--strict-mcp-config',
      ...(mcpConfigPath ? ['--mcp-config', mcpConfigPath] : []),
    ],
    env: {
      ANTHROPIC_BASE_URL: apiURL,
      // A placeholder: the model proxy replaces it with the real key outside the container.
      ANTHROPIC_API_KEY: 'coop-bench-proxy',
      // --dangerously-skip-permissions refuses to run as root outside a declared sandbox.
      IS_SANDBOX: '1',
      // With a non-Anthropic base URL, MCP tools would otherwise be deferred behind a tool search.
      ENABLE_TOOL_SEARCH: 'false',
      // MCP server start-up (ms): the bridge starts the container's node or python3, slow on a busy machine.
      MCP_TIMEOUT: '60000',
      // No telemetry, update checks or error reports: there is no network to send them on.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      // Background and sub-agent calls use the same model as the agent.
      ANTHROPIC_DEFAULT_OPUS_MODEL: model,
      ANTHROPIC_DEFAULT_SONNET_MODEL: model,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
      CLAUDE_CODE_SUBAGENT_MODEL: model,
    },
    files: [],
  }),

  reader: (trajectory) => new ClaudeEvents(trajectory),
};

type Block = Record<string, unknown>;

function blocks(message: Record<string, unknown> | undefined): Block[] {
  const content = message?.content;
  return Array.isArray(content) ? content.filter((b): b is Block => b !== null && typeof b === 'object') : [];
}

/** A tool result's content: a string, or text blocks. */
function resultText(content: unknown): string {
  if (!Array.isArray(content)) return text(content);
  return content.map((b) => (b && typeof b === 'object' && 'text' in b ? text((b as Block).text) : text(b))).join('\n');
}

/**
 * stream-json: `system` (init), `assistant` (a model turn: text and tool_use blocks), `user` (the
 * tool_result blocks answering them), and a final `result`.
 */
class ClaudeEvents implements EventReader {
  private readonly calls = new Map<string, { name: string; input: unknown }>();
  private end: ReturnType<EventReader['ending']>;

  constructor(private readonly trajectory: Trajectory) {}

  line(event: unknown): void {
    const type = (event as Block | null)?.type;
    if (type === 'system' && (event as Block).subtype === 'init') {
      const init = event as Block;
      const servers = Array.isArray(init.mcp_servers) ? init.mcp_servers.map((s: Block | null) => `${text(s?.name)} ${text(s?.status)}`) : [];
      this.trajectory.record({
        kind: 'note',
        name: 'start',
        output: `Claude Code ${text(init.claude_code_version)}, model ${text(init.model)}; MCP servers: ${servers.join(', ') || 'none'}`,
      });
    } else if (type === 'assistant') {
      const content = blocks(field(event, 'message'));
      const toolCalls = content
        .filter((b) => b.type === 'tool_use')
        .map((b) => {
          this.calls.set(text(b.id), { name: text(b.name), input: b.input });
          return { id: text(b.id), name: text(b.name), arguments: JSON.stringify(b.input ?? {}) };
        });
      const said = content
        .filter((b) => b.type === 'text')
        .map((b) => text(b.text))
        .join('\n');
      if (said || toolCalls.length) this.trajectory.record({ kind: 'model', output: said, input: toolCalls.length ? toolCalls : undefined });
    } else if (type === 'user') {
      for (const result of blocks(field(event, 'message')).filter((b) => b.type === 'tool_result')) {
        const call = this.calls.get(text(result.tool_use_id));
        this.trajectory.record({
          kind: 'tool',
          name: call?.name ?? 'unknown',
          input: call?.input,
          output: resultText(result.content),
          exitCode: result.is_error === true ? 1 : 0,
        });
      }
    } else if (type === 'result') {
      const result = event as Block;
      const subtype = text(result.subtype);
      if (subtype === 'success' && result.is_error !== true) this.end = { status: 'finished' };
      else if (subtype === 'error_max_turns') this.end = { status: 'step_limit', error: 'Claude Code stopped at --max-turns' };
      else this.end = { status: 'error', error: `Claude Code: ${subtype}${result.result ? `: ${text(result.result).slice(0, 500)}` : ''}` };
    }
  }

  ending() {
    return this.end;
  }
}
