// `coop-bench run --models gpt-5,claude` over both shipped pools, through the official SDKs against
// fakes that refuse what OpenAI and Anthropic refuse (tests/fakes/contracts/): every request of every
// agent must be one the real services accept, every task must finish and be scored, and the stored
// usage must show Anthropic's prompt cache at work. Two pairs of each pool keep it to minutes; the
// whole plan (120 tasks) behaves the same, it only takes longer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { coopBench, containersOf, tempDir } from '../helpers/cli.ts';
import { queryRun } from '../helpers/run-db.ts';
import { scriptedAgents } from '../helpers/scripted-agents.ts';
import { startFakeOpenAI, type FakeOpenAIServer, type RecordedRequest } from '../fakes/openai-server.ts';
import { startFakeAnthropic, type FakeAnthropicServer } from '../fakes/anthropic-server.ts';
import { discoverPools } from '../../tasks/pools.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';

const pools = discoverPools(SHIPPED_POOLS);
const runs = tempDir('real-apis');
let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
let result: Awaited<ReturnType<typeof coopBench>>;

beforeAll(async () => {
  openai = await startFakeOpenAI({ handler: scriptedAgents(pools, 'openai') });
  anthropic = await startFakeAnthropic({ handler: scriptedAgents(pools, 'anthropic') });
  const env = { OPENAI_BASE_URL: openai.url, ANTHROPIC_BASE_URL: anthropic.url, OPENAI_API_KEY: 'sk-test-openai-5e2a', ANTHROPIC_API_KEY: 'sk-ant-test-7c1d' };
  const subset = join(runs, 'both-pools.json');
  writeFileSync(
    subset,
    JSON.stringify({
      name: 'both-pools',
      tasks: pools.map((p) => ({
        repo: p.repo,
        task_id: p.taskId,
        pairs: [
          [1, 2],
          [3, 4],
        ],
      })),
    }),
  );
  result = await coopBench(['run', '--models', 'gpt-5,claude', '--subset', subset, '--concurrency', '4', '--name', 'both-pools', '--runs-dir', runs], { env });
});

afterAll(async () => {
  await openai.close();
  await anthropic.close();
});

const query = <T>(sql: string) => queryRun<T>(runs, 'both-pools', sql);
const answered = (server: { requests: RecordedRequest[]; refusals: unknown[] }) =>
  server.requests.filter((r) => r.method === 'POST').length - server.refusals.length;

describe(`coop-bench run --models gpt-5,claude over ${pools.map((p) => p.repo).join(' and ')}`, () => {
  it('finishes and scores every task', () => {
    expect(result.exitCode, result.all).toBe(0);
    const tasks = query<{ status: string; n: number }>('SELECT status, COUNT(*) AS n FROM tasks GROUP BY status');
    expect(tasks).toEqual([{ status: 'done', n: 16 }]);
    expect(query<{ repo: string }>('SELECT DISTINCT repo FROM tasks ORDER BY repo')).toEqual(
      pools.map((p) => ({ repo: p.repo })).sort((a, b) => a.repo.localeCompare(b.repo)),
    );
    for (const model of ['gpt-5', 'claude']) {
      expect(result.stdout).toMatch(new RegExp(`${model}\\s+solo\\s+4\\s+4\\s+4/4 \\(100\\.0%\\)\\s+0\\s+0\\s+0`));
      expect(result.stdout).toMatch(new RegExp(`${model}\\s+coop\\s+4\\s+4\\s+\\d/4`));
    }
    expect(query<{ status: string }>('SELECT DISTINCT status FROM agents')).toEqual([{ status: 'finished' }]);
  });

  it('sent only requests the real services accept, gpt-5 on the Responses API', () => {
    expect(openai.refusals.map((r) => r.reply.body)).toEqual([]);
    expect(anthropic.refusals.map((r) => r.reply.body)).toEqual([]);
    expect(new Set(openai.requests.filter((r) => r.method === 'POST').map((r) => r.path))).toEqual(new Set(['/v1/responses']));
    // Every answered call is stored with its usage.
    const models = query<{ model: string; calls: number }>('SELECT model, COUNT(*) AS calls FROM model_calls GROUP BY model ORDER BY model');
    expect(models).toEqual([
      { model: 'claude-sonnet-5-5', calls: answered(anthropic) },
      { model: 'gpt-5', calls: answered(openai) },
    ]);
  });

  it('shows the prompt cache in the stored usage: Claude reads most of its input from it', () => {
    const [claude] = query<{ input: number; read: number; written: number; cost: number }>(
      "SELECT SUM(input_tokens) AS input, SUM(cache_read_tokens) AS read, SUM(cache_write_tokens) AS written, SUM(cost_usd) AS cost FROM model_calls WHERE model = 'claude-sonnet-5-5'",
    );
    expect(claude!.read).toBeGreaterThan(claude!.input / 2);
    expect(claude!.written).toBeGreaterThan(0);
    // Priced as the prompt caching docs say: a read costs 0.1x, a 5-minute write 1.25x the input price
    // (claude-sonnet-5-5: $2 in, $10 out per million tokens, harness/models/catalogue.json).
    const uncached = claude!.input - claude!.read - claude!.written;
    const [output] = query<{ tokens: number }>("SELECT SUM(output_tokens) AS tokens FROM model_calls WHERE model = 'claude-sonnet-5-5'");
    expect(claude!.cost).toBeCloseTo((uncached * 2 + claude!.read * 0.2 + claude!.written * 2.5 + output!.tokens * 10) / 1e6, 6);
  });

  it('leaves no container behind', async () => {
    expect(await containersOf('both-pools')).toEqual([]);
  });
});
