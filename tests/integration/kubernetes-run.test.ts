// `coop-bench run --backend kubernetes` end to end, through the CLI and the real client library,
// against the test API server (tests/fakes/kube-api-server/, pods are real containers): the oracle
// gives the same per-pair results as `--backend docker` on pairs of both shipped pools that cover
// every kind of result; --git is refused before anything is written; SIGINT and
// `clean --backend kubernetes` leave no pod and no NetworkPolicy of the run behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { discoverPools } from '../../tasks/pools.ts';
import { poolKey } from '../../tasks/types.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';
import { engineAt } from '../../harness/sandbox/docker/engine.ts';
import { poolImage } from '../../harness/sandbox/docker/images.ts';
import { pushedImageName } from '../../harness/sandbox/image-name.ts';
import { splitTag } from '../../harness/sandbox/docker/push.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-api-server/index.ts';
import { CLI, coopBench, queryRun, tempDir } from '../helpers/cli.ts';
import { goldenPairs, oraclePairs, type OraclePairs } from '../helpers/oracle-pairs.ts';

const NAMESPACE = 'coop';
// The test API server "pulls" from the local engine: `images push` is simulated by tagging. The
// registry path is this process's own: pushed names are otherwise the same in every checkout of the
// same pools, and another test process on this engine (a second CI run) untags them in its afterAll.
const REGISTRY = `registry.coop-bench.test:5000/bench-${randomBytes(4).toString('hex')}`;
const runs = tempDir('kube-runs');
const pools = discoverPools(SHIPPED_POOLS);

let fake: FakeKubeApiServer;
let env: Record<string, string>;
const kube = (args: string[]) => [...args, '--backend', 'kubernetes', '--namespace', NAMESPACE, '--registry', REGISTRY];
const runLabel = (run: string) => `coop-bench.run=${run}`;

beforeAll(async () => {
  fake = await startFakeKubeApiServer({ namespaces: [NAMESPACE] });
  env = { KUBECONFIG: fake.writeKubeconfig(tempDir('kubeconfig'), NAMESPACE) };
  for (const pool of pools) {
    const local = await poolImage(engineAt(), pool);
    const { repo, tag } = splitTag(pushedImageName(pool, REGISTRY));
    await engineAt().docker.getImage(local.id).tag({ repo, tag });
  }
});

afterAll(async () => {
  await fake?.close();
  for (const pool of pools)
    await engineAt()
      .docker.getImage(pushedImageName(pool, REGISTRY))
      .remove({ noprune: true })
      .catch(() => undefined);
});

/**
 * The pairs both backends run: per pool, one pair of each kind of result the golden file holds
 * (argkit: a union merge whose tests fail with exit 1, a clean merge that passes, a union merge that
 * passes; tabulite: a union merge that passes, one failing with exit 1, one failing with exit 2). The
 * other pairs of a pool take one of these paths through the backend again.
 */
const KUBE_PAIRS = {
  argkit_task: [
    [1, 2],
    [1, 3],
    [1, 6],
  ],
  tabulite_task: [
    [1, 2],
    [2, 3],
    [2, 4],
  ],
};
/**
 * Docker also runs every other pair of tabulite, so that the golden file is checked on Docker pair
 * by pair (argkit's pairs are: tests/integration/core-pipeline.test.ts).
 */
const DOCKER_PAIRS = {
  ...KUBE_PAIRS,
  tabulite_task: pools.find((pool) => pool.repo === 'tabulite_task')!.features.flatMap((f, i, all) => all.slice(i + 1).map((g) => [f.id, g.id])),
};

function writeSubset(name: string, pairs: Record<string, number[][]>): string {
  const file = join(tempDir('kube-subset'), `${name}.json`);
  writeFileSync(file, JSON.stringify({ name, tasks: Object.entries(pairs).map(([repo, list]) => ({ repo, task_id: 1, pairs: list })) }));
  return file;
}

const pairKey = (repo: string, [i, j]: number[]) => `${repo}/task1 f${i}_f${j}`;
const only = (pairs: OraclePairs, keys: string[]) => Object.fromEntries(Object.entries(pairs).filter(([key]) => keys.includes(key)));

describe('the oracle through --backend kubernetes', () => {
  let docker: Awaited<ReturnType<typeof coopBench>>;
  let cluster: Awaited<ReturnType<typeof coopBench>>;
  const kubeKeys = Object.entries(KUBE_PAIRS).flatMap(([repo, list]) => list.map((pair) => pairKey(repo, pair)));
  const dockerKeys = Object.entries(DOCKER_PAIRS).flatMap(([repo, list]) => list.map((pair) => pairKey(repo, pair)));

  beforeAll(async () => {
    const common = ['run', '--models', 'oracle', '--setting', 'coop', '--runs-dir', runs, '--concurrency', '2'];
    [docker, cluster] = await Promise.all([
      coopBench([...common, '--subset', writeSubset('docker-pairs', DOCKER_PAIRS), '--name', 'on-docker']),
      coopBench(kube([...common, '--subset', writeSubset('kube-pairs', KUBE_PAIRS), '--name', 'on-kube']), { env }),
    ]);
  });

  it('finishes every pair it is given on both backends', () => {
    expect(docker.exitCode, docker.all).toBe(0);
    expect(cluster.exitCode, cluster.all).toBe(0);
    expect(Object.keys(oraclePairs(runs, 'on-kube')).sort()).toEqual([...kubeKeys].sort());
    expect(Object.keys(oraclePairs(runs, 'on-docker')).sort()).toEqual([...dockerKeys].sort());
    for (const run of ['on-kube', 'on-docker'])
      expect(queryRun<{ n: number }>(runs, run, `SELECT count(*) AS n FROM tasks WHERE status != 'done'`)[0]!.n).toBe(0);
  });

  it("gives per-pair results identical to Docker's (merge, both-pass, each feature's verdict and exit code), as the golden file has them", () => {
    const onDocker = oraclePairs(runs, 'on-docker');
    const onKube = oraclePairs(runs, 'on-kube');
    expect(onKube).toEqual(only(onDocker, kubeKeys));
    expect(onDocker).toEqual(goldenPairs(onDocker));
    // Not a trivial agreement: some pairs pass and some do not.
    const passed = Object.values(onKube).filter((pair) => pair.bothPassed).length;
    expect(passed).toBeGreaterThan(0);
    expect(passed).toBeLessThan(Object.keys(onKube).length);
  });

  it('records where each task ran and the pushed image it ran', () => {
    const rows = queryRun<{ docker_host: string; image: string; pool_dir: string }>(runs, 'on-kube', 'SELECT docker_host, image, pool_dir FROM tasks');
    for (const row of rows) {
      expect(row.docker_host).toBe(`kubernetes:${NAMESPACE}@${fake.url}`);
      const pool = pools.find((p) => p.dir === row.pool_dir)!;
      expect(row.image, poolKey(pool)).toBe(pushedImageName(pool, REGISTRY));
    }
  });

  it("leaves no pod; clean --backend kubernetes removes the run's NetworkPolicy", async () => {
    expect(fake.objects('pods', NAMESPACE, runLabel('on-kube'))).toEqual([]);
    expect(fake.objects('networkpolicies', NAMESPACE, runLabel('on-kube'))).toHaveLength(1);
    const clean = await coopBench(['clean', '--backend', 'kubernetes', '--namespace', NAMESPACE, '--name', 'on-kube', '--runs-dir', runs], { env });
    expect(clean.exitCode, clean.all).toBe(0);
    expect(clean.stdout).toContain('removed 0 pods');
    expect(fake.objects('networkpolicies', NAMESPACE, runLabel('on-kube'))).toEqual([]);
  });
});

describe('--backend kubernetes: refusals and interruption', () => {
  it("images push tags each pool's image for the registry and says so when the registry cannot be reached", async () => {
    const result = await coopBench(['images', 'push', '--registry', REGISTRY, '--pool', 'argkit_task']);
    expect(result.exitCode, result.all).toBe(2);
    const argkit = pools.find((pool) => pool.repo === 'argkit_task')!;
    expect(result.stderr).toContain(`pushing ${pushedImageName(argkit, REGISTRY)}`);
    expect(result.stderr).toMatch(new RegExp(`pushing .* failed: .*is ${REGISTRY.replace(/\./g, '\\.')} reachable from the Docker engine`));
  });

  it('images push --platform names the platform form it takes when given something else, before any build', async () => {
    const result = await coopBench(['images', 'push', '--registry', REGISTRY, '--pool', 'argkit_task', '--platform', 'arm64']);
    expect(result.exitCode, result.all).toBe(2);
    expect(result.stderr).toMatch(/--platform "arm64" is not a platform: give os\/arch as docker build does, e\.g\. linux\/amd64 or linux\/arm64/);
    expect(result.stderr).not.toMatch(/building|pushing/);
  });

  it('refuses --git before anything is written: pods share no folders', async () => {
    const result = await coopBench(kube(['run', '--models', 'oracle', '--git', '--runs-dir', runs, '--name', 'kube-git']), { env });
    expect(result.exitCode, result.all).toBe(2);
    expect(result.stderr).toMatch(/--git is not available with --backend kubernetes/);
    expect(existsSync(join(runs, 'kube-git'))).toBe(false);
  });

  it('refuses agent CLIs before anything is written, saying why', async () => {
    const cliEnv = { ...env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' };
    const result = await coopBench(kube(['run', '--models', 'claude-code', '--pool', 'argkit_task', '--runs-dir', runs, '--name', 'kube-cli']), {
      env: cliEnv,
    });
    expect(result.exitCode, result.all).toBe(2);
    expect(result.stderr).toMatch(/agent CLIs \(claude-code, codex\) are not available with --backend kubernetes: .*run them with --backend docker/);
    expect(existsSync(join(runs, 'kube-cli'))).toBe(false);
    expect(fake.objects('networkpolicies', NAMESPACE, runLabel('kube-cli'))).toEqual([]);
  });

  it('refuses Docker options with another backend, with what to do', async () => {
    const result = await coopBench(kube(['run', '--models', 'oracle', '--docker-host', 'unix:///var/run/docker.sock', '--runs-dir', runs]), { env });
    expect(result.exitCode, result.all).toBe(2);
    expect(result.stderr).toMatch(/--docker-host and --docker-hosts are for --backend docker/);
  });

  it("SIGINT removes the run's pods and policy, records the run as interrupted, and it resumes", async () => {
    const run = 'kube-interrupted';
    // Tabulite's pairs of the comparison above: interrupted as soon as agent pods exist, the resume finishes each.
    const subset = writeSubset('interrupted-pairs', { tabulite_task: KUBE_PAIRS.tabulite_task });
    const child = execa(
      'node',
      // In agent pods, so that there are agent pods to interrupt; the resume makes its patches without them.
      [
        CLI,
        ...kube([
          'run',
          '--models',
          'oracle',
          '--oracle-in-container',
          '--subset',
          subset,
          '--setting',
          'coop',
          '--name',
          run,
          '--runs-dir',
          runs,
          '--concurrency',
          '2',
        ]),
      ],
      { reject: false, all: true, env },
    );
    const agents = () => fake.objects('pods', NAMESPACE, runLabel(run)).filter((pod) => pod.metadata.labels['coop-bench.role'] === 'agent');
    for (let i = 0; i < 1200 && agents().length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(agents().length).toBeGreaterThan(0);
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode, result.all).toBe(130);
    expect(result.stderr).toContain(`run ${run} interrupted`);
    expect(fake.objects('pods', NAMESPACE, runLabel(run))).toEqual([]);
    expect(fake.objects('networkpolicies', NAMESPACE, runLabel(run))).toEqual([]);
    expect(queryRun<{ status: string }>(runs, run, 'SELECT status FROM runs')[0]?.status).toBe('interrupted');

    const resumed = await coopBench(kube(['run', '--models', 'oracle', '--subset', subset, '--setting', 'coop', '--name', run, '--runs-dir', runs]), { env });
    expect(resumed.exitCode, resumed.all).toBe(0);
    expect(resumed.stdout).toMatch(/oracle\s+coop\s+3\s+3/);
  });
});
