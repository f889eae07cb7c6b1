// Fault injection, on real Docker: the coop-bench process killed with SIGKILL, a second
// process on the same run, an agent's container killed mid-task, a model API that fails or hangs,
// and tests that never end. No finished result may be lost or redone, and the score must be the
// one a fault-free run gives. (SIGINT is in core-pipeline.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import Docker from 'dockerode';
import { CLI, coopBench, containersOf, tempDir } from '../helpers/cli.ts';
import { filesUnder, queryRun, uniqueRun } from '../helpers/run-db.ts';
import { bash, finish, scriptsByModel, type Script } from '../helpers/hostile-agents.ts';
import { agentIdOf, competentScript, implement, scriptedAgents, transcript } from '../helpers/scripted-agents.ts';
import { errorReply, hangReply, startFakeOpenAI, startFakeVllm, type FakeOpenAIServer, type FakeReply, type RecordedRequest } from '../fakes/openai-server.ts';
import { anthropicErrorReply, startFakeAnthropic, type FakeAnthropicServer } from '../fakes/anthropic-server.ts';
import { AGENT_LABEL, TASK_LABEL } from '../../harness/sandbox/labels.ts';
import { loadPool } from '../../tasks/pools.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';

const pool = loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1'));
const runs = tempDir('faults');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface TaskRow {
  id: number;
  key: string;
  models: string;
  setting: string;
  status: string;
  error: string | null;
  both_passed: number | null;
  attempts: number;
  finished_at: string | null;
}
const tasksOf = (run: string) => queryRun<TaskRow>(runs, run, 'SELECT * FROM tasks ORDER BY id');

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    // A run.db just created may not have its tables yet.
    if (
      await Promise.resolve()
        .then(condition)
        .catch(() => false)
    )
      return;
    await sleep(100);
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('kill -9 of coop-bench mid-run, then the same run again', () => {
  const run = uniqueRun('kill9');
  const subset = join(runs, 'three-pairs.json');
  const args = ['run', '--models', 'oracle', '--pool', 'argkit', '--subset', subset, '--concurrency', '1', '--name', run, '--runs-dir', runs];
  let before: TaskRow[];
  let second: Awaited<ReturnType<typeof coopBench>>;
  let resumed: Awaited<ReturnType<typeof coopBench>>;
  let leftovers: number;

  beforeAll(async () => {
    writeFileSync(
      subset,
      JSON.stringify({
        name: 'three-pairs',
        tasks: [
          {
            repo: 'argkit_task',
            task_id: 1,
            pairs: [
              [1, 2],
              [1, 3],
              [2, 3],
            ],
          },
        ],
      }),
    );
    const child = execa('node', [CLI, ...args], { reject: false, all: true });
    const db = join(runs, run, 'run.db');
    await until(
      () => existsSync(db) && tasksOf(run).filter((t) => t.status === 'done').length >= 2 && tasksOf(run).some((t) => t.status === 'running'),
      'two finished tasks and a running one',
    );
    // A second process on the same run while the first works: refused, before it writes anything.
    second = await coopBench(args);
    child.kill('SIGKILL');
    await child;
    before = tasksOf(run);
    leftovers = (await containersOf(run)).length;
    resumed = await coopBench(args);
  });

  it('a second process on a run in use is refused with one line', () => {
    expect(second.exitCode).toBe(2);
    expect(second.stderr.trim()).toMatch(
      new RegExp(
        `^coop-bench: run ${run} is in use by another coop-bench process \\(it holds .*run\\.lock\\): wait for it to finish or stop it, or choose another --name$`,
      ),
    );
  });

  it('the resumed run says what it found and finishes every task', () => {
    expect(resumed.exitCode, resumed.all).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`run ${run} was stopped without cleaning up: 1 unfinished task\\(s\\) will run again`));
    process.stdout.write(
      `kill -9: ${before.filter((t) => t.status === 'done').length} tasks finished before the kill, ${leftovers} container(s) left by the killed process\n`,
    );
    expect(tasksOf(run).map((t) => t.status)).toEqual(Array(6).fill('done'));
  });

  it('no finished task is lost or redone', () => {
    const after = new Map(tasksOf(run).map((t) => [t.id, t]));
    const finished = before.filter((t) => t.status === 'done');
    expect(finished.length).toBeGreaterThanOrEqual(2);
    for (const t of finished) expect(after.get(t.id), t.key).toEqual(t);
    const interrupted = before.filter((t) => t.status === 'running');
    expect(interrupted).toHaveLength(1);
    expect(after.get(interrupted[0].id)).toMatchObject({ status: 'done', attempts: 2 });
  });

  it('no duplicate rows, and one set of files per task', () => {
    const count = (table: string) => queryRun<{ n: number }>(runs, run, `SELECT COUNT(*) AS n FROM ${table}`)[0].n;
    expect(count('tasks')).toBe(6);
    expect(count('agents')).toBe(3 * 2 + 3 * 1);
    expect(count('evaluations')).toBe(6 * 2);
    expect(count('merges')).toBe(6);
    expect(filesUnder(join(runs, run, 'logs')).filter((f) => f.endsWith('/result.json'))).toHaveLength(6);
  });

  it('no orphan container after coop-bench clean', async () => {
    const clean = await coopBench(['clean', '--name', run]);
    expect(clean.exitCode, clean.all).toBe(0);
    expect(await containersOf(run)).toEqual([]);
  });
});

describe('an agent container killed mid-task', () => {
  const run = uniqueRun('killed-agent');
  let server: FakeOpenAIServer;
  let killed = false;
  const sleeping = new Set<string>();
  const requests: RecordedRequest[] = [];
  const scripts: Record<string, Script> = {
    good: competentScript,
    // Both agents start a long command; once the harness has been hit, the model behaves.
    sleeper: (p, prompt) => (killed ? competentScript(p, prompt) : [bash(`echo ${agentIdOf(prompt)} sleeping; sleep 590`, 600), finish]),
  };
  let first: Awaited<ReturnType<typeof coopBench>>;
  let resumed: Awaited<ReturnType<typeof coopBench>>;
  let partnerCalls: number;

  beforeAll(async () => {
    server = await startFakeVllm({
      served: ['sleeper', 'good'],
      handler: scriptsByModel(pool, scripts, (request) => {
        requests.push(request);
        if (request.body.model === 'sleeper' && !killed) sleeping.add(agentIdOf(transcript(request))!);
      }),
    });
    const models = `openai:sleeper@${server.url},openai:good@${server.url}`;
    const args = [
      'run',
      '--models',
      models,
      '--context-window',
      '128000',
      '--setting',
      'coop',
      '--pool',
      'argkit',
      '--features',
      '1,3',
      '--concurrency',
      '2',
      '--name',
      run,
      '--runs-dir',
      runs,
    ];
    const child = execa('node', [CLI, ...args], { reject: false, all: true });
    await until(() => sleeping.size === 2, 'both sleeper agents at work');
    const sleeperTask = tasksOf(run).find((t) => t.models.includes('sleeper'))!;
    const [container] = await new Docker().listContainers({
      filters: { label: [`${TASK_LABEL}=${sleeperTask.id}`, `${AGENT_LABEL}=agent1`, `coop-bench.run=${run}`] },
    });
    killed = true;
    await new Docker().getContainer(container.Id).kill();
    first = await child;
    partnerCalls = requests.filter((r) => r.body.model === 'sleeper' && transcript(r).includes('You are agent2')).length;
    resumed = await coopBench(args);
  });

  afterAll(() => server.close());

  it('marks that task error with the reason, and the rest of the run goes on', () => {
    expect(first.exitCode, first.all).toBe(1);
    expect(first.stderr).toMatch(/error\s+coop openai:sleeper@\S+ argkit_task\/task1 f1_f3: agent1's container stopped during the task \(exit code 137\)/);
    expect(first.stderr).toMatch(/done\s+coop openai:good@\S+ argkit_task\/task1 f1_f3: both pass/);
  });

  it('stops the partner in its long command instead of letting it work for nothing', () => {
    expect(partnerCalls).toBe(1);
  });

  it('runs the failed task again on resume, keeping the finished one', () => {
    expect(resumed.exitCode, resumed.all).toBe(0);
    expect(resumed.stderr).toContain('1 of 2 tasks already finished');
    expect(tasksOf(run).map((t) => [t.status, t.both_passed])).toEqual([
      ['done', 1],
      ['done', 1],
    ]);
  });

  it('leaves no container behind', async () => {
    expect(await containersOf(run)).toEqual([]);
  });
});

/** Every fifth call of a server fails: 429, 500, 503, or no answer at all, in turn. */
function flaky<T>(handler: (request: RecordedRequest) => T, faults: FakeReply[], injected: { count: number }) {
  let calls = 0;
  return (request: RecordedRequest): T | FakeReply => {
    calls++;
    if (calls % 5 !== 0) return handler(request);
    return faults[injected.count++ % faults.length];
  };
}

describe('a model API that answers 429/5xx or hangs on 20% of calls', () => {
  const injected = { count: 0 };
  const servers: { openai?: FakeOpenAIServer; anthropic?: FakeAnthropicServer; flakyOpenai?: FakeOpenAIServer; flakyAnthropic?: FakeAnthropicServer } = {};
  const verdicts = (run: string) => tasksOf(run).map((t) => `${t.key}: ${t.status} ${t.both_passed}`);
  const runWith = (openai: FakeOpenAIServer, anthropic: FakeAnthropicServer, run: string) =>
    coopBench(
      [
        'run',
        '--models',
        'gpt-5,claude',
        '--setting',
        'both',
        '--pool',
        'argkit',
        '--features',
        '1,3',
        '--model-retries',
        '4',
        '--model-timeout',
        '3',
        '--concurrency',
        '4',
        '--name',
        run,
        '--runs-dir',
        runs,
      ],
      {
        env: { OPENAI_BASE_URL: openai.url, ANTHROPIC_BASE_URL: anthropic.url, OPENAI_API_KEY: 'sk-test-faults-1', ANTHROPIC_API_KEY: 'sk-ant-test-faults-1' },
      },
    );
  const clean = uniqueRun('api-clean');
  const faulty = uniqueRun('api-faulty');
  let result: Awaited<ReturnType<typeof coopBench>>;

  beforeAll(async () => {
    servers.openai = await startFakeOpenAI({ handler: scriptedAgents(pool, 'openai') });
    servers.anthropic = await startFakeAnthropic({ handler: scriptedAgents(pool, 'anthropic') });
    servers.flakyOpenai = await startFakeOpenAI({
      handler: flaky(scriptedAgents(pool, 'openai'), [errorReply(429), errorReply(500), errorReply(503), hangReply], injected),
    });
    servers.flakyAnthropic = await startFakeAnthropic({
      handler: flaky(scriptedAgents(pool, 'anthropic'), [anthropicErrorReply(429), anthropicErrorReply(529), anthropicErrorReply(500), hangReply], injected),
    });
    const control = await runWith(servers.openai, servers.anthropic, clean);
    expect(control.exitCode, control.all).toBe(0);
    result = await runWith(servers.flakyOpenai, servers.flakyAnthropic, faulty);
  });

  afterAll(async () => {
    await Promise.all(Object.values(servers).map((s) => s?.close()));
  });

  it('completes with retries and gives the score of the fault-free run', () => {
    expect(result.exitCode, result.all).toBe(0);
    process.stdout.write(`model API faults: ${injected.count} failed or hung calls injected, all retried\n`);
    expect(injected.count).toBeGreaterThanOrEqual(4);
    expect(verdicts(faulty)).toEqual(verdicts(clean));
    expect(verdicts(faulty).every((v) => v.endsWith('done 1'))).toBe(true);
  });
});

describe('a model API that never recovers, and tests that never end', () => {
  const run = uniqueRun('give-up');
  let server: FakeOpenAIServer;
  let result: Awaited<ReturnType<typeof coopBench>>;
  const scripts: Record<string, Script> = {
    good: (p, prompt) => [...implement(p, prompt), finish],
    // Implements the features, then makes every import of the parser spin forever.
    'hang-tests': (p, prompt) => [...implement(p, prompt), bash('sed -i "1i for (;;) {}" src/parser.js'), finish],
  };

  beforeAll(async () => {
    const byScript = scriptsByModel(pool, scripts);
    server = await startFakeVllm({
      served: ['down', 'hung', 'hang-tests', 'good'],
      handler: (request) =>
        request.body.model === 'down' ? errorReply(503, 'the provider is down') : request.body.model === 'hung' ? hangReply : byScript(request),
    });
    const models = ['down', 'hung', 'hang-tests', 'good'].map((m) => `openai:${m}@${server.url}`).join(',');
    result = await coopBench([
      'run',
      '--models',
      models,
      '--context-window',
      '128000',
      '--setting',
      'solo',
      '--pool',
      'argkit',
      '--features',
      '1,3',
      '--model-retries',
      '2',
      '--model-timeout',
      '2',
      '--test-timeout',
      '20',
      '--concurrency',
      '4',
      '--name',
      run,
      '--runs-dir',
      runs,
    ]);
  });

  afterAll(() => server.close());

  const task = (model: string) => tasksOf(run).find((t) => t.models.includes(`openai:${model}@`))!;

  it('gives up on a task with a clear reason after its retries; the rest of the run goes on', () => {
    expect(result.exitCode, result.all).toBe(1);
    expect(task('down')).toMatchObject({
      status: 'error',
      error: expect.stringMatching(
        /^model down at 127\.0\.0\.1:\d+: server error 503 after 3 attempts: the provider is down; the provider is failing, retry later$/,
      ),
    });
    expect(task('hung')).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/^model hung at 127\.0\.0\.1:\d+: no answer within 2 s \(3 attempts\): check that the server is up, or retry later$/),
    });
    expect(task('good')).toMatchObject({ status: 'done', both_passed: 1 });
    expect(result.stdout).toContain('2 task(s) not finished: run the same command again to retry them');
  });

  it('kills a test run at its timeout and marks the feature failed with timeout', () => {
    expect(task('hang-tests')).toMatchObject({ status: 'done', both_passed: 0 });
    const evaluations = queryRun<{ passed: number; timed_out: number; exit_code: number | null; cause: string }>(
      runs,
      run,
      'SELECT passed, timed_out, exit_code, cause FROM evaluations WHERE task = ?',
      task('hang-tests').id,
    );
    expect(evaluations).toEqual([1, 3].map(() => ({ passed: 0, timed_out: 1, exit_code: null, cause: 'timeout: the tests ran longer than 20 s' })));
  });

  it('leaves no container behind', async () => {
    expect(await containersOf(run)).toEqual([]);
  });
});
