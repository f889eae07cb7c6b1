// A run refuses, before anything is built, a model retired on the run's date (first run and resume
// alike: the same command) and a model an agent CLI does not know; the same run is accepted a day
// earlier, or when a degraded CLI model is allowed.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runBenchmark, type RunOptions } from '../../../../harness/run/run-benchmark.ts';
import type { RunIO } from '../../../../harness/run/task-runner.ts';
import { coopBench, tempDir } from '../../../helpers/cli.ts';
import { runOptions } from '../../../helpers/run-options.ts';

const runs = tempDir('refusals');
afterAll(() => rmSync(runs, { recursive: true, force: true }));
const env = { OPENAI_API_KEY: 'sk-test-openai', ANTHROPIC_API_KEY: 'sk-ant-test' };

const options = (models: string[], today: string, extra: Partial<RunOptions> = {}): RunOptions =>
  runOptions({
    name: models.join('_').replace(/[^\w.-]/g, '_'),
    runsDir: runs,
    models,
    settings: ['solo'],
    pools: ['argkit_task'],
    modelOptions: { env, today, warn: () => {} },
    // No model service here: the checks before it are what is tested (preflight.test.ts has its own).
    preflight: false,
    ...extra,
  });

/** Runs with a backend that records being asked for: a refused run never asks. */
async function attempt(run: RunOptions): Promise<{ error?: Error; built: boolean }> {
  let built = false;
  const io: RunIO = {
    out: () => {},
    list: async () => {},
    log: () => {},
    progress: () => ({ update: () => undefined, log: () => {}, stop: () => undefined }),
  };
  const createBackend = () => {
    built = true;
    return Promise.reject(new Error('stop here: the checks passed'));
  };
  try {
    await runBenchmark(run, { createBackend, io });
  } catch (error) {
    return { error: error as Error, built };
  }
  return { built };
}

describe('a run and the models it names', () => {
  it.each([
    ['anthropic:claude-sonnet-4-5', 'use claude-sonnet-5-5 instead'],
    ['claude-code:claude-sonnet-4-5', 'use claude-sonnet-5-5 instead'],
  ])('%s on 2026-12-01: refused in one line naming the replacement, before any build, and again on resume', async (spec, replacement) => {
    for (let i = 0; i < 2; i++) {
      const { error, built } = await attempt(options([spec], '2026-12-01'));
      expect(error?.message).toMatch(new RegExp(`^model claude-sonnet-4-5 \\(anthropic:claude-sonnet-4-5\\) was retired on 2026-11-30: .*${replacement}`));
      expect(error?.message).not.toContain('\n');
      expect(built).toBe(false);
      expect(existsSync(join(runs, options([spec], '2026-12-01').name))).toBe(false);
    }
  });

  it('accepts the same model on 2026-11-29, and claude and the CLI defaults after the retirement', async () => {
    expect(await attempt(options(['anthropic:claude-sonnet-4-5'], '2026-11-29'))).toMatchObject({ built: true });
    const defaults = await attempt(options(['claude', 'claude-code', 'codex'], '2026-12-01'));
    expect(defaults.error?.message).toBe('stop here: the checks passed');
  });

  it('refuses a model the pinned Codex CLI does not know, unless allowed (then it runs degraded)', async () => {
    const { error, built } = await attempt(options(['codex:gpt-5'], '2026-11-29'));
    expect(error?.message).toMatch(
      /^codex:gpt-5: Codex CLI 0\.169\.0 does not know gpt-5 \(its bundled model catalogue lists .*gpt-5\.6-sol.*\): .*; name gpt-5\.5, or pass --allow-degraded-cli-model/,
    );
    expect(built).toBe(false);
    expect(await attempt(options(['codex:gpt-5'], '2026-11-29', { allowDegradedCliModel: true }))).toMatchObject({ built: true });
  });

  it('refuses a model the pinned Codex CLI sends in Responses Lite form, naming the one it runs fully, unless allowed', async () => {
    const { error, built } = await attempt(options(['codex:gpt-5.6-sol'], '2026-11-29'));
    expect(error?.message).toMatch(
      /^codex:gpt-5\.6-sol: Codex CLI 0\.169\.0 runs gpt-5\.6-sol in Responses Lite mode, .*; name gpt-5\.5, which it runs with standard requests and direct tools, or pass --allow-degraded-cli-model/,
    );
    expect(built).toBe(false);
    expect(await attempt(options(['codex:gpt-5.6-sol'], '2026-11-29', { allowDegradedCliModel: true }))).toMatchObject({ built: true });
  });

  it('the command line: run --models <retired> stops with one line and exit code 2; coop-bench models shows the day', async () => {
    const refused = await coopBench(['run', '--models', 'claude-code:claude-sonnet-4-5', '--pool', 'argkit_task', '--runs-dir', runs], {
      env: { ...env, COOP_BENCH_TODAY: '2026-12-01' },
    });
    expect(refused.exitCode).toBe(2);
    expect(refused.all).toMatch(
      /^coop-bench: model claude-sonnet-4-5 \(anthropic:claude-sonnet-4-5\) was retired on 2026-11-30: .*use claude-sonnet-5-5 instead/,
    );
    const listed = await coopBench(['models', '--date', '2026-12-01']);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toMatch(/^claude-sonnet-4-5 .*retired on 2026-11-30$/m);
  }, 300_000);
});
