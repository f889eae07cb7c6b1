// Keeping the conversation within the window, against fakes that refuse what the providers refuse:
// an unanswered tool call, tool blocks without tool definitions, a prompt over the window.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LlmAgent } from '../../../../harness/agents/llm-agent.ts';
import { createModel } from '../../../../harness/models/index.ts';
import { chatReply, startFakeOpenAI, type FakeOpenAIServer, type RecordedRequest } from '../../../fakes/openai-server.ts';
import { messageReply, startFakeAnthropic, type FakeAnthropicServer } from '../../../fakes/anthropic-server.ts';
import { agentContext, MemorySandbox } from './agent-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'compaction-'));
/** The agent believes a large window: only the provider can say the prompt is too long. */
const prices = join(dir, 'prices.json');
writeFileSync(
  prices,
  JSON.stringify({
    'small-gpt': { inputPerMillion: 1, outputPerMillion: 2, contextWindow: 100_000, maxOutputTokens: 2000 },
    'claude-small': { inputPerMillion: 1, outputPerMillion: 2, contextWindow: 100_000, maxOutputTokens: 2000 },
    'claude-tight': { inputPerMillion: 1, outputPerMillion: 2, contextWindow: 8000, maxOutputTokens: 1000 },
  }),
);
/** What the providers really accept (the fakes' tokenizer: 4 characters a token). */
const limits = {
  'small-gpt': { inputLimit: 3000, maxOutput: 2000 },
  'claude-small': { inputLimit: 3000, maxOutput: 2000 },
  'claude-tight': { inputLimit: 7000, maxOutput: 1000, minCacheable: 1024 },
};

let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
beforeAll(async () => {
  openai = await startFakeOpenAI({ limits });
  anthropic = await startFakeAnthropic({ limits });
});
afterAll(async () => {
  await openai.close();
  await anthropic.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  openai.reset();
  anthropic.reset();
});

const env = () => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: openai.url, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: anthropic.url });
const agent = (spec: string) => new LlmAgent(spec, createModel(spec, { env: env(), cwd: dir, pricesFile: prices, maxRetries: 0, warn: () => {} }));
/** `cat big.log` prints 12,000 characters (3,000 tokens): the next prompt no longer fits. */
const bigLog = () => new MemorySandbox((cmd) => (cmd.join(' ').includes('cat big.log') ? `${'log line 0123456789\n'.repeat(600)}` : undefined));

const lastUser = (r: RecordedRequest) => {
  const messages = r.body.messages as { role: string; content: unknown }[];
  return JSON.stringify(messages.at(-1)?.content);
};
const isSummaryRequest = (r: RecordedRequest) => lastUser(r).includes('Write a summary that lets you continue without it');

describe('compaction when the provider finds the prompt too long', () => {
  it('OpenAI: summarises up to a point where every tool call is answered, small enough to fit, and goes on', async () => {
    openai.enqueue(
      chatReply(null, { toolCalls: [{ id: 'call_1', name: 'bash', arguments: { command: 'cat big.log' } }] }),
      'Summary: read big.log; nothing changed yet.',
      chatReply(null, { toolCalls: [{ id: 'call_2', name: 'finish', arguments: { summary: 'done' } }] }),
    );
    const ctx = agentContext({ sandbox: bigLog() });
    expect(await agent('openai:small-gpt').run(ctx)).toEqual({ status: 'finished' });

    const statuses = openai.requests.map((r) => (isSummaryRequest(r) ? 'summary' : 'step'));
    // The step that overflowed is refused, the summary request is accepted, the next step too.
    expect(statuses).toEqual(['step', 'step', 'summary', 'step']);
    const summary = openai.requests[2]!.body;
    const messages = summary.messages as { role: string; tool_call_id?: string; content: string }[];
    expect(messages.at(-2)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
    expect(messages.at(-2)!.content).toContain('characters left out of this summary request');
    expect(summary).toMatchObject({ tools: expect.any(Array), tool_choice: 'none' });
    const resumed = openai.requests[3]!.body.messages as { role: string; content: string }[];
    expect(resumed.map((m) => m.role)).toEqual(['system', 'user']);
    expect(resumed[1]!.content).toContain('Summary: read big.log; nothing changed yet.');
    expect(ctx.trajectory.steps.map((s) => s.name ?? s.kind)).toEqual([
      'system_prompt',
      'task_prompt',
      'model',
      'bash',
      'context_overflow',
      'compaction',
      'model',
      'finish',
    ]);
  });

  it('Anthropic: the summary request keeps the tool definitions and answers every tool_use', async () => {
    anthropic.enqueue(
      messageReply(null, { toolUses: [{ id: 'toolu_1', name: 'bash', input: { command: 'cat big.log' } }] }),
      'Summary: read big.log.',
      messageReply(null, { toolUses: [{ id: 'toolu_2', name: 'finish', input: {} }] }),
    );
    expect(await agent('anthropic:claude-small').run(agentContext({ sandbox: bigLog() }))).toEqual({ status: 'finished' });
    const summary = anthropic.requests.find(isSummaryRequest)!.body;
    expect(summary).toMatchObject({ tools: expect.any(Array), tool_choice: { type: 'none' } });
    const last = summary.messages.at(-1).content as { type: string; tool_use_id?: string }[];
    // The tool result and the instruction travel in one user turn, the result first.
    expect(last.map((b) => b.type)).toEqual(['tool_result', 'text']);
    expect(last[0]!.tool_use_id).toBe('toolu_1');
  });

  it('a conversation that cannot be summarised within the window ends the agent as context_exhausted, to be scored', async () => {
    const huge = 'x'.repeat(20_000);
    anthropic.handle(() => 'never asked');
    const outcome = await agent('anthropic:claude-small').run(
      agentContext({ features: [{ id: 1, dir: '', description: huge, patchPath: '', testsPatchPath: '' }] }),
    );
    expect(outcome).toMatchObject({ status: 'context_exhausted', error: expect.stringContaining('context window') });
  });
});

describe('compaction ahead of the window', () => {
  it('summarises before the prompt reaches the window, so the provider never refuses one', async () => {
    // The window (8000) less the output budget (1000) is 7000: the agent compacts at 80% of it.
    anthropic.enqueue(
      messageReply(null, { toolUses: [{ id: 'toolu_1', name: 'bash', input: { command: 'cat big.log' } }] }),
      messageReply(null, { toolUses: [{ id: 'toolu_2', name: 'bash', input: { command: 'cat big.log | tail' } }] }),
      'Summary: read big.log twice.',
      messageReply(null, { toolUses: [{ id: 'toolu_3', name: 'finish', input: {} }] }),
    );
    const ctx = agentContext({ sandbox: bigLog() });
    expect(await agent('anthropic:claude-tight').run(ctx)).toEqual({ status: 'finished' });
    // Every request was accepted: the usage the fake reported taught the agent its prompt's size.
    expect(anthropic.requests.map((r) => (isSummaryRequest(r) ? 'summary' : 'step'))).toEqual(['step', 'step', 'summary', 'step']);
    expect(ctx.trajectory.steps.filter((s) => s.name === 'context_overflow')).toEqual([]);
    expect(ctx.trajectory.steps.find((s) => s.name === 'compaction')).toMatchObject({
      input: { reason: 'the prompt is near the context window', summarised: 5, kept: 0 },
    });
  });
});
