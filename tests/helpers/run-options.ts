// The options `coop-bench run` would pass for a run of the shipped pools on the local backend, for
// tests that call runBenchmark directly: each test names only what it is about.
import type { RunOptions } from '../../harness/run/run-benchmark.ts';
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
