// The core pipeline (plan, agents in sandboxes, patches, merge, hidden tests, store, logs, summary)
// without Docker: `runBenchmark` with the local test backend (tests/fakes/local-backend.ts) gives
// the oracle's per-pair results on argkit that Docker and Kubernetes give
// (tests/golden/oracle-pairs.json, checked on Docker in tests/integration/core-pipeline.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBenchmark, type RunOptions } from '../../../../harness/run/run-benchmark.ts';
import { reEvaluate } from '../../../../harness/run/re-evaluate.ts';
import type { RunIO } from '../../../../harness/run/task-runner.ts';
import { SHIPPED_POOLS } from '../../../../harness/paths.ts';
import { DEFAULT_LIMITS } from '../../../../harness/sandbox/types.ts';
import { createLocalBackend, type LocalBackend } from '../../../fakes/local-backend.ts';
import { goldenPairs, oraclePairs } from '../../../helpers/oracle-pairs.ts';
import { anthropicErrorReply, messageReply, startFakeAnthropic } from '../../../fakes/anthropic-server.ts';
import { queryRun, tempDir } from '../../../helpers/cli.ts';
import { recordingIO, runOptions } from '../../../helpers/run-options.ts';

const POOL = 'argkit_task';
const runs = tempDir('local-runs');
let backend: LocalBackend;
let exitCode: number;
/** What the commands printed, through the injected IO. */
const { io, out, lines } = recordingIO();

const options = (name: string): RunOptions => runOptions({ name, runsDir: runs, pools: [POOL], concurrency: 2 });

/** Sandboxes the first run started. */
let started: { agent: number; testRuns: number };

beforeAll(async () => {
  backend = createLocalBackend();
  exitCode = await runBenchmark(options('local'), { createBackend: async () => backend, io });
  started = { ...backend.started };
}, 600_000);

/** What a command prints from now on: its progress lines and its output. */
function capture(): { lines: () => string[]; out: () => string } {
  const [fromLine, fromOut] = [lines.length, out.length];
  return { lines: () => lines.slice(fromLine), out: () => out.slice(fromOut).join('') };
}

const agentRows = (run: string) =>
  queryRun<{ key: string; agent: string; status: string; patch: string }>(
    runs,
    run,
    'SELECT t.key, a.agent, a.status, a.patch FROM agents a JOIN tasks t ON t.id = a.task ORDER BY t.key, a.agent',
  );

afterAll(() => rmSync(runs, { recursive: true, force: true }));

describe('the core pipeline on the local test backend', () => {
  it('finishes every task of argkit, Coop and Solo', () => {
    expect(exitCode).toBe(0);
    const tasks = queryRun<{ status: string; setting: string; both_passed: number }>(runs, 'local', 'SELECT status, setting, both_passed FROM tasks');
    expect(tasks).toHaveLength(30);
    expect(tasks.every((t) => t.status === 'done')).toBe(true);
    expect(tasks.filter((t) => t.setting === 'solo').every((t) => t.both_passed === 1)).toBe(true);
  });

  it("gives the oracle's per-pair results Docker and Kubernetes give", () => {
    const local = oraclePairs(runs, 'local');
    expect(Object.keys(local)).toHaveLength(15);
    expect(local).toEqual(goldenPairs(local));
  });

  it('prints through the injected IO: a line per task, the summary and where the results are', () => {
    expect(lines.filter((line) => /^done {2}(coop|solo) oracle argkit_task\/task1 f\d_f\d: (both pass|not both) /.test(line))).toHaveLength(30);
    expect(out.join('')).toMatch(/oracle\s+solo\s+15\s+15\s+15\/15 \(100\.0%\)/);
    // Solo tasks all test combined.patch: a feature's tests on it run once, the other tasks reuse the result.
    const marks = lines.join('\n').match(/ \(cached\)/g)?.length ?? 0;
    expect(marks).toBeGreaterThan(0);
    expect(out.join('')).toContain(`${marks} of 60 evaluations from the test cache (marked "cached"`);
    expect(out.join('')).toContain(`results: ${join(runs, 'local')}`);
  });

  it('prints what a pair cost in CPU: its sandboxes by role and the harness process', () => {
    expect(out.join('')).toMatch(
      /^CPU per pair \(30 pairs\): test containers \d+\.\d\d s, agent containers 0\.00 s, harness \d+\.\d\d s; \d+\.\d\d s in all$/m,
    );
  });

  it('writes the log tree and removes every sandbox', () => {
    expect(existsSync(join(runs, 'local', 'logs', 'oracle', 'coop', POOL, 'task1', 'f1_f2', 'result.json'))).toBe(true);
    expect(backend.live.size).toBe(0);
  });

  // 30 evaluations: its own time limit, as the runs below have, since a test cut short by the limit
  // goes on printing into the next test's capture.
  it('eval runs the same stages again on the stored patches, from the test cache, and says so', async () => {
    const before = oraclePairs(runs, 'local');
    const tests = backend.started.testRuns;
    const printed = capture();
    const code = await reEvaluate(
      { name: 'local', runsDir: runs, concurrency: 2, backend: { name: 'local' }, cache: true, limits: DEFAULT_LIMITS, testTimeoutMs: 120_000, merge: {} },
      { createBackend: async () => backend, io },
    );
    expect(code).toBe(0);
    expect(oraclePairs(runs, 'local')).toEqual(before);
    expect(
      printed.lines().filter((line) => /^evaluated .*: (both pass|not both) \(f\d (pass|fail) \(cached\), f\d (pass|fail) \(cached\)/.test(line)),
    ).toHaveLength(30);
    expect(printed.out()).toContain('60 of 60 evaluations from the test cache (marked "cached"');
    expect(backend.started.testRuns).toBe(tests);
    expect(backend.live.size).toBe(0);
  }, 300_000);

  it('the oracle starts no agent sandbox, and its trajectory says how it made its patch', () => {
    expect(started.agent).toBe(0);
    expect(started.testRuns).toBeGreaterThan(0);
    const notes = queryRun<{ output: string }>(runs, 'local', "SELECT output FROM steps WHERE kind = 'note'");
    expect(notes).toHaveLength(45);
    expect(notes[0]!.output).toMatch(/^oracle without an agent container: gold patch (feature\d\/feature|combined)\.patch applied to the base repository/);
    expect(agentRows('local').every((a) => a.status === 'finished' && a.patch.startsWith('diff --git'))).toBe(true);
  });

  it('--oracle-in-container runs the oracle in agent sandboxes: the same patches, byte for byte, and the same results', async () => {
    // One pair of each kind of result on argkit: a union merge that fails, a clean merge, a union
    // merge that passes (the other pairs take the same paths through the agent sandboxes).
    const pairs = [
      [1, 2],
      [1, 3],
      [1, 6],
    ];
    const subset = join(runs, 'in-container-pairs.json');
    writeFileSync(subset, JSON.stringify({ name: 'in-container-pairs', tasks: [{ repo: POOL, task_id: 1, pairs }] }));
    const ofPairs = <T extends { key: string }>(rows: T[]) => rows.filter((row) => pairs.some(([i, j]) => row.key.endsWith(`|f${i}_f${j}`)));
    const agents = backend.started.agent;
    expect(await runBenchmark({ ...options('in-container'), subset, oracleInContainer: true }, { createBackend: async () => backend, io })).toBe(0);
    // Coop: 2 agents a pair; Solo: 1.
    expect(backend.started.agent - agents).toBe(9);
    expect(agentRows('in-container')).toEqual(ofPairs(agentRows('local')));
    const inContainer = oraclePairs(runs, 'in-container');
    expect(Object.keys(inContainer)).toHaveLength(3);
    expect(inContainer).toEqual(Object.fromEntries(Object.entries(oraclePairs(runs, 'local')).filter(([key]) => key in inContainer)));
    const tools = queryRun<{ name: string }>(runs, 'in-container', "SELECT DISTINCT name FROM steps WHERE kind = 'tool' ORDER BY name");
    expect(tools.map((t) => t.name)).toEqual(['bash', 'write_file']);
  }, 600_000);

  it('run --force reuses the test cache and says so; --no-cache runs every test again', async () => {
    const small = { ...options('small'), features: [1, 2] };
    const io2 = { createBackend: async () => backend, io };
    expect(await runBenchmark(small, io2)).toBe(0);
    let tests = backend.started.testRuns;

    const forced = capture();
    expect(await runBenchmark({ ...small, force: true }, io2)).toBe(0);
    expect(forced.lines().join('\n')).toMatch(
      /^the test cache of run small holds \d+ result\(s\): tests of unchanged image, tests and code are not run again but reused \(marked "cached"\); --no-cache runs every test$/m,
    );
    expect(
      forced.lines().filter((line) => /^done {2}(coop|solo) oracle .*: (both pass|not both) \(f1 (pass|fail) \(cached\), f2 (pass|fail) \(cached\)/.test(line)),
    ).toHaveLength(2);
    expect(forced.out()).toContain('4 of 4 evaluations from the test cache');
    expect(backend.started.testRuns).toBe(tests);

    const fresh = capture();
    expect(await runBenchmark({ ...small, force: true, noCache: true }, io2)).toBe(0);
    expect(fresh.lines().join('\n')).not.toContain('cached');
    expect(fresh.out()).toContain('0 of 4 evaluations from the test cache: every test ran');
    expect(backend.started.testRuns).toBeGreaterThan(tests);
    tests = backend.started.testRuns;

    const evaluated = capture();
    const evalOptions = { name: 'small', runsDir: runs, concurrency: 2, backend: { name: 'local' }, limits: DEFAULT_LIMITS, testTimeoutMs: 120_000, merge: {} };
    expect(await reEvaluate({ ...evalOptions, cache: false }, io2)).toBe(0);
    expect(evaluated.lines().filter((line) => /^evaluated .*: (both pass|not both) \(f1 (pass|fail), f2 (pass|fail)[;)]/.test(line))).toHaveLength(2);
    expect(evaluated.out()).toContain('0 of 4 evaluations from the test cache: every test ran');
    expect(backend.started.testRuns).toBeGreaterThan(tests);
  }, 600_000);

  it('a gold patch that does not apply is a pool defect: one line naming the pool, feature and patch file, the task an error (pool), not dropped', async () => {
    const dataset = join(runs, 'broken-pools');
    cpSync(join(SHIPPED_POOLS, POOL), join(dataset, POOL), { recursive: true });
    const patch = join(dataset, POOL, 'task1', 'feature1', 'feature.patch');
    writeFileSync(patch, readFileSync(patch, 'utf8').replace(/^ (.*)$/m, ' $1 not in the base'));
    const printed = capture();
    const code = await runBenchmark(
      { ...options('broken'), poolsDir: dataset, features: [1, 2], settings: ['coop'] },
      { createBackend: async () => backend, io },
    );
    expect(code).toBe(1);
    expect(printed.lines().filter((line) => line.startsWith('error '))).toEqual([
      expect.stringMatching(
        /^error coop oracle argkit_task\/task1 f1_f2: pool argkit_task\/task1: gold patch feature1\/feature\.patch \(feature 1, .+\) does not apply to the base repository: .+ \(fix the pool; coop-bench pools validate .+ checks every gold patch\) \[pool: not scored; fix the pool, then run again\]$/,
      ),
    ]);
    expect(queryRun(runs, 'broken', 'SELECT status, error_kind FROM tasks')).toEqual([{ status: 'error', error_kind: 'pool' }]);
    expect(printed.out()).toMatch(/oracle\s+coop\s+1\s+0\s+0\/0 \(-\)\s+1 \(pool 1\)/);
  });

  it.each([
    {
      what: 'a model the service does not serve (404)',
      name: 'retired',
      model: 'claude-sonnet-9',
      refusal: undefined,
      stop: /^run retired stopped: model claude-sonnet-9 at 127\.0\.0\.1:\d+: not found \(404\): model: claude-sonnet-9; check the model name .*: fix the key or the model name and run the same command again to resume; 0 of \d+ tasks are finished and stored$/,
    },
    {
      what: "a refusal of the agents' first request (400, before any answer)",
      name: 'refused',
      model: 'claude-sonnet-4-5',
      refusal: 'temperature: range: 0..1',
      stop: /^run refused stopped: model claude-sonnet-4-5 at 127\.0\.0\.1:\d+: request rejected \(400\): temperature: range: 0\.\.1 \(the agent's first request, before any model answer: .*\): the model refuses what the harness .* harness bug to report and run the same command again to resume; 0 of \d+ tasks are finished and stored$/,
    },
  ])('$what stops the run on the first call, in one line, every task kept for the resume and none scored', async ({ name, model, refusal, stop }) => {
    const anthropic = await startFakeAnthropic(refusal ? { handler: () => anthropicErrorReply(400, refusal) } : {});
    try {
      const printed = capture();
      const run = runBenchmark(
        {
          ...options(name),
          // The run's own stop on the first call, as with --no-preflight or a model that turns bad
          // after the preflight (the preflight stops a model the service does not serve sooner:
          // preflight.test.ts).
          preflight: false,
          models: [`anthropic:${model}`],
          settings: ['coop'],
          modelOptions: { env: { ANTHROPIC_API_KEY: 'sk-ant-test-key-1', ANTHROPIC_BASE_URL: anthropic.url }, contextWindow: 200_000, warn: () => undefined },
        },
        { createBackend: async () => backend, io },
      );
      await expect(run).rejects.toThrow(stop);
      expect(printed.lines().filter((line) => line.startsWith('stopping: '))).toHaveLength(1);
      const rows = queryRun<{ status: string; both_passed: number | null }>(runs, name, 'SELECT status, both_passed FROM tasks');
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((row) => row.status !== 'done' && row.both_passed === null)).toBe(true);
      // At most the first calls already in flight: 2 tasks at a time, 2 agents each.
      expect(anthropic.requests.length).toBeLessThanOrEqual(4);
    } finally {
      await anthropic.close();
    }
  });

  it("a first request refused after the model answered others' is that task's prompt: the task an infrastructure error, the run and its resume go on", async () => {
    // Agents run a command, then finish. The prompts of feature 3 are refused: in the first run once
    // another agent's second request shows that its first was answered (and recorded); on the resume
    // at once, and nothing is answered until the run has logged a refused task as its error, not
    // stopped on it (the answers stored under this configuration count).
    let answered: () => void;
    let gate = new Promise<void>((resolve) => (answered = resolve));
    let releaseAnswers: () => void = () => undefined;
    let firstAnswers = Promise.resolve();
    const anthropic = await startFakeAnthropic({
      handler: async (request) => {
        const messages = request.body.messages as unknown[];
        if (messages.length > 1) {
          answered();
          return messageReply(null, { toolUses: [{ name: 'finish', input: {} }] });
        }
        if (!JSON.stringify(messages[0]).includes('collect repeated options')) {
          await firstAnswers;
          return messageReply(null, { toolUses: [{ name: 'bash', input: { command: 'true' } }] });
        }
        await gate;
        return anthropicErrorReply(400, 'fake: this prompt is refused');
      },
    });
    const run = () =>
      runBenchmark(
        {
          ...options('prompt-refused'),
          models: ['anthropic:claude-sonnet-4-5'],
          settings: ['coop'],
          modelOptions: { env: { ANTHROPIC_API_KEY: 'sk-ant-test-key-1', ANTHROPIC_BASE_URL: anthropic.url }, contextWindow: 200_000, warn: () => undefined },
        },
        { createBackend: async () => backend, io: answersAfterRefusal },
      );
    const answersAfterRefusal: RunIO = {
      ...io,
      progress: (total) => {
        const progress = io.progress(total);
        return {
          ...progress,
          log: (line) => {
            progress.log(line);
            if (line.includes('fake: this prompt is refused')) releaseAnswers();
          },
        };
      },
    };
    const tasks = () =>
      queryRun<{ key: string; status: string; error_kind: string | null; error: string | null }>(
        runs,
        'prompt-refused',
        'SELECT key, status, error_kind, error FROM tasks ORDER BY key',
      );
    try {
      for (const attempt of ['first run', 'resume']) {
        if (attempt === 'resume') {
          gate = Promise.resolve();
          firstAnswers = new Promise<void>((resolve) => (releaseAnswers = resolve));
        }
        const printed = capture();
        expect(await run()).toBe(1);
        expect(printed.lines().filter((line) => line.startsWith('stopping: '))).toEqual([]);
        const rows = tasks();
        // 6 features, 15 pairs: 5 with feature 3.
        const refused = rows.filter((row) => row.key.split('|').at(-1)!.split('_').includes('f3'));
        expect(refused.map((row) => [row.status, row.error_kind])).toEqual(Array(5).fill(['error', 'infrastructure']));
        expect(rows.filter((row) => !refused.includes(row)).map((row) => row.status)).toEqual(Array(10).fill('done'));
        for (const row of refused) expect(row.error).toMatch(/request rejected \(400\): fake: this prompt is refused \(the agent's first request/);
      }
    } finally {
      releaseAnswers();
      await anthropic.close();
    }
  }, 300_000);
});
