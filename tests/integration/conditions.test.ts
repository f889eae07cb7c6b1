// Run conditions end to end: scripted agents on the fake OpenAI server work in real containers
// under --bandwidth, --latency and --visibility diff; the test reads what the store kept (the
// task's conditions, the messages with their delivery times, the tool answers the agents got).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { coopBench, containersOf, tempDir } from '../helpers/cli.ts';
import { queryRun } from '../helpers/run-db.ts';
import { actionReply, agentIdOf, implement, taskPrompt, transcript, type Action } from '../helpers/scripted-agents.ts';
import { startFakeOpenAI, type FakeOpenAIServer, type RecordedRequest } from '../fakes/openai-server.ts';
import { loadPool } from '../../tasks/pools.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';

const pool = loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1'));
const runs = tempDir('condition-runs');
let openai: FakeOpenAIServer;

/** Calls made so far (one per turn): Responses `function_call` items, or Chat Completions assistant messages. */
function callsSoFar(request: RecordedRequest): { name: string }[] {
  const items = (request.body.input ?? request.body.messages) as {
    type?: string;
    role?: string;
    name?: string;
    tool_calls?: { function: { name: string } }[];
  }[];
  if (!Array.isArray(items)) return [];
  return items.flatMap((i) => (i.type === 'function_call' ? [{ name: i.name ?? '' }] : (i.tool_calls ?? []).map((c) => ({ name: c.function.name }))));
}

/** Announces, implements, reports; once it has heard its partner's report, looks at the partner's diff, then finishes. */
function script(request: RecordedRequest): Action {
  const prompt = taskPrompt(request);
  const me = agentIdOf(prompt)!;
  const partner = me === 'agent1' ? 'agent2' : 'agent1';
  const steps: Action[] = [
    { name: 'send_message', input: { to: partner, message: `${me} plan: my feature, in src/` } },
    ...implement(pool, prompt),
    { name: 'send_message', input: { to: partner, message: `${me} status: done` } },
  ];
  const calls = callsSoFar(request);
  if (calls.length < steps.length) return steps[calls.length]!;
  if (!transcript(request).includes(`[Message from ${partner}]: ${partner} status: done`))
    return { name: 'bash', input: { command: 'sleep 0.2 # waiting for the partner' } };
  if (!calls.some((c) => c.name === 'partner_diff')) return { name: 'partner_diff', input: { partner } };
  return { name: 'finish', input: { summary: 'done' } };
}

beforeAll(async () => {
  openai = await startFakeOpenAI({ handler: (request) => actionReply('openai', script(request)) });
});
afterAll(async () => openai.close());

describe('coop-bench run --bandwidth messages=2,chars=200 --latency 1 --visibility diff', () => {
  let result: Awaited<ReturnType<typeof coopBench>>;
  const query = <T>(sql: string) => queryRun<T>(runs, 'conditions', sql);

  beforeAll(async () => {
    result = await coopBench(
      [
        'run',
        ...['--models', 'gpt-5', '--setting', 'coop', '--pool', 'argkit', '--features', '1,3', '--name', 'conditions', '--runs-dir', runs],
        ...['--bandwidth', 'messages=2,chars=200', '--latency', '1', '--visibility', 'diff'],
      ],
      { env: { OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: 'sk-test-openai-4f1c9e2b7d' } },
    );
  });

  it('runs the task under its own variant and stores its conditions with it', () => {
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stdout).toMatch(/gpt-5\s+coop-bandwidth-2x200\+latency-1s\+visibility-diff\s+1\s+1\s+1\/1/);
    const [task] = query<{ variant: string; conditions: string }>('SELECT variant, conditions FROM tasks');
    expect(task!.variant).toBe('bandwidth-2x200+latency-1s+visibility-diff');
    expect(JSON.parse(task!.conditions)).toEqual({ bandwidth: { messages: 2, chars: 200 }, latency: 1, visibility: 'diff' });
  });

  it('delivers every message at least a second after it was sent', () => {
    const rows = query<{ sent_at: string; delivered_at: string }>(
      'SELECT m.sent_at, d.delivered_at FROM messages m JOIN message_deliveries d ON d.message = m.id',
    );
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(Date.parse(row.delivered_at) - Date.parse(row.sent_at)).toBeGreaterThanOrEqual(1000);
  });

  it('tells each agent what is left of its messages', () => {
    const answers = query<{ output: string }>("SELECT output FROM steps WHERE name = 'send_message' ORDER BY agent, idx").map((r) => r.output);
    expect(answers).toEqual([
      'sent to agent2 (you can send 1 more message in this task, each at most 200 characters)',
      'sent to agent2 (that was your last message: you cannot send any more in this task)',
      'sent to agent1 (you can send 1 more message in this task, each at most 200 characters)',
      'sent to agent1 (that was your last message: you cannot send any more in this task)',
    ]);
  });

  it("answers partner_diff with the partner's changes, which end up in its patch", () => {
    const diffs = query<{ agent: string; output: string }>("SELECT agent, output FROM steps WHERE name = 'partner_diff' ORDER BY agent");
    const patches = new Map(query<{ agent: string; patch: string }>('SELECT agent, patch FROM agents').map((a) => [a.agent, a.patch]));
    expect(diffs.map((d) => d.agent)).toEqual(['agent1', 'agent2']);
    for (const { agent, output } of diffs) {
      const partnerPatch = patches.get(agent === 'agent1' ? 'agent2' : 'agent1')!;
      const firstAdded = partnerPatch.split('\n').find((l) => l.startsWith('+') && !l.startsWith('+++') && l.trim().length > 3)!;
      expect(output).toContain(firstAdded);
    }
  });

  it('leaves no container behind', async () => {
    expect(await containersOf('conditions')).toEqual([]);
    expect(readFileSync(join(runs, 'conditions', 'run.db')).length).toBeGreaterThan(0);
  });
});
