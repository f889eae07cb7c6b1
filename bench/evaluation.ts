// (2) Evaluation per pair: the harness's evaluation stage (merge of the two gold patches, then both
// features' hidden tests in fresh containers, in parallel) against the raw test runtime: both
// features' runner on the already-merged patch, each in a container started for it, in parallel
// (`docker run --rm --network none -v <patches>:/patches` through the CLI, and the same through the
// API: create with the bind mount, attach, start, wait, remove). No test cache: every run is cold.
// Then the same evaluation again with the run's test cache, as `coop-bench eval` does.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { combinations } from '../tasks/plan.ts';
import type { Feature } from '../tasks/types.ts';
import { evaluatePatches, type EvaluationInput } from '../harness/evaluation/evaluate.ts';
import { RUNNER } from '../harness/sandbox/docker/test-run.ts';
import { DEFAULT_LIMITS } from '../harness/sandbox/types.ts';
import { RunStore } from '../harness/store/run-store.ts';
import { storeTestCache } from '../harness/store/test-cache.ts';
import { BENCH_RUN, type BenchFixture } from './fixture.ts';
import { ms, ratio, type BenchTable } from './table.ts';

const TARGET = 1.2;
const run = promisify(execFile);

const timed = async <T>(action: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const value = await action();
  return [value, performance.now() - started];
};

/** The runner of one feature on the merged patch through the API: create (bind mount), attach, start, wait, remove. */
async function apiRun({ image }: BenchFixture, dir: string, feature: Feature): Promise<number> {
  const container = await image.engine.docker.createContainer({
    Image: image.id,
    Entrypoint: [RUNNER],
    Cmd: [`tests${feature.id}.patch`, 'merged.patch'],
    Labels: { 'coop-bench': 'true', 'coop-bench.run': BENCH_RUN },
    HostConfig: {
      NetworkMode: 'none',
      Binds: [`${dir}:/patches:ro`],
      Init: true,
      Memory: DEFAULT_LIMITS.memoryBytes,
      NanoCpus: DEFAULT_LIMITS.nanoCpus,
      PidsLimit: DEFAULT_LIMITS.pids,
    },
  });
  try {
    const stream = await container.attach({ stream: true, stdout: true, stderr: true });
    const sink = new PassThrough();
    sink.resume();
    container.modem.demuxStream(stream, sink, sink);
    await container.start();
    return ((await container.wait()) as { StatusCode: number }).StatusCode;
  } finally {
    await container.remove({ force: true });
  }
}

const cliRun = ({ image }: BenchFixture, dir: string, feature: Feature) =>
  run(
    'docker',
    [
      'run',
      '--rm',
      '--network',
      'none',
      '--init',
      '-v',
      `${dir}:/patches:ro`,
      '--label',
      `coop-bench.run=${BENCH_RUN}`,
      '--entrypoint',
      RUNNER,
      image.id,
      `tests${feature.id}.patch`,
      'merged.patch',
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  ).catch(() => undefined);

export async function evaluationOverhead(fixture: BenchFixture): Promise<BenchTable> {
  const { pool, base, image, slot } = fixture;
  const scratch = mkdtempSync(join(tmpdir(), 'coop-bench-bench-eval-'));
  const store = RunStore.open(scratch, 'eval', { create: true });
  const cache = storeTestCache(store);
  try {
    for (const feature of pool.features) copyFileSync(feature.testsPatchPath, join(scratch, `tests${feature.id}.patch`));
    const pairs = combinations(
      pool.features.map((f) => f.id),
      2,
    );
    const rows: (string | number)[][] = [];
    const totals = { merge: 0, harness: 0, api: 0, cli: 0, cached: 0, pairs: 0 };
    for (const [k, pair] of pairs.entries()) {
      const features = pair.map((id) => pool.features.find((f) => f.id === id)!);
      const input: EvaluationInput = {
        features,
        patches: features.map((f) => readFileSync(f.patchPath, 'utf8')),
        base,
        // The cache starts empty and each pair's merged code is new to it: this run is cold, as in a run.
        tests: { slot, image, run: BENCH_RUN, limits: DEFAULT_LIMITS, timeoutMs: 300_000, cache },
        merge: {},
      };
      const [result, harnessMs] = await timed(() => evaluatePatches(input));
      const mergeMs = result.merge.timingsMs.total ?? 0;
      const label = `f${pair[0]}+f${pair[1]}`;
      const [, cachedMs] = await timed(() => evaluatePatches({ ...input, previousMergedPatch: result.merge.patch }));
      const tested = result.evaluations.some((e) => e.exitCode !== null);
      if (!tested) {
        rows.push([label, result.merge.status, ms(mergeMs), ms(harnessMs), '-', '-', '-', ms(cachedMs)]);
        continue;
      }
      writeFileSync(join(scratch, 'merged.patch'), result.merge.patch);
      const both = (one: (f: BenchFixture, dir: string, feature: Feature) => Promise<unknown>) =>
        timed(() => Promise.all(features.map((f) => one(fixture, scratch, f))));
      // Alternate which raw path goes first.
      const [[, apiMs], [, cliMs]] = k % 2 ? [await both(apiRun), await both(cliRun)] : await both(cliRun).then(async (cli) => [await both(apiRun), cli]);
      totals.merge += mergeMs;
      totals.harness += harnessMs;
      totals.api += apiMs;
      totals.cli += cliMs;
      totals.cached += cachedMs;
      totals.pairs++;
      const verdict = result.evaluations.map((e) => (e.passed ? 'P' : 'F')).join('');
      rows.push([
        label,
        `${result.merge.status} ${verdict}`,
        ms(mergeMs),
        ms(harnessMs),
        ms(apiMs),
        ms(cliMs),
        ratio(harnessMs / Math.min(apiMs, cliMs)),
        ms(cachedMs),
      ]);
    }
    const value = totals.harness / Math.min(totals.api, totals.cli);
    rows.push([`all ${totals.pairs} tested pairs`, '', ms(totals.merge), ms(totals.harness), ms(totals.api), ms(totals.cli), ratio(value), ms(totals.cached)]);
    return {
      id: 'evaluation_overhead',
      title: "2. Evaluation per pair: merge + both features' tests vs raw test runtime",
      measures: `Wall ms per pair of ${pool.repo} gold patches. harness: evaluatePatches (merge, both test containers created and started while the merge runs, tests in parallel; the cache holds nothing for this code). raw API / raw CLI: both features' runner on the merged patch in parallel, container start included (API: create+attach+start+wait+remove with a bind mount; CLI: docker run --rm). ratio: harness / the faster raw. cached: the same evaluation again with the run's test cache (what \`coop-bench eval\` does when nothing changed).`,
      columns: ['pair', 'merge, tests', 'merge ms', 'harness ms', 'raw API ms', 'raw CLI ms', 'ratio', 'cached ms'],
      rows,
      target: { text: `harness evaluation <= ${TARGET}x the raw test time, over all tested pairs`, value, met: value <= TARGET },
      notes: [
        "The harness sends both patches through the test container's stdin (the tests patch at start, the merged patch when the merge is done) and runs the runner through a small sh wrapper; raw runs read both from a bind mount, which a remote engine could not use.",
        `Pairs whose merge leaves nothing to test (conflict, missing_input) run no container and are left out of the ratio. 1-minute load average at the end: ${loadavg()[0].toFixed(2)} on 2 cores.`,
      ],
    };
  } finally {
    store.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}
