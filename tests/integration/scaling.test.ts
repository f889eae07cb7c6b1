// Runs over several Docker engines and shards, on this machine: the default engine and a second
// dockerd on its own socket (scripts/second-engine.sh, started here as root when not running).
// Oracle runs through the CLI, as a user on several machines would drive them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Docker from 'dockerode';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { coopBench, queryRun, tempDir } from '../helpers/cli.ts';
import { uniqueRun } from '../helpers/run-db.ts';
import { loadPool } from '../../tasks/pools.ts';
import { engineAt, progressEnd } from '../../harness/sandbox/docker/engine.ts';
import { poolImage } from '../../harness/sandbox/docker/images.ts';
import { builtImageName } from '../../harness/sandbox/image-name.ts';
import { PROJECT_ROOT, SHIPPED_POOLS } from '../../harness/paths.ts';

const FIRST = 'unix:///var/run/docker.sock';
// A name of this suite's own: containers left by an earlier suite killed from outside are not this run's leak.
const TWO_ENGINES = uniqueRun('two-engines');
const SECOND_SCRIPT = join(PROJECT_ROOT, 'scripts', 'second-engine.sh');
/** What the pool under test is built from on both engines: no network needed to build it. */
const BASE_TAG = 'coop-bench-test/argkit-base:1';

const runs = tempDir('scaling-runs');
const pools = tempDir('scaling-pools');
const poolDir = join(pools, 'argkit_task', 'task1');
let second: string;
let startedSecond = false;

interface TaskRow {
  key: string;
  status: string;
  both_passed: number;
  docker_host: string;
  merge_status: string;
}

const tasksOf = (run: string) =>
  queryRun<TaskRow>(
    runs,
    run,
    'SELECT t.key, t.status, t.both_passed, t.docker_host, m.status AS merge_status FROM tasks t LEFT JOIN merges m ON m.task = t.id ORDER BY t.key',
  );

const labelled = (docker: Docker, run: string) => docker.listContainers({ all: true, filters: { label: [`coop-bench.run=${run}`] } });

beforeAll(async () => {
  const secondDocker = () => new Docker({ socketPath: '/var/run/coop-bench-docker2.sock' });
  startedSecond = !(await secondDocker()
    .ping()
    .then(
      () => true,
      () => false,
    ));
  second = (await execa('bash', [SECOND_SCRIPT, 'start'])).stdout.trim();
  // The shipped argkit image, under a tag both engines hold, is the base of the pool under test:
  // its Dockerfile needs no network, so coop-bench can build it on the second engine (which has none).
  const argkit = await poolImage(engineAt(), loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1')));
  await argkit.engine.docker.getImage(argkit.id).tag({ repo: 'coop-bench-test/argkit-base', tag: '1' });
  if (
    !(await secondDocker()
      .getImage(BASE_TAG)
      .inspect()
      .then(
        () => true,
        () => false,
      ))
  ) {
    const target = engineAt(second);
    await progressEnd(target, await target.docker.loadImage(await argkit.engine.docker.getImage(BASE_TAG).get()));
  }
  cpSync(join(SHIPPED_POOLS, 'argkit_task', 'task1'), poolDir, { recursive: true });
  writeFileSync(join(poolDir, 'Dockerfile'), `FROM ${BASE_TAG}\nCOPY runner.sh /usr/local/bin/runner.sh\n`);
  // The second engine is this test's own: without the pool's image there, the run must build it.
  await secondDocker()
    .getImage(builtImageName(loadPool(poolDir)))
    .remove()
    .catch(() => undefined);
  writeFileSync(
    join(pools, 'two-pairs.json'),
    JSON.stringify({
      name: 'two-pairs',
      tasks: [
        {
          repo: 'argkit_task',
          task_id: 1,
          pairs: [
            [1, 3],
            [2, 5],
          ],
        },
      ],
    }),
  );
});

afterAll(async () => {
  if (startedSecond) await execa('bash', [SECOND_SCRIPT, 'stop']);
});

const plan = ['--models', 'oracle', '--setting', 'both', '--pools', pools, '--subset', join(pools, 'two-pairs.json')];

describe('a run over two Docker engines', () => {
  let run: Awaited<ReturnType<typeof coopBench>>;

  beforeAll(async () => {
    run = await coopBench(['run', ...plan, '--concurrency', '4', '--docker-host', FIRST, '--docker-host', second, '--name', TWO_ENGINES, '--runs-dir', runs]);
  });

  it('runs tasks on both engines, each building the pool image it needs, and scores them', async () => {
    expect(run.exitCode, run.all).toBe(0);
    const tasks = tasksOf(TWO_ENGINES);
    expect(tasks).toHaveLength(4);
    expect(tasks.every((t) => t.status === 'done')).toBe(true);
    expect(new Set(tasks.map((t) => t.docker_host))).toEqual(new Set([FIRST, second]));
    expect(run.stdout).toMatch(/oracle\s+solo\s+2\s+2\s+2\/2 \(100\.0%\)/);
    expect(run.stderr).toContain(`on ${second} (first use of this pool version there)`);
    const image = builtImageName(loadPool(poolDir));
    await expect(new Docker({ socketPath: second.slice('unix://'.length) }).getImage(image).inspect()).resolves.toBeTruthy();
    const result = JSON.parse(readFileSync(join(runs, TWO_ENGINES, 'logs', 'oracle', 'solo', 'argkit_task', 'task1', 'f1_f3', 'result.json'), 'utf8'));
    expect([FIRST, second]).toContain(result.docker_host);
  });

  it('leaves no container on either engine', async () => {
    expect(await labelled(engineAt(FIRST).docker, TWO_ENGINES)).toEqual([]);
    expect(await labelled(engineAt(second).docker, TWO_ENGINES)).toEqual([]);
  });

  it('evaluates the run again from the test cache, on the engines listed in a hosts file', async () => {
    const hosts = join(pools, 'hosts');
    writeFileSync(hosts, `# the engines of this machine\n${FIRST}\n${second}\n`);
    const before = tasksOf(TWO_ENGINES);
    const again = await coopBench(['eval', '--name', TWO_ENGINES, '--docker-hosts', hosts, '--runs-dir', runs]);
    expect(again.exitCode, again.all).toBe(0);
    const tested = tasksOf(TWO_ENGINES).filter((t) => t.merge_status !== 'conflict');
    expect(again.stderr.match(/\(f\d (pass|fail) \(cached\), f\d (pass|fail) \(cached\)/g)).toHaveLength(tested.length);
    expect(tasksOf(TWO_ENGINES)).toEqual(before);
  });
});

describe('a plan split into shards on two engines, merged back', () => {
  it('merges the shards into the run one machine makes, and refuses a shard twice', async () => {
    const shard = (i: number, host: string) =>
      coopBench(['run', ...plan, '--shard', `${i}/2`, '--docker-host', host, '--name', `shard${i}`, '--runs-dir', runs]);
    const [one, two] = await Promise.all([shard(1, FIRST), shard(2, second)]);
    expect(one.exitCode, one.all).toBe(0);
    expect(two.exitCode, two.all).toBe(0);
    expect(tasksOf('shard1')).toHaveLength(2);
    expect(tasksOf('shard2')).toHaveLength(2);

    const merged = await coopBench(['merge-runs', 'merged', 'shard1', join(runs, 'shard2'), '--runs-dir', runs]);
    expect(merged.exitCode, merged.all).toBe(0);
    expect(merged.stdout).toContain('4 tasks');
    const outcome = (rows: TaskRow[]) => rows.map((t) => [t.key, t.status, t.both_passed, t.merge_status]);
    expect(outcome(tasksOf('merged'))).toEqual(outcome(tasksOf(TWO_ENGINES)));
    expect(new Set(tasksOf('merged').map((t) => t.docker_host))).toEqual(new Set([FIRST, second]));

    const report = await coopBench(['report', 'merged', '--runs-dir', runs]);
    expect(report.exitCode, report.all).toBe(0);
    const twice = await coopBench(['merge-runs', 'again', 'shard1', 'shard1', '--runs-dir', runs]);
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toContain('shard 1/2 is given twice');
  });
});
