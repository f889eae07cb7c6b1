// The belief probe in the agent loop against the fake OpenAI server: asked every K steps on a copy
// of the conversation, its answer (or its failure) goes to the harness only, never into what the
// model is sent next or the trajectory, and it is no step of the agent's.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { LlmAgent, type ModelCallRecord } from '../../../../harness/agents/llm-agent.ts';
import type { ProbeAnswer } from '../../../../harness/agents/types.ts';
import { createModel } from '../../../../harness/models/index.ts';
import { loadAgentConfig } from '../../../../harness/agents/config/agent-config.ts';
import { chatReply, errorReply, startFakeVllm, type FakeOpenAIServer, type RecordedRequest } from '../../../fakes/openai-server.ts';
import { agentContext } from './agent-fixture.ts';

let server: FakeOpenAIServer;
const call = (name: string, args: unknown) => chatReply(null, { toolCalls: [{ name, arguments: args }] });
const MARK = 'PROBE-ANSWER-9d2e';
const lastContent = (r: RecordedRequest) => String((r.body.messages as { content: string | null }[]).at(-1)?.content ?? '');
const isProbe = (r: RecordedRequest) => lastContent(r).startsWith('Pause your work');

beforeAll(async () => {
  server = await startFakeVllm({ served: ['test-model'] });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

async function probedRun(probeReply: (n: number) => ReturnType<typeof chatReply>) {
  let probes = 0;
  let steps = 0;
  server.handle((request) => {
    if (isProbe(request)) return probeReply(probes++);
    return ++steps < 5 ? call('bash', { command: `echo ${steps}` }) : call('finish', { summary: 'done' });
  });
  const answers: ProbeAnswer[] = [];
  const calls: ModelCallRecord[] = [];
  const model = createModel(`openai:test-model@${server.url}`, { env: {}, cwd: tmpdir(), maxRetries: 0, warn: () => {} });
  const agent = new LlmAgent('openai:test-model', model, { config: loadAgentConfig(undefined, { stepLimit: 10 }), onModelCall: (c) => calls.push(c) });
  const ctx = agentContext({ partners: ['agent2'], probe: { every: 2, answered: async (a) => void answers.push(a) } });
  const outcome = await agent.run(ctx);
  return { outcome, answers, calls, ctx };
}

describe('the belief probe', () => {
  it('is asked every K steps outside the conversation, and its answer goes to the harness only', async () => {
    const { outcome, answers, calls, ctx } = await probedRun(() => chatReply(`${MARK} {"files": [], "functions": [], "conflict": false, "confidence": 0.1}`));
    expect(outcome).toEqual({ status: 'finished' });
    expect(answers.map((a) => [a.step, 'text' in a && a.text.startsWith(MARK)])).toEqual([
      [2, true],
      [4, true],
    ]);
    const probes = server.requests.filter(isProbe);
    expect(probes).toHaveLength(2);
    expect(lastContent(probes[0]!)).toContain('agent2');
    expect(probes[0]!.body.tool_choice).toBe('none');
    for (const request of server.requests.filter((r) => !isProbe(r))) {
      expect(JSON.stringify(request.body.messages)).not.toContain(MARK);
      expect(JSON.stringify(request.body.messages)).not.toContain('Pause your work');
    }
    expect(JSON.stringify(ctx.trajectory.steps)).not.toContain(MARK);
    expect(JSON.stringify(ctx.trajectory.steps)).not.toContain('Pause your work');
    // The agent's own calls: its 5 steps; the probes are accounted by the harness, apart.
    expect(calls).toHaveLength(5);
    expect(ctx.trajectory.steps.filter((s) => s.kind === 'model')).toHaveLength(5);
  });

  it('reports a probe call that fails as an answer with its error, and the agent carries on', async () => {
    const { outcome, answers } = await probedRun(() => errorReply(400, 'probe refused'));
    expect(outcome).toEqual({ status: 'finished' });
    expect(answers).toHaveLength(2);
    expect(answers[0]).toMatchObject({ step: 2, error: expect.stringContaining('probe refused') });
  });

  it('is not asked of an agent without partners', async () => {
    server.enqueue(call('bash', { command: 'true' }), call('bash', { command: 'true' }), call('finish', { summary: 'done' }));
    const answers: ProbeAnswer[] = [];
    const model = createModel(`openai:test-model@${server.url}`, { env: {}, cwd: tmpdir(), maxRetries: 0, warn: () => {} });
    const agent = new LlmAgent('openai:test-model', model, { config: loadAgentConfig(undefined, { stepLimit: 10 }) });
    await agent.run(agentContext({ probe: { every: 1, answered: async (a) => void answers.push(a) } }));
    expect(server.requests.filter(isProbe)).toHaveLength(0);
  });
});
