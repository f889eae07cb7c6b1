// What an agent does to its own sandbox is the agent's failure, scored, and no other task notices:
// an agent that fills its container's disk ends as disk_limit (the --disk limit: the engine's quota
// where its storage driver takes one, else the watched limit), one that kills every process it can
// (`kill -9 -1`) stops only its own (its commands run as a user of their own: the container, its
// exec channel and its work live on). Each runs as its own
// Solo task of one run, beside a well-behaved agent whose results match a run of it alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { coopBench, containersOf, tempDir } from '../helpers/cli.ts';
import { queryRun, uniqueRun } from '../helpers/run-db.ts';
import { bash, finish, scriptsByModel, type Script } from '../helpers/hostile-agents.ts';
import { implement } from '../helpers/scripted-agents.ts';
import { startFakeVllm, type FakeOpenAIServer } from '../fakes/openai-server.ts';
import { loadPool } from '../../tasks/pools.ts';
import { engineAt } from '../../harness/sandbox/docker/engine.ts';
import { engineTakesQuota } from '../../harness/sandbox/docker/disk-limit.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';

const pool = loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1'));
const runs = tempDir('self-harm');

const scripts: Record<string, Script> = {
  good: (p, prompt) => [...implement(p, prompt), finish],
  // 3 GiB at once, then time for the watch to look; the work done before it is lost with the container.
  'fill-disk': (p, prompt) => [
    ...implement(p, prompt),
    bash('fallocate -l 3G /tmp/fill || head -c 3G /dev/zero > /tmp/fill; sleep 30; echo still here', 60),
    finish,
  ],
  'kill-all': (p, prompt) => [...implement(p, prompt), bash('kill -9 -1; sleep 5; echo still here', 30), finish],
};

let server: FakeOpenAIServer;
const spec = (behaviour: string) => `openai:${behaviour}@${server.url}`;

beforeAll(async () => {
  server = await startFakeVllm({ served: Object.keys(scripts), handler: scriptsByModel(pool, scripts) });
});
afterAll(() => server.close());

const runWith = (run: string, behaviours: string[]) =>
  coopBench([
    ...['run', '--models', behaviours.map(spec).join(','), '--context-window', '128000', '--setting', 'solo'],
    ...['--pool', 'argkit', '--features', '1,3', '--max-steps', '12', '--concurrency', '3', '--disk', '1g', '--name', run, '--runs-dir', runs],
  ]);

interface Outcome {
  status: string;
  error: string | null;
  both_passed: number | null;
  agent_status: string;
  agent_error: string | null;
  patch: string;
}

const outcome = (run: string, behaviour: string) =>
  queryRun<Outcome>(
    runs,
    run,
    `SELECT t.status, t.error, t.both_passed, a.status AS agent_status, a.error AS agent_error, a.patch FROM tasks t JOIN agents a ON a.task = t.id WHERE t.models = ?`,
    JSON.stringify([spec(behaviour)]),
  )[0];

const verdicts = (run: string, behaviour: string) =>
  queryRun<{ feature: number; passed: number }>(
    runs,
    run,
    'SELECT e.feature, e.passed FROM evaluations e JOIN tasks t ON t.id = e.task WHERE t.models = ? ORDER BY e.feature',
    JSON.stringify([spec(behaviour)]),
  );

describe('agents that harm their own container, beside a well-behaved one', { timeout: 900_000 }, () => {
  const run = uniqueRun('self-harm');
  const alone = uniqueRun('self-harm-alone');
  let result: Awaited<ReturnType<typeof coopBench>>;

  beforeAll(async () => {
    result = await runWith(run, Object.keys(scripts));
    const aloneResult = await runWith(alone, ['good']);
    expect(aloneResult.exitCode, aloneResult.all).toBe(0);
  }, 900_000);

  it('finishes the run with every task scored: none is left out of the rates', () => {
    expect(result.exitCode, result.all).toBe(0);
    for (const behaviour of Object.keys(scripts)) expect(outcome(run, behaviour), behaviour).toMatchObject({ status: 'done', error: null });
  });

  it('an agent that fills its disk is stopped at the limit: by the quota, or ended as disk_limit with its work lost', async () => {
    const filled = outcome(run, 'fill-disk');
    if (await engineTakesQuota(engineAt())) {
      // The engine bounds the layer itself: the write fails as on a full disk, and the agent goes on.
      const fill = queryRun<{ output: string }>(runs, run, `SELECT output FROM steps WHERE kind = 'tool' AND input LIKE '%fallocate%'`)[0];
      expect(fill.output).toMatch(/No space left on device/);
      return;
    }
    expect(filled).toMatchObject({ agent_status: 'disk_limit', both_passed: 0, patch: '' });
    expect(filled.agent_error).toMatch(
      /^the agent wrote \d+\.\d+ GiB to its container's disk, over the 1\.00 GiB limit \(--disk\): the container was stopped and what it changed is lost \(empty patch\)$/,
    );
  });

  it('an agent that kills every process it can (`kill -9 -1`) stops only its own: its container and work live on, and it is scored', () => {
    expect(outcome(run, 'kill-all')).toMatchObject({ agent_status: 'finished', both_passed: 1, patch: outcome(alone, 'good').patch });
  });

  it("the neighbour's results are those of a run of it alone", () => {
    const beside = outcome(run, 'good');
    expect(beside).toMatchObject({ agent_status: 'finished', both_passed: 1 });
    expect(beside.patch).toBe(outcome(alone, 'good').patch);
    expect(verdicts(run, 'good')).toEqual(verdicts(alone, 'good'));
  });

  it('the summary counts the disk_limit ending as a scored agent ending', () => {
    expect(result.stdout).toMatch(/1 \(disk_limit 1\)|disk_limit 1/);
  });

  it('leaves no container behind', async () => {
    expect(await containersOf(run)).toEqual([]);
  });
});
