// A scripted "model" for the fake OpenAI and Anthropic servers that behaves like a competent agent:
// it reads the real task prompt, finds its feature(s), announces a plan to its partner, writes the
// gold patch with the editor tool, applies it with bash, reports and finishes. Every action goes
// through the harness's real tools, container and message bus.
import { readFileSync } from 'node:fs';
import type { Pool } from '../../tasks/types.ts';
import { chatReply, type FakeReply, type RecordedRequest } from '../fakes/openai-server.ts';
import { messageReply } from '../fakes/anthropic-server.ts';

export interface Action {
  name: string;
  input: Record<string, unknown>;
}

type Protocol = 'openai' | 'anthropic';

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part) =>
        typeof part === 'object' && part && 'text' in part
          ? String(part.text)
          : typeof part === 'object' && part && 'content' in part
            ? textOf(part.content)
            : '',
      )
      .join('\n');
  return '';
}

interface Item {
  role?: string;
  type?: string;
  content?: unknown;
  output?: unknown;
}

/** The conversation of a request: Chat Completions and Messages `messages`, or Responses `input` items. */
function itemsOf(request: RecordedRequest): Item[] {
  const { messages, input } = request.body;
  return Array.isArray(messages) ? messages : Array.isArray(input) ? input : [{ role: 'user', content: input }];
}

const isModelOutput = (item: Item) => item.role === 'assistant' || item.type === 'function_call' || item.type === 'reasoning';

/** The first user message: the task prompt. */
export function taskPrompt(request: RecordedRequest): string {
  return textOf(itemsOf(request).find((m) => m.role === 'user')?.content);
}

/** How many answers the model has given so far (Responses: runs of reasoning, message and call items). */
function turnsSoFar(request: RecordedRequest): number {
  return itemsOf(request).filter((item, i, all) => isModelOutput(item) && !(i > 0 && isModelOutput(all[i - 1]!))).length;
}

/** Everything the agent has been told so far (tool results and partner messages included). */
export function transcript(request: RecordedRequest): string {
  return itemsOf(request)
    .map((m) => textOf(m.content ?? m.output))
    .join('\n');
}

/** Pacing for throughput benchmarks: every agent makes exactly `steps` model calls, each answered after `delayMs`. */
export interface Pace {
  steps: number;
  delayMs: number;
}

/** The agent's id (`agent1`...) as its prompt states it. */
export function agentIdOf(prompt: string): string | undefined {
  return /You are (agent\d+)/.exec(prompt)?.[1];
}

/** The gold patch of the agent's feature (Solo: the combined patch). */
function goldPatch(pool: Pool, prompt: string): string {
  const features = pool.features.filter((f) => prompt.includes(f.description.trim()));
  return readFileSync(features.length === 1 ? features[0].patchPath : pool.combinedPatchPath!, 'utf8');
}

/** Writes the gold patch of the agent's feature with the editor, applies it with bash. */
export function implement(pool: Pool, prompt: string): Action[] {
  return [
    { name: 'str_replace_based_edit_tool', input: { command: 'create', path: '/tmp/work.patch', file_text: goldPatch(pool, prompt) } },
    { name: 'bash', input: { command: 'git apply /tmp/work.patch && rm /tmp/work.patch && git status --short' } },
  ];
}

/** What an agent does while it reads the code before changing it: cheap commands, as real agents run. */
function readingSteps(patch: string, count: number): Action[] {
  const file = /^\+\+\+ b\/(.+)$/m.exec(patch)?.[1] ?? 'README.md';
  const commands = [
    'ls -la',
    'git status --short',
    `cat ${file}`,
    'grep -rn "function\\|def " --include=*.js --include=*.py . | head -40',
    `sed -n '1,60p' ${file}`,
    'git log --oneline -3',
    'wc -l $(git ls-files) | tail -1',
  ];
  return Array.from({ length: count }, (_, i) => ({ name: 'bash', input: { command: commands[i % commands.length] } }));
}

/** A competent agent: announces its plan to its partner, implements, reports and finishes; padded with reading steps to `steps` actions. */
export function competentScript(pool: Pool, prompt: string, steps = 0): Action[] {
  const agentId = agentIdOf(prompt);
  const features = pool.features.filter((f) => prompt.includes(f.description.trim()));
  const partner = /in parallel with another agent \((agent\d+)\)/.exec(prompt)?.[1];
  const canTalk = partner !== undefined && prompt.includes('send_message');
  const title = features.map((f) => /# Title: (.*)/.exec(f.description)?.[1] ?? `feature ${f.id}`).join(' + ');
  const work: Action[] = [
    ...(canTalk ? [{ name: 'send_message', input: { to: partner, message: `${agentId} here: I will implement "${title}" in src/.` } }] : []),
    ...implement(pool, prompt),
    ...(canTalk ? [{ name: 'send_message', input: { to: partner, message: `${agentId} status: "${title}" is implemented.` } }] : []),
    { name: 'finish', input: { summary: `implemented ${title}` } },
  ];
  return [...readingSteps(goldPatch(pool, prompt), Math.max(0, steps - work.length)), ...work];
}

/**
 * The reply that makes the agent take `action`, in either server's format (the OpenAI fake renders it
 * for Chat Completions or the Responses API). Usage is the fakes' own count, prompt cache included.
 */
export function actionReply(protocol: Protocol, action: Action): FakeReply {
  return protocol === 'openai'
    ? chatReply(null, { toolCalls: [{ name: action.name, arguments: action.input }] })
    : messageReply(null, { toolUses: [{ name: action.name, input: action.input }] });
}

/** The action for this turn of a script (the last one again once the script is done). */
export function nextAction(actions: Action[], request: RecordedRequest): Action {
  return actions[Math.min(turnsSoFar(request), actions.length - 1)];
}

/**
 * A handler for either fake server: answers each request with the agent's next scripted action. With
 * several pools, the agent works on the pool whose feature its prompt describes.
 */
export function scriptedAgents(pools: Pool | Pool[], protocol: Protocol, log?: (request: RecordedRequest) => void, pace?: Pace, hearsPartnerFirst = false) {
  const candidates = Array.isArray(pools) ? pools : [pools];
  return (request: RecordedRequest): FakeReply => {
    log?.(request);
    const prompt = taskPrompt(request);
    const pool = candidates.find((p) => p.features.some((f) => prompt.includes(f.description.trim()))) ?? candidates[0]!;
    const action = nextAction(competentScript(pool, prompt, pace?.steps), request);
    const reply = actionReply(protocol, hearsPartnerFirst ? untilPartnerHeard(action, prompt, request) : action);
    return { ...reply, delayMs: pace?.delayMs };
  };
}

/**
 * `hearsPartnerFirst`: a Coop agent does not finish before a message of its partner has reached it
 * (it waits a turn at a time), so that whether it hears the partner's plan does not depend on which
 * container started first.
 */
function untilPartnerHeard(action: Action, prompt: string, request: RecordedRequest): Action {
  const partner = /in parallel with another agent \((agent\d+)\)/.exec(prompt)?.[1];
  const waiting =
    action.name === 'finish' && partner !== undefined && prompt.includes('send_message') && !transcript(request).includes(`[Message from ${partner}]`);
  return waiting ? { name: 'bash', input: { command: 'sleep 0.2 # waiting for the partner' } } : action;
}
