// Several features' tests in one test container a task holds, one after another (how a task's tests
// run on a core of an engine: harness/evaluation/feature-runs.ts), and test containers kept warm for a run's next
// tasks: the same verdicts as a container per feature, a time limit that stops one feature's tests
// does not stop the next, and the spares carry the run's labels and go at the run's end.
// Containers taken again across tasks (harness/sandbox/docker/warm-tests.ts, as-new.ts): one whose
// tests left nothing behind serves the next task with the verdicts a fresh container gives; one
// whose tests leaked (a process still running, an untracked nested repository `git clean -fdx`
// skips, a file in /tmp, compiled Python in site-packages) is retired, counted by reason, and the
// next task gets a fresh container, with the same verdicts as a container of its own. Tasks taking
// containers two at a time, back to back, take again those coming back from their check instead of
// starting more: no more started than tasks holding one at once plus a spare.
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
  it('a run takes a started container, keeps a spare and the used container with its labels, and removes them at its end', async () => {
    const run = uniqueRun('warm');
    const warm = new WarmTestContainers();
    const engine = image.engine;
    const taken = await warm.startSequence(engine, { ...spec(run), keepWarm: true });
    const [result] = await runEach(taken, [testsOf(f1)], gold1);
    expect(result!.exitCode).toBe(0);
    // The spare's start and the used container's check go on in the background; as new, it is kept.
    await warm.settled();
    const spares = await containersOf(run);
    expect(spares).toHaveLength(2);
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
  // The check (and the spare's start) go on in the background.
  await warm.settled();
  return runs.map((r) => r.exitCode);
}

describe('test containers taken again across tasks', () => {
  it('a container whose tests left nothing behind serves the next task, with the same verdicts', async () => {
    const run = uniqueRun('reuse');
    const warm = new WarmTestContainers();
    const reference = await alone(run, gold1);
    expect(await sequence(warm, run, gold1)).toEqual(reference);
    expect(warm.testContainerCounts()).toMatchObject({ reused: 0 });
    expect(warm.testContainerCounts().retired).toEqual({});
    expect(await sequence(warm, run, gold1)).toEqual(reference);
    expect(await sequence(warm, run, gold1)).toEqual(reference);
    // Three tasks, two containers started (the first task's and a spare): a task took one that had
    // served a task before (which one of the two idle ones a task takes is not fixed).
    const counts = warm.testContainerCounts();
    expect(counts.started).toBe(2);
    expect(counts.retired).toEqual({});
    expect(counts.reused).toBeGreaterThanOrEqual(1);
    await warm.removeSpares();
    expect(await containersOf(run)).toEqual([]);
  });

  it('tasks two at a time, back to back: containers are taken again, at most one started beyond those held at once, the same verdicts', async () => {
    const run = uniqueRun('reuse-pairs');
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
    // Six takings from at most three containers (two held at once, one spare): the others reused.
    const counts = warm.testContainerCounts();
    expect(counts.retired).toEqual({});
    expect(counts.started).toBeLessThanOrEqual(3);
    expect(counts.reused).toBeGreaterThanOrEqual(3);
    await warm.removeSpares();
    expect(await containersOf(run)).toEqual([]);
  });

  it.each([
    ['a process still running', 'process', "import subprocess\nsubprocess.Popen(['sleep', '600'], start_new_session=True)"],
    ['an untracked nested repository', 'repository', "import subprocess\nsubprocess.run(['git', 'init', '-q', 'leftover'], check=True)"],
    ['a file in /tmp', 'folders', "open('/tmp/leftover', 'w').write('left')"],
    ['compiled Python in site-packages', 'pyc', "open('/usr/lib/python3/dist-packages/leftover.pyc', 'wb').write(b'')"],
    // Deep in the image and written in place: no folder's entries change, only the file's own ctime.
    ['a file of the image changed in place', 'files', "import string\nopen(string.__file__, 'a').write('\\n# leftover\\n')"],
  ])('%s: the container is retired and the next task gets a fresh one', async (_leak, reason, python) => {
    const run = uniqueRun('reuse-leak');
    const warm = new WarmTestContainers();
    const leaky = await goldWith(python);
    expect(await sequence(warm, run, leaky)).toEqual(await alone(run, leaky));
    expect(warm.testContainerCounts().retired).toEqual({ [reason]: 1 });
    expect(await sequence(warm, run, gold1)).toEqual(await alone(run, gold1));
    expect(warm.testContainerCounts()).toMatchObject({ reused: 0 });
    await warm.removeSpares();
    expect(await containersOf(run)).toEqual([]);
  });
});
