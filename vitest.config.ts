import { defineConfig } from 'vitest/config';

// Unit tests run two files at a time (vitest's default is one fewer than the cores: one on a
// 2-core machine, while many unit tests wait on git, child processes and local servers); their
// hooks get the tests' time limit. Integration tests share one Docker engine on a small machine,
// so they run one file at a time with generous timeouts. Model retirements are checked against the
// run's date (COOP_BENCH_TODAY): tests run on one fixed day, so the shipped models' statuses do not
// change under them; a test of another day sets its own.
const env = { COOP_BENCH_TODAY: '2026-11-29' };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          maxWorkers: 2,
          testTimeout: 30_000,
          hookTimeout: 30_000,
          env,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          testTimeout: 900_000,
          hookTimeout: 900_000,
          fileParallelism: false,
          env,
        },
      },
    ],
  },
});
