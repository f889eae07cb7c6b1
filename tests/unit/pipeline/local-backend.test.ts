// The core pipeline (plan, agents in sandboxes, patches, merge, hidden tests, store, logs, summary)
// without Docker: `runBenchmark` with the local test backend (tests/fakes/local-backend.ts) gives
// the oracle's per-pair results on argkit that Docker and Kubernetes give
// (tests/golden/oracle-pairs.json, checked against both in tests/integration/kubernetes-run.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBenchmark, type RunOptions } from '../../../harness/run/run-benchmark.ts';
import { reEvaluate } from '../../../harness/run/re-evaluate.ts';
import type { RunIO } from '../../../harness/run/task-runner.ts';
import { SHIPPED_POOLS } from '../../../harness/paths.ts';
import { loadAgentConfig } from '../../../harness/agents/config/agent-config.ts';
import { DEFAULT_MAX_TASKS } from '../../../tasks/plan.ts';
import { DEFAULT_LIMITS } from '../../../harness/sandbox/types.ts';
import { createLocalBackend, type LocalBackend } from '../../fakes/local-backend.ts';
import { oraclePairs, type OraclePairs } from '../../helpers/oracle-pairs.ts';
import { queryRun, tempDir } from '../../helpers/cli.ts';

const GOLDEN = join(import.meta.dirname, '..', '..', 'golden', 'oracle-pairs.json');
const POOL = 'argkit_task';
const runs = tempDir('local-runs');
let backend: LocalBackend;
let exitCode: number;
/** What the commands printed, through the injected IO. */
const out: string[] = [];
const lines: string[] = [];
const io: RunIO = {
  out: (text) => out.push(text),
  list: async (listed) => void out.push(...[...listed].map((line) => `${line}\n`)),
  log: (line) => lines.push(line),
  progress: () => ({ update: () => undefined, log: (line) => lines.push(line), stop: () => undefined }),
};

const options = (name: string): RunOptions => ({
  name,
  runsDir: runs,
  poolsDir: SHIPPED_POOLS,
  models: ['oracle'],
  settings: ['coop', 'solo'],
  pools: [POOL],
  agents: 2,
  mix: false,
  messaging: true,
  git: false,
  agentConfig: loadAgentConfig(undefined, { stepLimit: 10 }),
  maxTasks: DEFAULT_MAX_TASKS,
  concurrency: 2,
  backend: { name: 'local' },
  force: false,
  dryRun: false,
  limits: DEFAULT_LIMITS,
  testTimeoutMs: 120_000,
  modelOptions: {},
  merge: {},
});

beforeAll(async () => {
  backend = createLocalBackend();
  exitCode = await runBenchmark(options('local'), { createBackend: async () => backend, io });
}, 600_000);

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
    if (process.env.UPDATE_GOLDEN)
      writeFileSync(
        GOLDEN,
        `${JSON.stringify({ about: 'The oracle on every Coop pair of the shipped pools, as --backend docker gives it: merge status, both-pass, each feature verdict and exit code. Checked against Docker and Kubernetes in tests/integration/kubernetes-run.test.ts, against the local test backend in tests/unit/pipeline/local-backend.test.ts.', pairs: local }, null, 2)}\n`,
      );
    const golden = (JSON.parse(readFileSync(GOLDEN, 'utf8')) as { pairs: OraclePairs }).pairs;
    const expected = Object.fromEntries(Object.entries(golden).filter(([pair]) => pair.startsWith(`${POOL}/`)));
    expect(Object.keys(expected)).toHaveLength(15);
    expect(local).toEqual(expected);
  });

  it('prints through the injected IO: a line per task, the summary and where the results are', () => {
    expect(lines.filter((line) => /^done {2}(coop|solo) oracle argkit_task\/task1 f\d_f\d: (both pass|not both) /.test(line))).toHaveLength(30);
    expect(out.join('')).toMatch(/oracle\s+solo\s+15\s+15\s+15\/15 \(100\.0%\)/);
    expect(out.join('')).toContain(`results: ${join(runs, 'local')}`);
  });

  it('writes the log tree and removes every sandbox', () => {
    expect(existsSync(join(runs, 'local', 'logs', 'oracle', 'coop', POOL, 'task1', 'f1_f2', 'result.json'))).toBe(true);
    expect(backend.live.size).toBe(0);
  });

  it('eval runs the same stages again on the stored patches, from the test cache', async () => {
    const before = oraclePairs(runs, 'local');
    const code = await reEvaluate(
      { name: 'local', runsDir: runs, concurrency: 2, backend: { name: 'local' }, cache: true, limits: DEFAULT_LIMITS, testTimeoutMs: 120_000, merge: {} },
      { createBackend: async () => backend, io },
    );
    expect(code).toBe(0);
    expect(oraclePairs(runs, 'local')).toEqual(before);
    expect(lines.filter((line) => line.startsWith('evaluated ') && line.includes('2 of 2 test runs cached'))).toHaveLength(30);
    expect(backend.live.size).toBe(0);
  });
});
