// The live preflight: before any image is built, each model spec of a run gets a minimal exchange
// that does what every task will do, so that a key, a model name, a parameter or a replay shape the
// service refuses shows in seconds, in the provider's own words, instead of after the containers
// started. The exchange: a request with one tool, which the model must call; the call's result sent
// back in a second request, with what a task sends back with it (gpt-5's reasoning items, Claude's
// cache breakpoints and thinking blocks); an answer to that. Agent CLIs go through their model
// proxy, as their tasks' calls do. Tiny prompts and output budgets: well under a cent a spec.
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { UserError, errorMessage } from '../errors.ts';
import type { AgentSpec } from '../agents/registry.ts';
import { startModelProxy } from '../agents/cli/model-proxy.ts';
import { modelFor, proxyApi, type ChatMessage, type Model, type ModelOptions, type ModelResponse, type ToolSpec } from '../models/index.ts';
import { resolveModel, type ResolvedModel } from '../models/resolve.ts';
import { argumentsObject } from '../models/tool-arguments.ts';

/** What the exchange says and expects; the fake servers recognise it by the tool's name. */
export const PREFLIGHT = {
  tool: 'coop_bench_preflight_lookup',
  /** The tool's result: the model is asked to answer with its last word. */
  result: 'The word stored under key "a" is: marmalade',
  word: 'marmalade',
} as const;

const TOOL: ToolSpec = {
  name: PREFLIGHT.tool,
  description: 'Returns the word stored under a key.',
  parameters: { type: 'object', properties: { key: { type: 'string', description: 'the key to look up' } }, required: ['key'] },
};
const SYSTEM = `You check a tool connection. Call the ${PREFLIGHT.tool} tool once with key "a", then answer with the word it returns and nothing else.`;
const ASK: ChatMessage = { role: 'user', content: 'Look up the word stored under key "a".' };
/** Enough for a reasoning model to think briefly and call one tool; small enough to stay under a cent. */
const MAX_OUTPUT_TOKENS = 1024;

export interface PreflightResult {
  spec: string;
  ok: boolean;
  /** One line: what passed and what it cost, or what failed in the provider's words. */
  line: string;
}

/**
 * Runs the exchange for every spec at once (built-in agents need no model and are skipped), prints
 * one line each in the specs' order, and throws a UserError naming every spec that failed.
 */
export async function runPreflight(agents: readonly AgentSpec[], options: ModelOptions, log: (line: string) => void): Promise<PreflightResult[]> {
  const withModel = new Map(agents.flatMap((agent) => (agent.kind === 'builtin' ? [] : [[agent.spec, agent] as const])));
  // Every model at once: the run waits for the slowest exchange, not for their sum.
  const results = await Promise.all([...withModel.values()].map((agent) => preflightSpec(agent, options)));
  for (const result of results) log(result.line);
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0) {
    throw new UserError(
      `the live preflight failed for ${failed.map((r) => r.spec).join(', ')} (see above): nothing was built or started; fix it and run again (--no-preflight skips this check)`,
    );
  }
  return results;
}

async function preflightSpec(agent: Exclude<AgentSpec, { kind: 'builtin' }>, options: ModelOptions): Promise<PreflightResult> {
  const { spec } = agent;
  const resolved = resolveModel(agent.model, options);
  if (agent.kind === 'loop') return exchange(spec, modelFor(resolved), resolved.api, '');
  const folder = await mkdtemp(join(tmpdir(), 'coop-preflight-'));
  const socketPath = join(folder, 'api.sock');
  const proxy = await startModelProxy({ provider: resolved.provider, socketPath, upstream: resolved, maxCalls: 4 });
  try {
    // The proxy adds the key; the call is the one the provider's CLIs make (Claude Code: the Messages API, Codex: the Responses API).
    const api = proxyApi(resolved.provider);
    const viaProxy: ResolvedModel = { ...resolved, api: api.api, baseURL: `http://model-proxy${api.basePath}`, apiKey: 'coop-bench-preflight' };
    return await exchange(spec, modelFor(viaProxy, socketFetch(socketPath)), viaProxy.api, ' through the model proxy');
  } finally {
    await proxy.close();
    await rm(folder, { recursive: true, force: true });
  }
}

async function exchange(spec: string, model: Model, api: ResolvedModel['api'], path: string): Promise<PreflightResult> {
  const name = `preflight ${spec} (${model.id}${path})`;
  let cost = 0;
  const passed: string[] = [];
  const fail = (problem: string): PreflightResult => ({
    spec,
    ok: false,
    line: `${name}: FAILED ${problem}${passed.length ? ` (passed: ${passed.join(', ')})` : ''}`,
  });
  const call = async (messages: ChatMessage[]): Promise<ModelResponse> => {
    const answer = await model.complete({ system: SYSTEM, messages, tools: [TOOL], maxOutputTokens: MAX_OUTPUT_TOKENS });
    cost += answer.usage.costUsd;
    return answer;
  };
  try {
    const first = await call([ASK]);
    if (first.refusal !== undefined) return fail(`the model declined: ${first.refusal}`);
    const toolCall = first.toolCalls[0];
    if (!toolCall) {
      const why = first.truncated ? `its answer was cut off at ${MAX_OUTPUT_TOKENS} output tokens` : `stop reason ${first.stopReason ?? 'none'}`;
      return fail(`the model answered without calling the tool (${why}): an agent could not work`);
    }
    if (toolCall.name !== TOOL.name || !argumentsObject(toolCall.arguments)) {
      return fail(`the tool call is malformed: ${toolCall.name}(${toolCall.arguments.slice(0, 200)})`);
    }
    passed.push('tool call');
    const history: ChatMessage[] = [
      ASK,
      { role: 'assistant', content: first.content, toolCalls: first.toolCalls, ...(first.replay ? { replay: first.replay } : {}) },
      ...first.toolCalls.map((c): ChatMessage => ({ role: 'tool', toolCallId: c.id, name: c.name, content: PREFLIGHT.result })),
    ];
    const second = await call(history);
    passed.push(`tool result sent back${replayed(first, api)}`);
    if (second.refusal !== undefined) return fail(`the model declined: ${second.refusal}`);
    if (second.content.trim() === '' && second.toolCalls.length === 0 && !second.truncated) return fail('the second answer is empty');
    passed.push('second answer');
    return { spec, ok: true, line: `${name}: ok (${passed.join(', ')}), $${cost.toFixed(4)}` };
  } catch (error) {
    return fail(errorMessage(error));
  }
}

/** What the second request carried back beside the result: reasoning items, thinking blocks, cache breakpoints. */
function replayed(first: ModelResponse, api: ResolvedModel['api']): string {
  const parts: string[] = [];
  if (first.replay?.api === 'openai-responses') parts.push('reasoning replayed');
  if (first.replay?.api === 'anthropic-messages') parts.push('thinking replayed');
  // The Messages adapter marks the system prompt and the newest block as cache breakpoints.
  if (api === 'messages') parts.push('cache breakpoints');
  return parts.length ? ` with ${parts.join(' and ')}` : '';
}

/** A fetch over a unix socket (the model proxy's), whatever the URL's host. */
function socketFetch(socketPath: string): typeof fetch {
  return ((input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => (headers[key] = value));
    return new Promise<Response>((resolve, reject) => {
      const req = httpRequest(
        { socketPath, method: init.method ?? 'GET', path: url.pathname + url.search, headers, signal: init.signal ?? undefined },
        (res) => {
          const responseHeaders = new Headers();
          for (const [key, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(key, value);
          resolve(new Response(Readable.toWeb(res) as ReadableStream, { status: res.statusCode, headers: responseHeaders }));
        },
      );
      req.on('error', reject);
      req.end(init.body as string | undefined);
    });
  }) as typeof fetch;
}
