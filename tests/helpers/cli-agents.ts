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

function script(pool: Pool, prompt: string): Action[] {
  const agentId = /You are (agent\d+)/.exec(prompt)?.[1] ?? 'agent1';
  const features = pool.features.filter((f) => prompt.includes(f.description.trim()));
  const patch = readFileSync(features.length === 1 ? features[0]!.patchPath : pool.combinedPatchPath!, 'utf8');
  const partner = /in parallel with another agent \((agent\d+)\)/.exec(prompt)?.[1];
  const talk = partner !== undefined && prompt.includes('read_messages');
  const title = features.map((f) => /# Title: (.*)/.exec(f.description)?.[1] ?? `feature ${f.id}`).join(' + ');
  return [
    ...(talk ? [{ kind: 'send', to: partner, message: `${agentId} here: I will implement "${title}" in src/.` } as const] : []),
    { kind: 'shell', command: ENV_PROBE },
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

/** Codex's tools: exec_command (it has no file tool for models without catalog metadata), and the MCP server's in the namespace mcp__coop_bench. */
function codexTurn(action: Action, tools: { name: string; tools?: { name: string }[] }[]): ResponseTurn {
  const usage = { input_tokens: USAGE.input, output_tokens: USAGE.output };
  const mcp = tools.find((t) => t.name === 'mcp__coop_bench')?.tools?.map((t) => t.name) ?? [];
  const top = tools.map((t) => t.name);
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

/** Handlers for the two fakes: each request gets the agent's next scripted action. */
export function scriptedCliAgents(pool: Pool, log?: (request: StreamRequest) => void) {
  const next = (request: StreamRequest): Action => {
    log?.(request);
    const { prompt, turns } = conversationOf(request);
    const actions = script(pool, prompt);
    return actions[Math.min(turns, actions.length - 1)]!;
  };
  return {
    anthropic: (request: StreamRequest) =>
      claudeTurn(
        next(request),
        (request.body.tools ?? []).map((t: { name: string }) => t.name),
      ),
    openai: (request: StreamRequest) => codexTurn(next(request), request.body.tools ?? []),
  };
}
