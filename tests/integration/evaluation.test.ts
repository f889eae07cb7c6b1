// The evaluation stage on real containers: inputs that do not merge, merged code that does not
// even import, and the LLM merge stage as a run records it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPool } from '../../tasks/pools.ts';
import { poolImage, type PoolImage } from '../../harness/sandbox/docker/images.ts';
import { engineAt } from '../../harness/sandbox/docker/engine.ts';
import { baseRepo } from '../../harness/sandbox/docker/base-repo.ts';
import { DEFAULT_LIMITS, type BackendSlot, type BaseRepo } from '../../harness/sandbox/types.ts';
import { createBackend } from '../../harness/sandbox/registry.ts';
import { evaluatePatches } from '../../harness/evaluation/evaluate.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';
import { coopBench, tempDir } from '../helpers/cli.ts';
import { writeLegacyRun } from '../helpers/legacy-run.ts';
import { DEFAULT_RESOLVER_MODEL, mergePatches } from '../../resolver/index.ts';
import { migrations } from '../../harness/store/schema.ts';
import { startFakeVllm, type FakeOpenAIServer, type RecordedRequest } from '../fakes/openai-server.ts';

const pool = loadPool(join(SHIPPED_POOLS, 'tabulite_task', 'task1'));
const gold = (id: number) => readFileSync(pool.features[id - 1].patchPath, 'utf8');
let image: PoolImage;
let base: BaseRepo;
let slot: BackendSlot;

beforeAll(async () => {
  image = await poolImage(engineAt(), pool);
  slot = (await createBackend('docker', { log: () => undefined })).acquire();
  base = await baseRepo(image, 'evaluation-test');
});

const evaluate = (features: number[], patches: string[]) =>
  evaluatePatches({
    features: features.map((id) => pool.features[id - 1]),
    patches,
    base,
    tests: { slot, image, run: 'evaluation-test', limits: DEFAULT_LIMITS, timeoutMs: 300_000 },
    merge: {},
  });

describe('evaluation of merged work', () => {
  it('an agent patch that does not apply makes the merge missing_input and fails both features', async () => {
    const broken = gold(2).replace(/^ /m, ' not the base text ');
    const result = await evaluate([1, 2], [gold(1), broken]);
    expect(result.merge.status).toBe('missing_input');
    expect(result.bothPassed).toBe(false);
    expect(result.evaluations.map((e) => e.cause)).toEqual([expect.stringMatching(/^merge missing_input: /), expect.stringMatching(/^merge missing_input: /)]);
  });

  it('a union merge that does not even import is a test failure with its cause, not a harness error', async () => {
    // The gold patches of tabulite features 2 and 3 both add a parameter to format_table's signature.
    const result = await evaluate([2, 3], [gold(2), gold(3)]);
    expect(result.merge.status).toBe('union');
    expect(result.bothPassed).toBe(false);
    for (const e of result.evaluations) {
      expect(e.exitCode).not.toBe(0);
      expect(e.cause).toMatch(/Error/);
    }
    // The structural probe (its own attempt) runs beside the paper's cascade.
    const cascade = result.attempts.filter((a) => a.stage !== 'structural');
    expect(cascade.map((a) => [a.stage, a.outcome, a.tested?.passed])).toEqual([
      ['naive', 'conflict', undefined],
      ['union', 'merged', false],
      ['union-reversed', 'merged', false],
      ['llm', 'skipped', undefined],
    ]);
    expect(cascade[3]!.reason).toMatch(/^no resolver configured/);
    expect(cascade[1]!.final).toBe(true);
  });

  it('a clean merge of compatible work passes', async () => {
    const result = await evaluate([1, 2], [gold(1), '']);
    expect(result.merge.status).toBe('clean');
    expect(result.evaluations.map((e) => e.passed)).toEqual([true, false]);
  });
});

/** A resolver that keeps both sides of each region: a valid answer the stage must accept. */
function keepBothSides(request: RecordedRequest): string {
  const prompt = request.body.messages.at(-1).content as string;
  const fence = /^(`{3,})$/m.exec(prompt)![1];
  const excerpt = prompt.slice(prompt.indexOf(`${fence}\n`) + fence.length + 1, prompt.lastIndexOf(fence));
  return `${fence}\n${excerpt
    .split('\n')
    .filter((line) => !/^(<<<<<<<|=======|>>>>>>>)/.test(line))
    .join('\n')}${fence}`;
}

describe('the LLM merge stage in a run', () => {
  const runs = tempDir('llm-stage');
  let resolver: FakeOpenAIServer;
  const merges = (run: string) => {
    const db = new Database(join(runs, run, 'run.db'), { readonly: true });
    try {
      const merge = db.prepare('SELECT status, strategy FROM merges').get() as Record<string, unknown>;
      const attempts = db.prepare('SELECT stage, outcome, reason, passed, final, details FROM merge_attempts ORDER BY idx').all() as Record<string, unknown>[];
      const llm = attempts.find((a) => a.stage === 'llm')!;
      const details = JSON.parse(llm.details as string) as { model: string; latencyMs: number };
      return {
        ...merge,
        // The paper's cascade; the structural probe beside it is checked in the merge tests.
        stages: attempts.filter((a) => a.stage !== 'structural').map((a) => `${a.stage} ${a.outcome}${a.final ? ' (final)' : ''}`),
        llmReason: llm.reason,
        llmModel: details.model,
        llmLatencyMs: details.latencyMs,
      };
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    resolver = await startFakeVllm({ served: [DEFAULT_RESOLVER_MODEL], handler: keepBothSides });
  });
  afterAll(() => resolver.close());

  it('runs after a failing union merge and records strategy, outcome and latency', async () => {
    const run = await coopBench([
      'run',
      '--models',
      'oracle',
      '--setting',
      'coop',
      '--pool',
      'tabulite',
      '--features',
      '2,3',
      '--name',
      'resolved',
      '--runs-dir',
      runs,
      '--resolver-url',
      resolver.url,
    ]);
    expect(run.exitCode, run.all).toBe(0);
    expect(resolver.requests.length).toBeGreaterThan(0);
    expect(resolver.requests[0].body).toMatchObject({ model: DEFAULT_RESOLVER_MODEL, temperature: 0 });
    expect(merges('resolved')).toMatchObject({
      status: 'llm',
      strategy: 'llm',
      stages: ['naive conflict', 'union merged', 'union-reversed merged', 'llm merged (final)'],
      llmModel: expect.stringContaining('Qwen2.5-Coder-0.5B-Merge-Resolver'),
    });
    expect(merges('resolved').llmLatencyMs).toBeGreaterThan(0);
  });

  it('a bad answer is rejected, the union result kept and the reason recorded (coop-bench eval)', async () => {
    resolver.handle(() => 'I cannot help with that.');
    const run = await coopBench(['eval', '--name', 'resolved', '--runs-dir', runs, '--resolver-url', resolver.url]);
    expect(run.exitCode, run.all).toBe(0);
    expect(merges('resolved')).toMatchObject({
      status: 'union',
      strategy: 'union',
      stages: ['naive conflict', 'union merged (final)', 'union-reversed merged', 'llm rejected'],
      llmReason: expect.stringMatching(/./),
    });
  });

  it('an unreachable resolver is recorded, not a lost result', async () => {
    const run = await coopBench(['eval', '--name', 'resolved', '--runs-dir', runs, '--resolver-url', 'http://127.0.0.1:9/v1', '--resolver-timeout', '2']);
    expect(run.exitCode, run.all).toBe(0);
    expect(merges('resolved')).toMatchObject({
      status: 'union',
      stages: ['naive conflict', 'union merged (final)', 'union-reversed merged', 'llm error'],
      llmReason: expect.stringContaining('127.0.0.1:9'),
    });
  });
});

describe('coop-bench eval of a run made before merge attempts were stored', () => {
  const runs = tempDir('legacy-eval');

  it('migrates it, merges again as CooperBench does, and measures the union order', async () => {
    const patches = [gold(2), gold(3)];
    // What an older coop-bench stored: its own union (patch 1's lines first), no attempts.
    writeLegacyRun(runs, 'legacy', [
      { repo: 'tabulite_task', poolDir: pool.dir, features: [2, 3], patches, merge: { status: 'union', patch: 'an older union\n' }, passed: false },
    ]);
    const result = await coopBench(['eval', '--name', 'legacy', '--runs-dir', runs]);
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stderr).toMatch(/evaluated coop oracle tabulite_task\/task1 f2_f3: not both \(f2 fail, f3 fail; merge union\)/);
    expect(result.stdout).toMatch(/oracle\s+coop\s+1\s+1\s+0\/1 \(0\.0%\)\s+0\s+0\s+0\s+0\/0\/1\/0\/0\/0\s+0\/1\s+0\/1 \(0\.0%\)/);
    const db = new Database(join(runs, 'legacy', 'run.db'), { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
      const merge = db.prepare('SELECT status, patch FROM merges').get() as { status: string; patch: string };
      expect(merge.status).toBe('union');
      expect(merge.patch).toBe((await mergePatches({ repoDir: base.dir, baseRev: base.rev, patches })).patch);
      const attempts = db.prepare('SELECT stage, outcome, passed, final FROM merge_attempts ORDER BY idx').all();
      expect(attempts).toEqual([
        { stage: 'naive', outcome: 'conflict', passed: null, final: 0 },
        { stage: 'structural', outcome: 'conflict', passed: null, final: 0 },
        { stage: 'union', outcome: 'merged', passed: 0, final: 1 },
        { stage: 'union-reversed', outcome: 'merged', passed: 0, final: 0 },
        { stage: 'llm', outcome: 'skipped', passed: null, final: 0 },
      ]);
    } finally {
      db.close();
    }
  });
});
