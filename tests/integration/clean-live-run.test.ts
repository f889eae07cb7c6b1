// `coop-bench clean` while a run is going: were it to remove the run's containers, the run
// would mark its task an error with the engine's raw 409. The run's containers stay, clean
// says why, and the task finishes and is stored as if nothing had happened. The agent waits for a
// file the test creates in its container, so clean runs while the agent's container surely exists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { execa } from 'execa';
import Docker from 'dockerode';
import { CLI, coopBench, containersOf, tempDir } from '../helpers/cli.ts';
import { queryRun, uniqueRun } from '../helpers/run-db.ts';
import { bash, finish, scriptsByModel } from '../helpers/hostile-agents.ts';
import { implement } from '../helpers/scripted-agents.ts';
import { startFakeVllm, type FakeOpenAIServer } from '../fakes/openai-server.ts';
import { ROLE_LABEL } from '../../harness/sandbox/labels.ts';
import { loadPool } from '../../tasks/pools.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';

const pool = loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1'));
const runs = tempDir('clean-live');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('coop-bench clean during a run', () => {
  const run = uniqueRun('clean-live');
  let server: FakeOpenAIServer;
  let waiting = false;
  let withLock: Awaited<ReturnType<typeof coopBench>>;
  let withoutStore: Awaited<ReturnType<typeof coopBench>>;
  let agentContainers: number;
  let result: Awaited<ReturnType<typeof coopBench>>;

  beforeAll(async () => {
    server = await startFakeVllm({
      served: ['waiter'],
      handler: scriptsByModel(
        pool,
        { waiter: (p, prompt) => [bash('while [ ! -e /tmp/go ]; do sleep 0.2; done; echo go', 600), ...implement(p, prompt), finish] },
        () => void (waiting = true),
      ),
    });
    const child = execa(
      'node',
      [
        CLI,
        'run',
        '--models',
        `openai:waiter@${server.url}`,
        '--setting',
        'solo',
        '--pool',
        'argkit',
        '--features',
        '1,2',
        '--context-window',
        '100000',
        '--name',
        run,
        '--runs-dir',
        runs,
      ],
      { reject: false, all: true },
    );
    for (let i = 0; !waiting && i < 3000; i++) await sleep(100);
    const agents = (await containersOf(run)).filter((c) => c.Labels[ROLE_LABEL] === 'agent');
    agentContainers = agents.length;
    // With the run's store (its lock is held), and as before, without (the process that made the container lives).
    [withLock, withoutStore] = await Promise.all([
      coopBench(['clean', '--name', run, '--runs-dir', runs]),
      coopBench(['clean', '--name', run], { cwd: tempDir('elsewhere') }),
    ]);
    const exec = await new Docker().getContainer(agents[0].Id).exec({ Cmd: ['touch', '/tmp/go'] });
    await exec.start({});
    result = await child;
  });

  afterAll(() => server.close());

  it("leaves the run's containers and says why, in one line per run", () => {
    expect(agentContainers).toBe(1);
    expect(withLock.exitCode, withLock.all).toBe(0);
    expect(withLock.stdout.trim().split('\n')).toEqual([
      `skipped run "${run}" (1 container): in use: its lock ${join(runs, run, 'run.lock')} is held; --force removes them anyway`,
      'removed 0 containers',
    ]);
    expect(withoutStore.exitCode, withoutStore.all).toBe(0);
    expect(withoutStore.stdout).toMatch(
      new RegExp(
        `^skipped run "${run}" \\(1 container\\): made by coop-bench process \\d+, still running; --force removes them anyway\\nremoved 0 containers$`,
      ),
    );
  });

  it('lets the task finish and be stored, not an error', () => {
    expect(result.exitCode, result.all).toBe(0);
    expect(queryRun<{ status: string; error: string | null; both_passed: number }>(runs, run, 'SELECT status, error, both_passed FROM tasks')).toEqual([
      { status: 'done', error: null, both_passed: 1 },
    ]);
  });

  it('removes nothing of a finished run, and nothing is left', async () => {
    const after = await coopBench(['clean', '--name', run, '--runs-dir', runs]);
    expect(after.stdout).toBe('removed 0 containers');
    expect(await containersOf(run)).toEqual([]);
  });
});
