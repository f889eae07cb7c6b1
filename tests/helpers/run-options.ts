// The options `coop-bench run` would pass for a run of the shipped pools on the local backend, for
// tests that call runBenchmark directly: each test names only what it is about.
import type { RunOptions } from '../../harness/run/run-benchmark.ts';
import type { RunIO } from '../../harness/run/task-runner.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';
import { loadAgentConfig } from '../../harness/agents/config/agent-config.ts';
import { DEFAULT_MAX_TASKS } from '../../tasks/plan.ts';
import { DEFAULT_LIMITS } from '../../harness/sandbox/types.ts';

export function runOptions(o: Pick<RunOptions, 'name' | 'runsDir'> & Partial<RunOptions>): RunOptions {
  return {
    poolsDir: SHIPPED_POOLS,
    models: ['oracle'],
    settings: ['coop', 'solo'],
    agents: 2,
    mix: false,
    messaging: true,
    git: false,
    agentConfig: loadAgentConfig(undefined, { stepLimit: 10 }),
    maxTasks: DEFAULT_MAX_TASKS,
    concurrency: 1,
    backend: { name: 'local' },
    force: false,
    noCache: false,
    oracleInContainer: false,
    dryRun: false,
    limits: DEFAULT_LIMITS,
    testTimeoutMs: 120_000,
    modelOptions: {},
    merge: {},
    ...o,
  };
}

/** An IO for runBenchmark that keeps what a run prints: `out` (its results) and `lines` (its log and progress lines). */
export function recordingIO(): { io: RunIO; out: string[]; lines: string[] } {
  const out: string[] = [];
  const lines: string[] = [];
  const io: RunIO = {
    out: (text) => out.push(text),
    list: async (listed) => void out.push(...[...listed].map((line) => `${line}\n`)),
    log: (line) => lines.push(line),
    progress: () => ({ update: () => undefined, log: (line) => lines.push(line), stop: () => undefined }),
  };
  return { io, out, lines };
}
