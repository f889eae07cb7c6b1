// Several features' tests in one test container a task holds, one after another (how a task's tests
// run on a core of an engine: harness/evaluation/feature-runs.ts), and test containers kept warm for a run's next
// tasks: the same verdicts as a container per feature, a time limit that stops one feature's tests
// does not stop the next, and the spares carry the run's labels and go at the run's end.
// Each test container serves one task (harness/sandbox/docker/warm-tests.ts): started ahead, removed
// after, never taken again, so a feature that poisons its container (a .pth in site-packages, a
// replaced git, a process left running) changes no other task's verdict.
import { beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { loadPool } from '../../tasks/pools.ts';
import { poolImage, type PoolImage } from '../../harness/sandbox/docker/images.ts';
import { engineAt } from '../../harness/sandbox/docker/engine.ts';
import { WarmTestContainers } from '../../harness/sandbox/docker/warm-tests.ts';
import { DEFAULT_LIMITS, type SandboxBackend, type TestSequence } from '../../harness/sandbox/types.ts';
import { createBackend } from '../../harness/sandbox/registry.ts';
import { runFeatureTests } from '../../harness/evaluation/run-tests.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';
import { containersOf, tempDir } from '../helpers/cli.ts';
import { uniqueRun } from '../helpers/run-db.ts';

const pool = loadPool(join(SHIPPED_POOLS, 'tabulite_task', 'task1'));
const [f1, f2] = pool.features;
const gold1 = readFileSync(f1!.patchPath, 'utf8');
const testsOf = (feature: typeof f1) => readFileSync(feature!.testsPatchPath);
let image: PoolImage;
let backend: SandboxBackend;

beforeAll(async () => {
  image = await poolImage(engineAt(), pool);
  backend = await createBackend('docker', { log: () => undefined });
});

/** Each tests patch's run on `patch` in the held sandbox, in order; then the sandbox is released. */
async function runEach(sequence: TestSequence, testsPatches: Buffer[], patch: string) {
  const runs = [];
  for (const testsPatch of testsPatches) runs.push(await sequence.run(testsPatch, patch));
  await sequence.release();
  return runs;
}

const spec = (run: string, timeoutMs = 300_000) => ({ image, run, limits: DEFAULT_LIMITS, timeoutMs, maxOutputBytes: 256 * 1024 });

describe('features tested one after another in one container', () => {
  it('gives each feature the verdict and exit code it gets in a container of its own', async () => {
    const run = uniqueRun('sequence');
    const slot = backend.acquire();
    const sequence = await slot.startTestSequence!(spec(run));
    // Feature 1's code: its own tests pass, feature 2's fail, whatever ran before them.
    const runs = await runEach(sequence, [testsOf(f2), testsOf(f1), testsOf(f2)], gold1);
    const alone = await Promise.all(
      [f2, f1].map((feature) => runFeatureTests(feature!, gold1, { slot, image, run, limits: DEFAULT_LIMITS, timeoutMs: 300_000 })),
    );
    expect(runs.map((r) => r.exitCode)).toEqual([alone[0]!.exitCode, alone[1]!.exitCode, alone[0]!.exitCode]);
    expect(runs[1]!.exitCode).toBe(0);
    expect(runs[0]!.exitCode).not.toBe(0);
    expect(runs[1]!.output).toMatch(/passed/);
    // Each run's output is its own: no marker, nothing of the run before.
    expect(runs[1]!.output).not.toMatch(/failed/);
    expect(await containersOf(run)).toEqual([]);
  });

  it('a feature whose tests outlast the limit times out; the next one still runs, in a fresh container', async () => {
    const run = uniqueRun('sequence-timeout');
    const slot = backend.acquire();
    const work = tempDir('sequence-hang');
    await execa('cp', ['-a', `${(await slot.baseRepo(image, run)).dir}/.`, work]);
    const init = join(work, 'tabulite', '__init__.py');
    writeFileSync(init, `${readFileSync(init, 'utf8')}\nwhile True:\n    pass\n`);
    const hang = (await execa('git', ['-c', 'safe.directory=*', 'diff'], { cwd: work })).stdout + '\n';
    const sequence = await slot.startTestSequence!(spec(run, 4000));
    const [slow, next] = await runEach(sequence, [testsOf(f1), testsOf(f1)], hang);
    expect(slow).toMatchObject({ exitCode: null, timedOut: true });
    expect(next).toMatchObject({ exitCode: null, timedOut: true });
    expect(await containersOf(run)).toEqual([]);
  });
});

describe('warm test containers', () => {
  it('a run takes a started container, keeps a spare with its labels, removes the used one, and the spare at its end', async () => {
    const run = uniqueRun('warm');
    const warm = new WarmTestContainers();
    const engine = image.engine;
    const taken = await warm.startSequence(engine, { ...spec(run), keepWarm: true });
    const [result] = await runEach(taken, [testsOf(f1)], gold1);
    expect(result!.exitCode).toBe(0);
    // The spare's start and the used container's removal go on in the background.
    await warm.settled();
    const spares = await containersOf(run);
    expect(spares).toHaveLength(1);
    for (const spare of spares) {
      expect(spare.Labels).toMatchObject({
        'coop-bench': 'true',
        'coop-bench.run': run,
        'coop-bench.host': hostname(),
        'coop-bench.pid': String(process.pid),
      });
      expect(spare.State).toBe('running');
    }

    // The next task takes one; an unused one goes back.
    const next = await warm.startSequence(engine, { ...spec(run), keepWarm: true });
    await next.release();
    await warm.removeSpares();
    expect(await containersOf(run)).toEqual([]);
  });
});

const warmSpec = (run: string) => ({ ...spec(run), keepWarm: true });

/** Feature 1's gold patch with `python` run when the package is imported (by every test). */
async function goldWith(python: string): Promise<string> {
  const work = tempDir('reuse-leak');
  await execa('cp', ['-a', `${(await backend.acquire().baseRepo(image, uniqueRun('reuse-base'))).dir}/.`, work]);
  await execa('git', ['-c', 'safe.directory=*', 'apply', f1!.patchPath], { cwd: work });
  const init = join(work, 'tabulite', '__init__.py');
  writeFileSync(init, `${readFileSync(init, 'utf8')}\n${python}\n`);
  return (await execa('git', ['-c', 'safe.directory=*', 'diff'], { cwd: work })).stdout + '\n';
}

/** Each feature's exit code on `patch` in a container of its own (the reference). */
async function alone(run: string, patch: string): Promise<(number | null)[]> {
  const slot = backend.acquire();
  const runs = await Promise.all([f1, f2].map((feature) => runFeatureTests(feature!, patch, { slot, image, run, limits: DEFAULT_LIMITS, timeoutMs: 300_000 })));
  return runs.map((r) => r.exitCode);
}

async function sequence(warm: WarmTestContainers, run: string, patch: string): Promise<(number | null)[]> {
  const taken = await warm.startSequence(image.engine, warmSpec(run));
  const runs = await runEach(taken, [testsOf(f1), testsOf(f2)], patch);
  // The removal (and the spare's start) go on in the background.
  await warm.settled();
  return runs.map((r) => r.exitCode);
}

describe('test containers serve one task each', () => {
  it('each task takes a container started ahead; a used one is removed, never taken again; the same verdicts', async () => {
    const run = uniqueRun('one-task');
    const warm = new WarmTestContainers();
    const reference = await alone(run, gold1);
    for (let task = 0; task < 3; task++) expect(await sequence(warm, run, gold1)).toEqual(reference);
    // Three tasks: the first one's container and a spare after each taking.
    expect(warm.testContainerCounts()).toEqual({ started: 4 });
    expect(await containersOf(run)).toHaveLength(1);
    await warm.removeSpares();
    expect(await containersOf(run)).toEqual([]);
  });

  it('tasks two at a time, back to back: at most one started beyond each taking, the same verdicts', async () => {
    const run = uniqueRun('one-task-pairs');
    const warm = new WarmTestContainers();
    const reference = await alone(run, gold1);
    // As a run at concurrency 2 takes them: each lane's next task asks as soon as its last is done.
    const lane = async () => {
      const verdicts = [];
      for (let task = 0; task < 3; task++) {
        const taken = await warm.startSequence(image.engine, warmSpec(run));
        verdicts.push((await runEach(taken, [testsOf(f1), testsOf(f2)], gold1)).map((r) => r.exitCode));
      }
      return verdicts;
    };
    const verdicts = (await Promise.all([lane(), lane()])).flat();
    expect(verdicts).toEqual(Array(6).fill(reference));
    expect(warm.testContainerCounts().started).toBeLessThanOrEqual(8);
    await warm.removeSpares();
    expect(await containersOf(run)).toEqual([]);
  });

  // A feature whose code, when its tests import it, poisons the container it runs in: the
  // interpreter's startup (a .pth in site-packages) and a module of the standard library, with the
  // tools a check of the container would use replaced: find says nothing changed, git hides its
  // own replacement. Tests run as root, so nothing inside can be trusted to find or undo it: no
  // later task may see it.
  const poison = [
    'import os, shutil, site, string',
    "open(os.path.join(site.getsitepackages()[0], 'zz_poison.pth'), 'w').write('import sys; sys.exit(7)\\n')",
    "open(string.__file__, 'a').write('\\nraise SystemExit(9)\\n')",
    "git = shutil.which('git')",
    "os.rename(git, '/usr/local/lib/realgit')",
    "open(git, 'w').write('#!/bin/sh\\nexec /usr/local/lib/realgit \"$@\"\\n')",
    'os.chmod(git, 0o755)',
    "open(shutil.which('find'), 'w').write('#!/bin/sh\\nexit 0\\n')",
  ].join('\n');

  it('a feature that poisons its container (a .pth in site-packages, a replaced git and find) changes no later verdict', async () => {
    const run = uniqueRun('one-task-poison');
    const warm = new WarmTestContainers();
    const poisoned = await goldWith(poison);
    const reference = await alone(run, gold1);
    const lane = async (first: string) => {
      const verdicts = [await sequence(warm, run, first)];
      for (let task = 0; task < 3; task++) verdicts.push(await sequence(warm, run, gold1));
      return verdicts;
    };
    // Two lanes sharing the spares, each starting with the poisoning feature.
    const [one, two] = await Promise.all([lane(poisoned), lane(poisoned)]);
    for (const verdicts of [one!, two!]) expect(verdicts.slice(1)).toEqual(Array(3).fill(reference));
    // The poisoning feature's own run is that of its code in a fresh container (the feature after
    // it in the same task meets the poison, as in CooperBench's container per pair).
    expect(one![0]![0]).toEqual((await alone(run, poisoned))[0]);
    await warm.removeSpares();
    expect(await containersOf(run)).toEqual([]);
  });
});
