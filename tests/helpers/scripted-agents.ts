// A scripted "model" for the fake OpenAI and Anthropic servers that behaves like a competent agent:
// it reads the real task prompt, finds its feature(s), announces a plan to its partner, writes the
// gold patch with the editor tool, applies it with bash, reports and finishes. Every action goes
// through the harness's real tools, container and message bus.
import { readFileSync } from 'node:fs';
import type { Pool } from '../../tasks/types.ts';
import { chatReply, type FakeReply, type RecordedRequest } from '../fakes/openai-server.ts';
import { messageReply } from '../fakes/anthropic-server.ts';

interface Action {
  name: string;
  input: Record<string, unknown>;
}

type Protocol = 'openai' | 'anthropic';

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'object' && part && 'text' in part ? String(part.text) : typeof part === 'object' && part && 'content' in part ? textOf(part.content) : '')).join('\n');
  return '';
}

/** The first user message: the task prompt. */
function taskPrompt(request: RecordedRequest): string {
  const first = (request.body.messages as { role: string; content: unknown }[]).find((m) => m.role === 'user');
  return textOf(first?.content);
}

function turnsSoFar(request: RecordedRequest): number {
  return (request.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;
}

/** Everything the agent has been told so far (tool results and partner messages included). */
export function transcript(request: RecordedRequest): string {
  return (request.body.messages as { content: unknown }[]).map((m) => textOf(m.content)).join('\n');
}

/** Pacing for throughput benchmarks: every agent makes exactly `steps` model calls, each answered after `delayMs`. */
export interface Pace {
  steps: number;
  delayMs: number;
}

/** What an agent does while it reads the code before changing it: cheap commands, as real agents run. */
function readingSteps(patch: string, count: number): Action[] {
  const file = /^\+\+\+ b\/(.+)$/m.exec(patch)?.[1] ?? 'README.md';
  const commands = ['ls -la', 'git status --short', `cat ${file}`, 'grep -rn "function\\|def " --include=*.js --include=*.py . | head -40', `sed -n '1,60p' ${file}`, 'git log --oneline -3', 'wc -l $(git ls-files) | tail -1'];
  return Array.from({ length: count }, (_, i) => ({ name: 'bash', input: { command: commands[i % commands.length] } }));
}

/** The script of one agent, from what its prompt says it is; padded with reading steps to `steps` actions. */
function script(pool: Pool, prompt: string, steps = 0): Action[] {
  const agentId = /You are (agent\d+)/.exec(prompt)?.[1];
  const features = pool.features.filter((f) => prompt.includes(f.description.trim()));
  const patchPath = features.length === 1 ? features[0].patchPath : pool.combinedPatchPath!;
  const partner = /in parallel with another agent \((agent\d+)\)/.exec(prompt)?.[1];
  const canTalk = partner !== undefined && prompt.includes('send_message');
  const title = features.map((f) => /# Title: (.*)/.exec(f.description)?.[1] ?? `feature ${f.id}`).join(' + ');
  const patch = readFileSync(patchPath, 'utf8');
  const work: Action[] = [
    ...(canTalk ? [{ name: 'send_message', input: { to: partner, message: `${agentId} here: I will implement "${title}" in src/.` } }] : []),
    { name: 'str_replace_based_edit_tool', input: { command: 'create', path: '/tmp/work.patch', file_text: patch } },
    { name: 'bash', input: { command: 'git apply /tmp/work.patch && rm /tmp/work.patch && git status --short' } },
    ...(canTalk ? [{ name: 'send_message', input: { to: partner, message: `${agentId} status: "${title}" is implemented.` } }] : []),
    { name: 'finish', input: { summary: `implemented ${title}` } },
  ];
  return [...readingSteps(patch, Math.max(0, steps - work.length)), ...work];
}

/** A handler for either fake server: answers each request with the agent's next scripted action. */
export function scriptedAgents(pool: Pool, protocol: Protocol, log?: (request: RecordedRequest) => void, pace?: Pace) {
  return (request: RecordedRequest): FakeReply => {
    log?.(request);
    const actions = script(pool, taskPrompt(request), pace?.steps);
    const action = actions[Math.min(turnsSoFar(request), actions.length - 1)];
    const usage = { prompt: 1200, completion: 80 };
    const reply = protocol === 'openai'
      ? chatReply(null, { toolCalls: [{ name: action.name, arguments: action.input }], usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion } })
      : messageReply(null, { toolUses: [{ name: action.name, input: action.input }], usage: { input_tokens: usage.prompt, output_tokens: usage.completion } });
    return { ...reply, delayMs: pace?.delayMs };
  };
}
