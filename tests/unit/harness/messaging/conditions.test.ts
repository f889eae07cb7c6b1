// Run conditions (--bandwidth, --latency, --visibility) as agents meet them: scripted models on the
// fake OpenAI server drive the real agent loop, the real message bus and store; what they were told
// is read from the requests they sent, what they said from the stored conversation.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { LlmAgent } from '../../../../harness/agents/llm-agent.ts';
import { createModel } from '../../../../harness/models/index.ts';
import { loadAgentConfig } from '../../../../harness/agents/config/agent-config.ts';
import { MessageBus } from '../../../../harness/messaging/bus.ts';
import { CONDITIONS, ConditionError, channelOf, conditionTools, conditionsLabel, type RunConditions } from '../../../../harness/messaging/conditions.ts';
import { TeamView } from '../../../../harness/run/partner-view.ts';
import { variantOf } from '../../../../harness/run/run-benchmark.ts';
import { chatReply, startFakeVllm, type FakeOpenAIServer } from '../../../fakes/openai-server.ts';
import { agentContext, MemorySandbox } from '../agents/agent-fixture.ts';
import { openStoreFixture, type StoreFixture } from './store-fixture.ts';

let servers: FakeOpenAIServer[];
let fixture: StoreFixture;
const call = (name: string, args: unknown) => chatReply(null, { toolCalls: [{ name, arguments: args }] });
const finish = () => call('finish', { summary: 'done' });

beforeAll(async () => {
  servers = [await startFakeVllm({ served: ['test-model'] }), await startFakeVllm({ served: ['test-model'] })];
});
afterAll(async () => {
  for (const s of servers) await s.close();
});
afterEach(() => {
  fixture?.dispose();
  for (const s of servers) s.reset();
});

function llmAgent(server: FakeOpenAIServer) {
  const model = createModel(`openai:test-model@${server.url}`, { env: {}, cwd: tmpdir(), maxRetries: 0, warn: () => {} });
  return new LlmAgent('openai:test-model', model, { config: loadAgentConfig(undefined, { stepLimit: 10 }) });
}

/** Two agents of one Coop task under `conditions`, on a real store; agent i talks to servers[i]. */
function team(conditions: RunConditions, view = new TeamView()) {
  fixture = openStoreFixture();
  const task = fixture.addTask([1, 2]);
  const bus = new MessageBus(fixture.store);
  const contextOf = (agentId: string, partner: string) => {
    const extraTools = conditionTools(conditions, [partner], view);
    return agentContext({
      agentId,
      partners: [partner],
      mailbox: bus.mailbox(task, agentId, [partner], channelOf(conditions)),
      ...(extraTools.length ? { extraTools } : {}),
    });
  };
  return { bus, task, view, one: contextOf('agent1', 'agent2'), two: contextOf('agent2', 'agent1') };
}

/** The tool results the model was sent, in order. */
const toolAnswers = (server: FakeOpenAIServer) =>
  (server.requests.at(-1)!.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool').map((m) => m.content);
const toolNames = (server: FakeOpenAIServer) => (server.requests[0]!.body.tools as { function: { name: string } }[]).map((t) => t.function.name);

describe('--bandwidth messages=N,chars=M', () => {
  it('tells the sender what is left after each message and refuses, in words it can act on, past the limit', async () => {
    const { bus, task, one } = team({ bandwidth: { messages: 2, chars: 40 } });
    servers[0]!.enqueue(
      call('send_message', { to: 'agent2', message: 'I take src/cli.js lines 1-20' }),
      call('send_message', { to: 'agent2', message: 'x'.repeat(41) }),
      call('send_message', { to: 'agent2', message: 'and the README' }),
      call('send_message', { to: 'agent2', message: 'one more thing' }),
      finish(),
    );
    await llmAgent(servers[0]!).run(one);
    expect(toolAnswers(servers[0]!)).toEqual([
      'sent to agent2 (you can send 1 more message in this task, each at most 40 characters)',
      'Error: not sent: the message is 41 characters long, over the limit of 40: shorten it or split it into several messages (it was not sent)',
      'sent to agent2 (that was your last message: you cannot send any more in this task)',
      expect.stringMatching(
        /^Error: not sent: this message was not sent: you have sent 2 messages, all this task allows; no more can be sent, so carry on without messaging/,
      ),
    ]);
    expect(bus.conversation(task).map((m) => m.message)).toEqual(['I take src/cli.js lines 1-20', 'and the README']);
  });

  it('reads only messages=N,chars=M with whole numbers, and names the task variant after them', () => {
    const bandwidth = CONDITIONS.find((c) => c.key === 'bandwidth')!;
    expect(bandwidth.parse('chars=300, messages=5')).toEqual({ messages: 5, chars: 300 });
    expect(() => bandwidth.parse('messages=5')).toThrow(ConditionError);
    expect(() => bandwidth.parse('messages=0,chars=10')).toThrow(/messages must be a whole number of at least 1, not "0"/);
    expect(() => bandwidth.parse('words=5,chars=10')).toThrow(/--bandwidth takes messages=N,chars=M, not "words=5"/);
    expect(conditionsLabel({ bandwidth: { messages: 5, chars: 300 }, latency: 10, visibility: 'diff' })).toBe('bandwidth-5x300+latency-10s+visibility-diff');
    expect(variantOf({ messaging: true, git: true, conditions: { latency: 0, visibility: 'none' } })).toBe('git');
    expect(variantOf({ messaging: true, git: false, conditions: { visibility: 'files' } })).toBe('visibility-files');
  });
});

describe('--latency S', () => {
  it('delivers a message S seconds after it was sent, not before', async () => {
    const { bus, task, one, two } = team({ latency: 1 });
    servers[0]!.enqueue(call('send_message', { to: 'agent2', message: 'I take src/cli.js' }), finish());
    // agent2 waits for a message: it must get it no earlier than a second after agent1 sent it.
    servers[1]!.enqueue(call('send_message', { to: 'agent1', message: 'I take README.md', wait_for_reply: true, wait_seconds: 30 }), finish());
    await Promise.all([llmAgent(servers[0]!).run(one), llmAgent(servers[1]!).run(two)]);
    const [fromOne] = bus.conversation(task).filter((m) => m.from === 'agent1');
    const delivered = Date.parse(fromOne!.deliveredAt.agent2!);
    expect(delivered - Date.parse(fromOne!.sentAt)).toBeGreaterThanOrEqual(1000);
    expect(toolAnswers(servers[1]!)[0]).toBe('sent to agent1; replies:\n[Message from agent1]: I take src/cli.js');
  });

  it('a held-back message is not taken before it is due', () => {
    const { bus, task } = team({ latency: 60 });
    const one = bus.mailbox(task, 'agent1', ['agent2'], channelOf({ latency: 60 }));
    const two = bus.mailbox(task, 'agent2', ['agent1'], channelOf({ latency: 60 }));
    one.send('agent2', 'soon');
    expect(two.pending()).toBe(0);
    expect(two.take()).toEqual([]);
    expect(bus.conversation(task)[0]!.deliveredAt).toEqual({ agent2: null });
  });
});

describe('--visibility', () => {
  /** agent2's sandbox: `git diff` and file reads answer from memory, as the partner's repository would. */
  function partnerSandbox(): MemorySandbox {
    return new MemorySandbox((cmd) => {
      const script = cmd[2] ?? '';
      if (script.includes('git diff --cached')) return 'diff --git a/src/cli.js b/src/cli.js\n+export const quiet = true;\n';
      if (script.includes('realpath')) return `contents of ${cmd[4]}\n`;
      return undefined;
    });
  }

  it("diff: the agent gets a partner_diff tool that returns the partner's current git diff", async () => {
    const view = new TeamView();
    const { one } = team({ visibility: 'diff' }, view);
    view.working('agent2', partnerSandbox(), 'abc123');
    servers[0]!.enqueue(call('partner_diff', {}), call('partner_diff', { partner: 'agent9' }), finish());
    await llmAgent(servers[0]!).run(one);
    expect(toolNames(servers[0]!)).toEqual(['bash', 'str_replace_based_edit_tool', 'send_message', 'finish', 'partner_diff']);
    expect(toolAnswers(servers[0]!)).toEqual([
      'diff --git a/src/cli.js b/src/cli.js\n+export const quiet = true;\n',
      'Error: "agent9" is not one of your partners: use agent2',
    ]);
    expect(one.trajectory.steps.find((s) => s.name === 'partner_diff')!.output).toContain('+export const quiet = true;');
    expect(servers[0]!.requests[0]!.body.messages).toContainEqual(
      expect.objectContaining({ content: expect.stringContaining('with the `partner_diff` tool') }),
    );
  });

  it("files: the agent reads its partner's working tree, and once the partner has stopped, its final patch", async () => {
    const view = new TeamView();
    const { one } = team({ visibility: 'files' }, view);
    const sandbox = partnerSandbox();
    view.working('agent2', sandbox, 'abc123');
    let turn = 0;
    servers[0]!.handle(() => {
      turn++;
      // The partner stops between the two reads.
      if (turn === 2) view.stopped('agent2', Promise.resolve('diff --git a/src/cli.js b/src/cli.js\n'));
      return turn <= 2 ? call('read_partner_file', { path: 'src/cli.js' }) : finish();
    });
    await llmAgent(servers[0]!).run(one);
    expect(toolAnswers(servers[0]!)).toEqual([
      'contents of src/cli.js\n',
      'agent2 has stopped and its working tree is gone. agent2 has stopped; its final changes:\ndiff --git a/src/cli.js b/src/cli.js\n',
    ]);
    // The path went to the partner's container as an argument, never into the script.
    expect(sandbox.commands[0]!.slice(3)).toEqual(['sh', 'src/cli.js']);
  });

  it('none: no tool about the partner, and the prompt says partners cannot see each other', async () => {
    const { one } = team({ visibility: 'none' });
    servers[0]!.enqueue(finish());
    await llmAgent(servers[0]!).run(one);
    expect(toolNames(servers[0]!)).toEqual(['bash', 'str_replace_based_edit_tool', 'send_message', 'finish']);
    expect(JSON.stringify(servers[0]!.requests[0]!.body.messages)).toContain('They cannot see your files, only what you tell them.');
  });
});
