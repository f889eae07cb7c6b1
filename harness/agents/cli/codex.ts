// Codex CLI (`codex[:<model>]`): the static binary of @openai/codex, run with `codex exec --json`.
// Its provider and MCP server come from a config.toml in its own home (CODEX_HOME). Keys and flags:
// developers.openai.com/codex (config reference, non-interactive mode); checked against the pinned
// version's own --help.
import type { CliDefinition, EventReader, LaunchContext } from './cli.ts';
import { field, text } from './cli.ts';
import type { Trajectory } from '../trajectory.ts';

const ROOT = '/opt/coop-bench/codex';
const TRIPLES = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' } as const;
const PROVIDER_ID = 'coop-bench';
const TITLE = 'Codex CLI 0.169.0';

// The "slug"s of the model catalogue bundled in the pinned binary (`strings` on
// vendor/x86_64-unknown-linux-musl/bin/codex, its `{"models": [...]}` JSON). With a model not in it
// Codex warns, falls back to generic settings and offers no apply_patch tool. Every one but
// gpt-5.5 has `use_responses_lite: true` and `tool_mode: "code_mode_only"`: Codex then sends the
// `x-openai-internal-codex-responses-lite` header, omits `tools` and `instructions` (keeping
// `tool_choice: "auto"`), and puts its one tool, a JavaScript `exec` run by the
// codex-code-mode-host binary (not installed here), in an `additional_tools` input item. The
// public Responses API reference documents neither; public reports show that form leaving `codex
// exec` without tools, against OpenAI's own service too (github.com/openai/codex/issues/31894,
// /41145) and through Responses-compatible proxies (/34758, /31870; Soju06/codex-lb#1157).
// gpt-5.5 (`use_responses_lite: false`, `tool_mode: null`) gets standard requests: its tools in
// `tools`, exec_command, apply_patch and the MCP servers' tools called directly.
const CATALOGUE_SLUGS = [
  'gpt-6-astra',
  'gpt-6.1-sol',
  'gpt-6.1-terra',
  'gpt-6-sol',
  'gpt-6-luna',
  'gpt-5.6-sol',
  'gpt-5.6-terra',
  'gpt-5.6-luna',
  'gpt-5.5',
  'gpt-daybreak-blue-latest',
  'gpt-daybreak-red-latest',
  'codex-auto-review',
];
const STANDARD_MODEL = 'gpt-5.5';

/** TOML basic strings accept JSON's escapes. */
const toml = (value: string) => JSON.stringify(value);

function configToml({ model, apiURL, mcpServer }: LaunchContext): string {
  return [
    `model = ${toml(model)}`,
    `model_provider = ${toml(PROVIDER_ID)}`,
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    // No hosted web search (on by default for gpt-5.5): the provider would search the web for the
    // agent, which no agent of a run may do (its container has no network). The pinned binary takes
    // "disabled" and refuses to load a configuration with an unknown value.
    'web_search = "disabled"',
    '',
    `[model_providers.${PROVIDER_ID}]`,
    `name = ${toml(PROVIDER_ID)}`,
    `base_url = ${toml(`${apiURL}/v1`)}`,
    'env_key = "OPENAI_API_KEY"',
    'wire_api = "responses"',
    // `required`: Codex otherwise starts MCP servers in the background and may take its first
    // turns without the message tool.
    ...(mcpServer
      ? [
          '',
          `[mcp_servers.${toml(mcpServer.name)}]`,
          `command = ${toml(mcpServer.command)}`,
          `args = [${mcpServer.args.map(toml).join(', ')}]`,
          'required = true',
          'startup_timeout_sec = 60',
        ]
      : []),
    '',
  ].join('\n');
}

export const codex: CliDefinition = {
  name: 'codex',
  title: TITLE,
  provider: 'openai',
  // The one model of the pinned catalogue it runs with standard Responses requests (below).
  defaultModel: 'gpt-5.5',
  degradedOn: (model) => {
    if (!CATALOGUE_SLUGS.includes(model))
      return `${TITLE} does not know ${model} (its bundled model catalogue lists ${CATALOGUE_SLUGS.join(', ')}): it would run it on fallback settings, without the tools it gives the models it knows; name ${STANDARD_MODEL}`;
    if (model !== STANDARD_MODEL)
      return `${TITLE} runs ${model} in Responses Lite mode, an OpenAI-internal request form (its tools in an additional_tools input item, not in tools; a code-mode exec tool run by a host coop-bench does not install) that the public Responses API does not document and that is reported to leave codex exec without tools (github.com/openai/codex/issues/31894); name ${STANDARD_MODEL}, which it runs with standard requests and direct tools`;
    return undefined;
  },

  // Static musl builds: one per architecture runs in any image.
  build: ({ arch }) => {
    const vendor = `vendor/${TRIPLES[arch]}`;
    return {
      packageName: `@openai/codex-linux-${arch}`,
      files: [
        { from: `${vendor}/bin/codex`, to: `${ROOT}/bin/codex` },
        { from: `${vendor}/codex-path/rg`, to: `${ROOT}/codex-path/rg` },
        { from: `${vendor}/codex-package.json`, to: `${ROOT}/codex-package.json` },
      ],
    };
  },

  launch: (context) => ({
    // The container is the sandbox: no approvals (nobody would answer), no sandbox of its own.
    command: [`${ROOT}/bin/codex`, 'exec', '--json', '--dangerously-bypass-approvals-and-sandbox', '--skip-git-repo-check', context.prompt],
    env: {
      CODEX_HOME: `${context.home}/.codex`,
      // A placeholder: the model proxy replaces it with the real key outside the container.
      OPENAI_API_KEY: 'coop-bench-proxy',
    },
    files: [{ path: `${context.home}/.codex/config.toml`, content: configToml(context) }],
  }),

  reader: (trajectory) => new CodexEvents(trajectory),
};

type Item = Record<string, unknown>;

/** `codex exec --json`: thread and turn events, and `item.completed` for each thing the agent did. */
class CodexEvents implements EventReader {
  private end: ReturnType<EventReader['ending']>;

  constructor(private readonly trajectory: Trajectory) {}

  line(event: unknown): void {
    const type = (event as Item | null)?.type;
    if (type === 'item.completed') this.item(field(event, 'item') ?? {});
    else if (type === 'turn.completed') this.end = { status: 'finished' };
    else if (type === 'turn.failed') this.end = { status: 'error', error: `Codex: ${text(field(event, 'error')?.message).slice(0, 500)}` };
    else if (type === 'error') this.end = { status: 'error', error: `Codex: ${text((event as Item).message).slice(0, 500)}` };
  }

  private item(item: Item): void {
    const record = this.trajectory.record.bind(this.trajectory);
    switch (item.type) {
      case 'agent_message':
        record({ kind: 'model', output: text(item.text) });
        break;
      case 'reasoning':
        record({ kind: 'model', name: 'reasoning', output: text(item.text) });
        break;
      case 'command_execution':
        record({
          kind: 'tool',
          name: 'exec_command',
          input: text(item.command),
          output: text(item.aggregated_output),
          exitCode: typeof item.exit_code === 'number' ? item.exit_code : undefined,
        });
        break;
      case 'file_change':
        record({ kind: 'tool', name: 'apply_patch', input: item.changes, output: text(item.status), exitCode: item.status === 'failed' ? 1 : 0 });
        break;
      case 'mcp_tool_call': {
        const result = field(item, 'result');
        const content = Array.isArray(result?.content) ? result.content.map((c: Item | null) => text(c?.text ?? c)).join('\n') : '';
        record({
          kind: 'tool',
          name: `mcp__${text(item.server)}__${text(item.tool)}`,
          input: item.arguments,
          output: content || text(field(item, 'error')?.message),
          exitCode: item.status === 'failed' ? 1 : 0,
        });
        break;
      }
      case 'web_search':
        record({ kind: 'tool', name: 'web_search', input: text(item.query) });
        break;
      default:
        record({ kind: 'note', name: text(item.type), output: text(item.message ?? item.text ?? item) });
    }
  }

  ending() {
    return this.end;
  }
}
