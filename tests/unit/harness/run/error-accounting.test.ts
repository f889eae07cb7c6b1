// Which failures leave a task out of the rates (infrastructure, harness, pool) and which are the agent's
// (scored); the store keeps why, and each step as it happens; a run needs every model's window.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { taskErrorKind } from '../../../../harness/run/error-kind.ts';
import { ModelError, findContextWindows, parseModelSpec } from '../../../../harness/models/index.ts';
import { ContainerStoppedError, isEngineError } from '../../../../harness/sandbox/docker/engine.ts';
import { UserError } from '../../../../harness/errors.ts';
import { RunStore } from '../../../../harness/store/run-store.ts';
import { formatSummary, summarize } from '../../../../harness/run/summary.ts';
import { PoolDefectError } from '../../../../harness/agents/types.ts';
import { Trajectory } from '../../../../harness/agents/trajectory.ts';
import { startFakeOpenAI, startFakeVllm } from '../../../fakes/openai-server.ts';
import { coopBench } from '../../../helpers/cli.ts';
import type { Pool } from '../../../../tasks/types.ts';
import { storeDb } from '../../../helpers/run-db.ts';

const dir = mkdtempSync(join(tmpdir(), 'error-accounting-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('taskErrorKind', () => {
  it('calls a provider that failed after its retries, or the Docker engine, the infrastructure', () => {
    expect(taskErrorKind(new ModelError('503 after 7 attempts', 'server', 503), isEngineError)).toBe('infrastructure');
    expect(taskErrorKind(new ModelError('rate limited', 'rate_limit', 429), isEngineError)).toBe('infrastructure');
    expect(taskErrorKind(new ModelError('cannot connect', 'connection'), isEngineError)).toBe('infrastructure');
    expect(taskErrorKind(new ModelError('model: claude-x: not found (404)', 'not_found', 404), isEngineError)).toBe('infrastructure');
    expect(taskErrorKind(new ModelError('request rejected (400) (the first request)', 'first_request_refused', 400), isEngineError)).toBe('infrastructure');
    expect(taskErrorKind(Object.assign(new Error('(HTTP code 404) no such container'), { statusCode: 404 }), isEngineError)).toBe('infrastructure');
    expect(taskErrorKind(new Error("agent1's container stopped", { cause: new ContainerStoppedError('exit code 137') }), isEngineError)).toBe('infrastructure');
  });

  it("calls a defect of the task's pool (a gold patch that does not apply) the pool's, however deep the cause", () => {
    const defect = new PoolDefectError('pool demo_task/task1: gold patch feature1/feature.patch (feature 1, /pools/f.patch) does not apply');
    expect(taskErrorKind(defect, isEngineError)).toBe('pool');
    expect(taskErrorKind(new Error('agent1 failed', { cause: defect }), isEngineError)).toBe('pool');
  });

  it("calls anything else the harness's: a bug, counted and shown", () => {
    expect(taskErrorKind(new TypeError("Cannot read properties of undefined (reading 'patch')"), isEngineError)).toBe('harness');
    // A 400 reaching the task is the harness's doing: the agent loop turns the model's own into model_rejected.
    expect(taskErrorKind(new ModelError('request rejected (400)', 'request', 400), isEngineError)).toBe('harness');
  });
});

describe('the run store', () => {
  const pool = { repo: 'demo_task', taskId: 1, dir: '/pools/demo_task/task1', features: [], publishedImage: 'none' } as Pool;

  it('keeps why a task failed, and each step as it happens (a new attempt starts afresh)', () => {
    const store = RunStore.open(dir, 'store', { create: true });
    try {
      const id = store.ensureTask({ pool, features: [1, 2], setting: 'coop', models: ['m', 'm'], variant: '' }).id;
      store.markRunning(id, 'hash-1');
      const trajectory = new Trajectory((step) => store.recordStep(id, 'agent1', step));
      trajectory.record({ kind: 'note', name: 'task_prompt', output: 'Add a flag.' });
      trajectory.record({ kind: 'tool', name: 'bash', input: '{"command":"ls"}', output: 'a.txt', exitCode: 0 });
      expect(storeDb(store).prepare('SELECT idx, name FROM steps WHERE task = ?').all(id)).toEqual([
        { idx: 0, name: 'task_prompt' },
        { idx: 1, name: 'bash' },
      ]);
      store.markError(id, 'engine gone', 'infrastructure');
      expect(store.tasks()[0]).toMatchObject({ status: 'error', error_kind: 'infrastructure', agent_config: 'hash-1' });
      store.markRunning(id, 'hash-1');
      expect(storeDb(store).prepare('SELECT COUNT(*) AS n FROM steps WHERE task = ?').get(id)).toEqual({ n: 0 });
      expect(store.tasks()[0]).toMatchObject({ status: 'running', error_kind: null });
      store.markError(id, 'interrupted by SIGINT', 'interrupted');
      expect(store.tasks()[0]).toMatchObject({ status: 'interrupted', error_kind: 'interrupted' });
      store.markError(id, 'pool demo_task/task1: gold patch feature1/feature.patch does not apply', 'pool');
      expect(store.tasks()[0]).toMatchObject({ status: 'error', error_kind: 'pool' });
      const summary = formatSummary('store', summarize(store));
      expect(summary).toMatch(/ 1 \(pool 1\) /);
      expect(summary).toContain(
        "excluded as pool: the task's pool is defective (its error names the pool, feature and patch file); fix the pool (coop-bench pools validate <pool folder>) and run again",
      );
      expect(summary).not.toContain('excluded as harness');
    } finally {
      store.close();
    }
  });

  it("keeps the prompt cache's reads and writes, the reasoning tokens and the stop reason of each call", () => {
    const store = RunStore.open(dir, 'calls', { create: true });
    try {
      const id = store.ensureTask({ pool, features: [1], setting: 'solo', models: ['claude'], variant: '' }).id;
      store.recordModelCall(
        id,
        'agent1',
        'claude-sonnet-4-5',
        {
          inputTokens: 5000,
          outputTokens: 100,
          cachedInputTokens: 4000,
          cacheWriteTokens: 900,
          cacheWrite1hTokens: 50,
          reasoningTokens: 0,
          costUsd: 0.01,
          latencyMs: 900,
        },
        'tool_use',
      );
      expect(
        storeDb(store)
          .prepare('SELECT input_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens, stop_reason FROM model_calls')
          .get(),
      ).toEqual({
        input_tokens: 5000,
        cache_read_tokens: 4000,
        cache_write_tokens: 900,
        cache_write_1h_tokens: 50,
        reasoning_tokens: 0,
        stop_reason: 'tool_use',
      });
    } finally {
      store.close();
    }
  });
});

describe('context windows before a run', () => {
  it("takes an unknown model's window from the server (vLLM's max_model_len), or --context-window", async () => {
    const vllm = await startFakeVllm({ maxModelLen: 32_768, served: ['qwen2.5-coder'] });
    try {
      const options = { env: {}, cwd: dir, warn: () => {} };
      const model = parseModelSpec(`openai:qwen2.5-coder@${vllm.url}`);
      expect(await findContextWindows([model, model], options)).toEqual([
        { ...model, contextWindow: 32_768 },
        { ...model, contextWindow: 32_768 },
      ]);
      expect(await findContextWindows([model], { ...options, contextWindow: 16_000 })).toEqual([model]);
    } finally {
      await vllm.close();
    }
  });

  it("refuses to start a run whose model's window nobody knows, before any container starts", async () => {
    const openai = await startFakeOpenAI();
    try {
      await expect(findContextWindows([parseModelSpec(`openai:mystery@${openai.url}`)], { env: {}, cwd: dir, warn: () => {} })).rejects.toThrow(UserError);
      const run = await coopBench([
        'run',
        '--models',
        `openai:mystery@${openai.url}`,
        '--setting',
        'solo',
        '--pool',
        'argkit',
        '--features',
        '1,3',
        '--name',
        'nowindow',
        '--runs-dir',
        dir,
      ]);
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain('coop-bench: the context window of model mystery (openai:mystery@');
      expect(run.stderr).toContain('give it with --context-window <tokens>, or as "contextWindow" in a --prices file');
    } finally {
      await openai.close();
    }
  });
});
