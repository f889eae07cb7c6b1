// The Kubernetes backend with the real client library against the test API server
// (tests/fakes/kube-api-server/), whose pods are real containers: sandboxes, exec bounds, files
// through exec stdin, a shipped pool's tests compared with Docker's, the network probe, cleanup by
// label, and every API call checked against tests/golden/kubernetes-api-calls.json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { loadPool } from '../../tasks/pools.ts';
import { poolImage, type PoolImage } from '../../harness/sandbox/docker/images.ts';
import { engineAt } from '../../harness/sandbox/docker/engine.ts';
import { baseRepo as dockerBaseRepo } from '../../harness/sandbox/docker/base-repo.ts';
import { runFeatureTests } from '../../harness/evaluation/run-tests.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';
import { UserError } from '../../harness/errors.ts';
import { createBackend } from '../../harness/sandbox/registry.ts';
import type { AgentSandbox, BackendSlot, ContainerLimits, SandboxBackend, SandboxImage } from '../../harness/sandbox/types.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer, type RecordedCall } from '../fakes/kube-api-server/index.ts';
import { coopBench, tempDir } from '../helpers/cli.ts';
import { uniqueRun } from '../helpers/run-db.ts';
import { connectCluster, KubernetesError } from '../../harness/sandbox/kubernetes/cluster.ts';
import { POD_DEADLINE_SECONDS, podLabels, podManifest, PodTracker } from '../../harness/sandbox/kubernetes/pods.ts';

const pool = loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1'));
const limits: ContainerLimits = { memoryBytes: 1024 ** 3, nanoCpus: 1e9, pids: 512 };
const RUN = 'kube-backend-test';
const GOLDEN = join(import.meta.dirname, '..', 'golden', 'kubernetes-api-calls.json');
const log = () => undefined;

let fake: FakeKubeApiServer;
let local: PoolImage;
let backend: SandboxBackend;
let dockerSlot: BackendSlot;
let image: SandboxImage;
const previousKubeconfig = process.env.KUBECONFIG;

/**
 * The network probe's waits where a test needs the probe to give up: a cluster that never blocks
 * the probe is refused after the last try whatever the waits (the product's own waits, 30 s in all,
 * are for a network plugin that applies a policy late: the "applied late" test keeps them).
 */
const SHORT_PROBE_RETRIES = [100, 200, 400, 800];

/** Each backend gets its own fake cluster and kubeconfig. */
async function connect(
  server: FakeKubeApiServer,
  options: { image?: string; log?: (line: string) => void; probeRetryDelaysMs?: number[] } = {},
): Promise<SandboxBackend> {
  process.env.KUBECONFIG = server.writeKubeconfig(tempDir('kube'), 'coop');
  return createBackend('kubernetes', { image: options.image, log: options.log ?? log, probeRetryDelaysMs: options.probeRetryDelaysMs });
}

beforeAll(async () => {
  local = await poolImage(engineAt(), pool);
  dockerSlot = (await createBackend('docker', { log })).acquire();
  fake = await startFakeKubeApiServer({ namespaces: ['coop'] });
  backend = await connect(fake, { image: local.name });
  await backend.prepareRun(RUN, [pool]);
  image = await backend.acquire().prepareImage(pool, RUN, log);
});

afterAll(async () => {
  await backend?.removeLeftovers(RUN).catch(() => undefined);
  await fake?.close();
  if (previousKubeconfig === undefined) delete process.env.KUBECONFIG;
  else process.env.KUBECONFIG = previousKubeconfig;
});

const startAgent = (agent = 'agent1') => backend.acquire().startAgentSandbox({ image, run: RUN, task: 7, agent, limits });
/** Test output without its timings (`duration_ms: 12.3`), which differ from run to run. */
const withoutTimes = (output: string) => output.replace(/duration_ms:?\s*[\d.]+/g, 'duration_ms');
const containerOf = (pod: string) => fake.docker.getContainer(fake.pod('coop', pod)!.containerId!);
/** The error a promise rejects with (an Error saying "no error" when it resolves). */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => new Error('no error'),
    (e: unknown) => e as Error,
  );

describe('kubernetes backend: agent sandboxes', () => {
  it("runs each sandbox in a pod without network, with the run's limits and labels", async () => {
    const sandbox = await startAgent();
    try {
      const pod = fake.pod('coop', sandbox.id)!.object;
      expect(pod.metadata.labels).toMatchObject({
        'coop-bench': 'true',
        'coop-bench.run': RUN,
        'coop-bench.role': 'agent',
        'coop-bench.task': '7',
        'coop-bench.agent': 'agent1',
      });
      expect(pod.spec).toMatchObject({ automountServiceAccountToken: false, restartPolicy: 'Never', activeDeadlineSeconds: 24 * 3600 });
      expect(pod.spec.containers[0].resources.limits['ephemeral-storage']).toBe(String(20 * 1024 ** 3));
      const info = await containerOf(sandbox.id).inspect();
      expect(info.HostConfig).toMatchObject({ NetworkMode: 'none', Memory: limits.memoryBytes, NanoCpus: limits.nanoCpus });
      // The digest the extract pod recorded, which the pod runs (the test API server gives image IDs as digests).
      expect(image.id).toBe(`${local.name.replace(/:[^:/]+$/, '')}@${local.id}`);
      expect(pod.spec.containers[0].image).toBe(image.id);
    } finally {
      await sandbox.remove();
    }
    expect(fake.pod('coop', sandbox.id)).toBeUndefined();
  });

  it('exec: exit code, both streams, the repository as working folder, cwd and env', async () => {
    const sandbox = await startAgent();
    try {
      const result = await sandbox.exec(['bash', '-c', 'pwd; echo "$GREETING" >&2; exit 3'], { env: { GREETING: 'hello world' } });
      expect(result).toMatchObject({ exitCode: 3, stdout: '/workspace/repo\n', stderr: 'hello world\n', timedOut: false, truncated: false });
      expect((await sandbox.exec(['pwd'], { cwd: '/tmp' })).stdout).toBe('/tmp\n');
      expect((await sandbox.exec(['git', 'rev-parse', 'HEAD'])).stdout.trim()).toMatch(/^[0-9a-f]{40}$/);
      // Longer than a request line may be (16 KB here, 8 KB through common proxies): the command goes on
      // stdin. (One argument stays under Linux's 128 KiB MAX_ARG_STRLEN, which any exec would hit.)
      expect((await sandbox.exec(['sh', '-c', `printf %s '${'x'.repeat(100_000)}' | wc -c`])).stdout.trim()).toBe('100000');
    } finally {
      await sandbox.remove();
    }
  });

  it('exec: the time limit kills the command, its output is bounded, its background jobs do not survive it', async () => {
    const sandbox = await startAgent();
    try {
      const slow = await sandbox.exec(['sleep', '30'], { timeoutMs: 1000 });
      expect(slow).toMatchObject({ exitCode: 137, timedOut: true });
      const loud = await sandbox.exec(['bash', '-c', 'head -c 3000000 /dev/zero | tr "\\0" a; echo END'], { maxOutputBytes: 1000 });
      expect(loud.truncated).toBe(true);
      expect(loud.stdout.length).toBeLessThan(1200);
      expect(loud.stdout).toMatch(/bytes omitted/);
      expect(loud.stdout.trimEnd().endsWith('END')).toBe(true);
      // The command ends when bash does: a background job neither holds the exec open until the
      // time limit nor outlives it.
      const background = await sandbox.exec(['bash', '-c', 'sleep 300 & echo started'], { timeoutMs: 60_000 });
      expect(background).toMatchObject({ exitCode: 0, timedOut: false });
      expect(background.stdout.trim()).toBe('started');
      const left = await sandbox.exec(['bash', '-c', 'cat /proc/[0-9]*/comm 2>/dev/null | grep -c "^sleep$" || true']);
      expect(left.stdout.trim()).toBe('0');
    } finally {
      await sandbox.remove();
    }
  });

  it('exec: a stop request ends the wait at once', async () => {
    const sandbox = await startAgent();
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('stop requested')), 300);
      await expect(sandbox.exec(['sleep', '30'], { signal: controller.signal })).rejects.toThrow('stop requested');
    } finally {
      await sandbox.remove();
    }
  });

  it("writeFile and readFile go through exec stdin, byte for byte, with the Docker sandbox's errors", async () => {
    const sandbox = await startAgent();
    try {
      const text = `héllo ✓ wörld\n${'x'.repeat(2 * 1024 * 1024)}\nend\n`;
      await sandbox.writeFile('/workspace/repo/new/dir/file.txt', text);
      expect(await sandbox.readFile('/workspace/repo/new/dir/file.txt')).toBe(text);
      expect((await sandbox.exec(['stat', '-c', '%a', 'new/dir/file.txt'])).stdout.trim()).toBe('644');
      await sandbox.writeFile('/tmp/empty', '');
      expect(await sandbox.readFile('/tmp/empty')).toBe('');
      await expect(sandbox.readFile('/workspace/repo/missing.txt')).rejects.toThrow(/no such file/);
      await expect(sandbox.readFile('/workspace/repo')).rejects.toThrow(/not a regular file/);
      await expect(sandbox.readFile('/workspace/repo/new/dir/file.txt', 1000)).rejects.toThrow(/over the 1000-byte limit/);
      await expect(sandbox.writeFile('relative.txt', 'x')).rejects.toThrow(/absolute path/);
    } finally {
      await sandbox.remove();
    }
  });

  it('writeFile takes files over the 32 MB a WebSocket message may hold (an agent CLI, a large patch)', async () => {
    const sandbox = await startAgent();
    try {
      const big = Buffer.alloc(40 * 1024 * 1024);
      for (let i = 0; i < big.length; i += 4096) big.writeUInt32BE(i, i);
      await sandbox.writeFile('/tmp/big.bin', big);
      const digest = (await sandbox.exec(['sh', '-c', 'wc -c < /tmp/big.bin; sha256sum < /tmp/big.bin'])).stdout.split(/\s+/);
      expect(digest.slice(0, 2)).toEqual([String(big.length), createHash('sha256').update(big).digest('hex')]);
    } finally {
      await sandbox.remove();
    }
  });

  it('exec: pings keep a quiet command past the idle time of a load balancer; a connection cut while it runs is an infrastructure error', async () => {
    const strict = await startFakeKubeApiServer({ namespaces: ['coop'], execIdleMs: 8000 });
    try {
      const other = await connect(strict, { image: local.name });
      await other.prepareRun(RUN, [pool]);
      const sandbox = await other.acquire().startAgentSandbox({ image, run: RUN, task: 1, agent: 'agent1', limits });
      expect(await sandbox.exec(['sh', '-c', 'sleep 12; echo done'], { timeoutMs: 60_000 })).toMatchObject({ exitCode: 0, stdout: 'done\n' });
      const cut = sandbox.exec(['sleep', '30'], { timeoutMs: 60_000 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      for (let i = 0; i < 100 && strict.cutExecConnections() === 0; i++) await new Promise((r) => setTimeout(r, 100));
      const error = await cut;
      expect((error as Error).message).toMatch(/the connection closed \d+ s after the command started, before its exit status arrived; its result is lost/);
      expect(other.isInfrastructureError(error)).toBe(true);
      await other.removeLeftovers(RUN);
    } finally {
      await strict.close();
    }
  });

  it('a lost node: the command under way and the next one are infrastructure errors, not results', async () => {
    const lost = await startFakeKubeApiServer({ namespaces: ['coop'] });
    try {
      const other = await connect(lost, { image: local.name });
      await other.prepareRun(RUN, [pool]);
      const sandbox = await other.acquire().startAgentSandbox({ image, run: RUN, task: 1, agent: 'agent1', limits });
      const running = failure(sandbox.exec(['sleep', '30'], { timeoutMs: 60_000 }));
      await new Promise((r) => setTimeout(r, 1000));
      await lost.loseNode();
      const during = await running;
      expect(during.message).toMatch(/the connection closed \d+ s after the command started, before its exit status arrived; its result is lost/);
      expect(other.isInfrastructureError(during)).toBe(true);
      const next = await failure(sandbox.exec(['true']));
      expect(next.message).toMatch(/exec in pod .* failed: .*500/);
      expect(other.isInfrastructureError(next)).toBe(true);
    } finally {
      await lost.close();
    }
  });

  it("a pod that stops under a command is an infrastructure error, not the command's failure", async () => {
    const sandbox = await startAgent();
    try {
      await containerOf(sandbox.id).kill();
      const error = await sandbox.exec(['true']).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).name).toBe('PodStoppedError');
      expect(backend.isInfrastructureError(error)).toBe(true);
    } finally {
      await sandbox.remove();
    }
  });
});

describe('kubernetes backend: images, repositories, tests', () => {
  it("copies the base repository out of a pod: the same commit Docker's extraction gives", async () => {
    const base = await backend.acquire().baseRepo(image, RUN);
    const docker = await dockerBaseRepo(local, RUN);
    expect(base.rev).toBe(docker.rev);
    expect(existsSync(join(base.dir, '.git'))).toBe(true);
  });

  it("runs a feature's tests in a pod with the same results as in a Docker container", async () => {
    const feature = pool.features[0];
    const testsPatch = readFileSync(feature.testsPatchPath);
    for (const patch of [readFileSync(feature.patchPath, 'utf8'), '']) {
      const pending = await backend.acquire().startTestRun({ image, run: RUN, task: 7, limits, timeoutMs: 300_000, maxOutputBytes: 256 * 1024, testsPatch });
      const kube = await pending.run(patch);
      const docker = await runFeatureTests(feature, patch, { slot: dockerSlot, image: local, run: RUN, limits, timeoutMs: 300_000 });

      expect(kube.exitCode).toBe(docker.exitCode);
      expect(kube.timedOut).toBe(false);
      expect(withoutTimes(kube.output)).toBe(withoutTimes(docker.output));
    }
    expect(
      (await runFeatureTests(feature, readFileSync(feature.patchPath, 'utf8'), { slot: dockerSlot, image: local, run: RUN, limits, timeoutMs: 300_000 }))
        .passed,
    ).toBe(true);
  });

  it('a test run that outlasts its limit times out, as under Docker; a discarded one leaves no pod', async () => {
    const feature = pool.features[0];
    const testsPatch = readFileSync(feature.testsPatchPath);
    // Code whose import never returns.
    const work = tempDir('kube-hang');
    await execa('cp', ['-a', `${(await backend.acquire().baseRepo(image, RUN)).dir}/.`, work]);
    writeFileSync(join(work, 'src', 'errors.js'), `${readFileSync(join(work, 'src', 'errors.js'), 'utf8')}\nwhile (true) {}\n`);
    const hang = (await execa('git', ['-c', 'safe.directory=*', 'diff'], { cwd: work })).stdout + '\n';
    const slow = await backend.acquire().startTestRun({ image, run: RUN, limits, timeoutMs: 3000, maxOutputBytes: 4096, testsPatch });
    const kube = await slow.run(hang);
    const docker = await runFeatureTests(feature, hang, { slot: dockerSlot, image: local, run: RUN, limits, timeoutMs: 3000 });
    expect(kube).toMatchObject({ exitCode: null, timedOut: true });
    expect(docker).toMatchObject({ exitCode: null, timedOut: true });
    const discarded = await backend.acquire().startTestRun({ image, run: RUN, limits, timeoutMs: 1000, maxOutputBytes: 4096, testsPatch });
    await discarded.discard();
    expect(await backend.removeLeftovers(RUN)).toBe(0);
  });

  it('code that exhausts memory fails its tests on both backends, though Kubernetes stops the whole pod', async () => {
    const feature = pool.features[0];
    const work = tempDir('kube-oom');
    await execa('cp', ['-a', `${(await backend.acquire().baseRepo(image, RUN)).dir}/.`, work]);
    const hog = 'const hog = [];\nfor (;;) hog.push(Buffer.alloc(64 * 1024 * 1024, 1));\n';
    writeFileSync(join(work, 'src', 'errors.js'), `${readFileSync(join(work, 'src', 'errors.js'), 'utf8')}\n${hog}`);
    const patch = (await execa('git', ['-c', 'safe.directory=*', 'diff'], { cwd: work })).stdout + '\n';
    const small = { ...limits, memoryBytes: 384 * 1024 ** 2 };
    const kube = await runFeatureTests(feature, patch, { slot: backend.acquire(), image, run: RUN, limits: small, timeoutMs: 300_000 });
    const docker = await runFeatureTests(feature, patch, { slot: dockerSlot, image: local, run: RUN, limits: small, timeoutMs: 300_000 });
    expect(kube).toMatchObject({ passed: false, timedOut: false, exitCode: 137 });
    expect(docker).toMatchObject({ passed: false, timedOut: false, exitCode: expect.any(Number) });
    expect(await backend.removeLeftovers(RUN)).toBe(0);
  });

  it('runs the digest the extract pod recorded: a tag that moves afterwards changes nothing', async () => {
    const moving = `coop-bench-test/moving-${randomBytes(4).toString('hex')}`;
    await fake.docker.getImage(local.id).tag({ repo: moving, tag: 'latest' });
    try {
      const other = await connect(fake, { image: `${moving}:latest` });
      await other.prepareRun(RUN, [pool]);
      const pinned = await other.acquire().prepareImage(pool, RUN, log);
      await fake.docker.getImage('debian:bookworm-slim').tag({ repo: moving, tag: 'latest' });
      const sandbox = await other.acquire().startAgentSandbox({ image: pinned, run: RUN, task: 1, agent: 'agent1', limits });
      try {
        expect(fake.pod('coop', sandbox.id)!.object.spec.containers[0].image).toBe(`${moving}@${local.id}`);
        expect((await sandbox.exec(['git', 'rev-parse', 'HEAD'])).exitCode).toBe(0);
      } finally {
        await sandbox.remove();
      }
    } finally {
      await fake.docker
        .getImage(`${moving}:latest`)
        .remove({ noprune: true })
        .catch(() => undefined);
    }
  });

  it('an image the cluster cannot pull fails the start with the reason, as an infrastructure error', async () => {
    const other = await connect(fake);
    const error = await other
      .acquire()
      .prepareImage(pool, RUN, log)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((error as Error).message).toMatch(new RegExp(`image ${pool.publishedImage.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*ErrImagePull`));
    expect(other.isInfrastructureError(error)).toBe(true);
  });
});

describe('kubernetes backend: isolation, --git, cleanup', () => {
  it('refuses a run on a cluster that does not enforce NetworkPolicy', async () => {
    const lax = await startFakeKubeApiServer({ namespaces: ['coop'], enforceNetworkPolicy: false });
    try {
      const other = await connect(lax, { image: local.name, probeRetryDelaysMs: SHORT_PROBE_RETRIES });
      const error = await other.prepareRun('lax-run', [pool]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UserError);
      expect((error as Error).message).toMatch(/does not enforce NetworkPolicy.*reached/);
      // Nor does any sandbox start for that run.
      await expect(other.acquire().startAgentSandbox({ image, run: 'lax-run', task: 1, agent: 'agent1', limits })).rejects.toThrow(
        /does not enforce NetworkPolicy/,
      );
      expect(await other.removeLeftovers('lax-run')).toBe(0);
    } finally {
      await lax.close();
    }
  });

  it('waits for a policy the network plugin applies late: the probe tries again, and the run starts', async () => {
    const late = await startFakeKubeApiServer({ namespaces: ['coop'], policyDelayMs: 15_000 });
    try {
      const lines: string[] = [];
      const other = await connect(late, { image: local.name, log: (line: string) => lines.push(line) });
      await other.prepareRun('late-run', [pool]);
      expect(lines.join('\n')).toMatch(/the network policy took effect \d+ s after the probe pod started/);
      expect(await other.removeLeftovers('late-run')).toBe(0);
    } finally {
      await late.close();
    }
  });

  it("tells a pod's own node apart: on a single-node cluster, a reachable API service is no proof either way, and the run says so", async () => {
    const single = await startFakeKubeApiServer({ namespaces: ['coop'], enforceNetworkPolicy: false, apiServerOnNode: true });
    try {
      const other = await connect(single, { image: local.name, probeRetryDelaysMs: SHORT_PROBE_RETRIES });
      const error = await other.prepareRun('single-run', [pool]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UserError);
      expect((error as Error).message).toMatch(
        /cannot tell whether the cluster enforces NetworkPolicy: .* reached the API service at [\d.]+:\d+, which is the pod's own node/,
      );
      expect(await other.removeLeftovers('single-run')).toBe(0);
    } finally {
      await single.close();
    }
  });

  it('refuses --git clearly: pods share no folders', async () => {
    expect(backend.gitUnsupported()).toMatch(/--git is not available with --backend kubernetes/);
    await expect(backend.createTeamRepos(['agent1', 'agent2'])).rejects.toBeInstanceOf(UserError);
  });

  it("removes a run's pods and policy by label, and only that run's", async () => {
    const other = 'kube-backend-other';
    await backend.prepareRun(other, [pool]);
    const mine = [await startAgent('agent1'), await startAgent('agent2')];
    const theirs = await backend.acquire().startAgentSandbox({ image, run: other, task: 1, agent: 'agent1', limits });
    expect(await backend.removeLeftovers(RUN)).toBe(2);
    for (const sandbox of mine) expect(fake.pod('coop', sandbox.id)).toBeUndefined();
    expect(fake.pod('coop', theirs.id)).toBeDefined();
    expect(await backend.removeOwn()).toBe(1);
    expect(fake.pod('coop', theirs.id)).toBeUndefined();
    expect(await backend.removeLeftovers(other)).toBe(0);
    const containers = await fake.docker.listContainers({ all: true, filters: { label: ['io.kubernetes.pod.namespace=coop'] } });
    expect(containers.filter((c) => mine.concat(theirs).some((s) => c.Labels['io.kubernetes.pod.name'] === s.id))).toEqual([]);
  });
});

describe('kubernetes backend: clean without a run store to look at', () => {
  it('leaves the pods of a live process alone and removes those a dead process left, as for Docker', async () => {
    const live = uniqueRun('kube-live');
    const orphaned = uniqueRun('kube-orphaned');
    // A backend of its own: the one above has removed its own pods and takes no more.
    const creator = await connect(fake, { image: local.name });
    await creator.prepareRun(live, [pool]);
    const sandbox = await creator.acquire().startAgentSandbox({ image, run: live, task: 1, agent: 'agent1', limits });
    // What a coop-bench process killed with -9 leaves: a pod labelled with a process id now gone.
    const deadPid = Number((await execa('sh', ['-c', 'echo $$'])).stdout);
    const { core, namespace } = connectCluster();
    const name = `coop-bench-agent-${orphaned.toLowerCase().replace(/[^a-z0-9]/g, '')}`.slice(0, 60);
    const labels = { ...podLabels(orphaned, 'agent', { task: 1, agent: 'agent1' }), 'coop-bench.pid': String(deadPid) };
    await core.createNamespacedPod({ namespace, body: podManifest(name, { image: image.name, labels, limits, deadlineSeconds: POD_DEADLINE_SECONDS.agent }) });

    const noStore = tempDir('kube-clean-runs');
    const clean = (run: string) =>
      coopBench(['clean', '--backend', 'kubernetes', '--namespace', 'coop', '--name', run, '--runs-dir', noStore], {
        env: { KUBECONFIG: process.env.KUBECONFIG! },
      });
    const kept = await clean(live);
    expect(kept.exitCode, kept.all).toBe(0);
    expect(kept.stdout).toBe(
      `skipped run "${live}" (2 pods): made by coop-bench process ${process.pid}, still running; --force removes them anyway\nremoved 0 pods`,
    );
    expect(fake.pod('coop', sandbox.id)).toBeDefined();
    expect(fake.objects('networkpolicies', 'coop', `coop-bench.run=${live}`)).toHaveLength(1);

    const removed = await clean(orphaned);
    expect(removed.exitCode, removed.all).toBe(0);
    expect(removed.stdout).toBe('removed 1 pod');
    expect(fake.pod('coop', name)).toBeUndefined();

    await sandbox.remove();
    expect(await creator.removeLeftovers(live)).toBe(0);
    expect(fake.objects('networkpolicies', 'coop', `coop-bench.run=${live}`)).toEqual([]);
  });
});

describe('kubernetes backend: a cluster under load, quotas and refusals', () => {
  it('tries API calls again after a 429 (waiting its Retry-After) or a 5xx, and exec upgrades refused with a 503', async () => {
    // A backend of its own, its run's isolation already proven: the shared one has removed its own pods and takes no more.
    const loaded = await connect(fake, { image: local.name });
    await loaded.prepareRun(RUN, [pool]);
    fake.injectFault({ code: 429, retryAfterSeconds: 1, times: 2, match: (method, path) => method === 'POST' && path.endsWith('/pods') });
    fake.injectFault({ code: 500, times: 1, match: (method, path) => method === 'GET' && /\/pods\/[^/]+$/.test(path) });
    fake.injectFault({ code: 503, times: 2, match: (_method, path) => path.endsWith('/exec') });
    const before = fake.calls.length;
    const sandbox = await loaded.acquire().startAgentSandbox({ image, run: RUN, task: 7, agent: 'agent1', limits });
    try {
      expect((await sandbox.exec(['echo', 'hello'])).stdout).toBe('hello\n');
    } finally {
      await sandbox.remove();
    }
    const made = fake.calls.slice(before);
    expect(made.filter((c) => c.method === 'POST' && c.path.endsWith('/pods'))).toHaveLength(3);
    expect(made.filter((c) => c.path.endsWith('/exec'))).toHaveLength(3);
  });

  it('waits for room in a full ResourceQuota instead of failing the task; a pod the quota can never hold fails at once, named as such', async () => {
    const quotaFake = await startFakeKubeApiServer({ namespaces: ['coop'], quota: { name: 'coop-quota', hard: { pods: '2', 'limits.memory': '3Gi' } } });
    const lines: string[] = [];
    try {
      process.env.KUBECONFIG = quotaFake.writeKubeconfig(tempDir('kube'), 'coop');
      const other = await createBackend('kubernetes', { image: local.name, log: (line) => lines.push(line) });
      await other.prepareRun(RUN, [pool]);
      const start = (agent: string, memoryBytes = limits.memoryBytes) =>
        other.acquire().startAgentSandbox({ image, run: RUN, task: 1, agent, limits: { ...limits, memoryBytes } });
      const first = await start('agent1');
      const second = await start('agent2');
      let third: AgentSandbox | undefined;
      const waiting = start('agent3').then((sandbox) => (third = sandbox));
      for (let i = 0; i < 100 && lines.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(lines.join('\n')).toMatch(/waits for room in ResourceQuota coop-quota of namespace coop/);
      expect(third).toBeUndefined();
      await first.remove();
      await waiting;
      expect(quotaFake.pod('coop', third!.id)).toBeDefined();
      const error = await failure(start('agent4', 4 * 1024 ** 3));
      expect(error.message).toMatch(/exceeded quota: coop-quota, .*limits\.memory.*\(a ResourceQuota of the namespace is full/);
      expect(error.message).not.toMatch(/Role/);
      await Promise.all([second.remove(), third!.remove()]);
    } finally {
      await quotaFake.close();
    }
  });

  it("a pod no node can hold stays Pending: its start waits, then fails with the scheduler's reason as an infrastructure error, leaving no pod", async () => {
    const small = await startFakeKubeApiServer({ namespaces: ['coop'], nodeAllocatable: { memory: '2Gi' } });
    try {
      process.env.KUBECONFIG = small.writeKubeconfig(tempDir('kube'), 'coop');
      const pods = new PodTracker(connectCluster());
      const error = await failure(
        pods.start('agent', { image: image.id, labels: podLabels(RUN, 'agent'), limits: { ...limits, memoryBytes: 4 * 1024 ** 3 } }, 3000),
      );
      expect(error).toBeInstanceOf(KubernetesError);
      expect(error.message).toMatch(/not running after 3 s: 0\/1 nodes are available: 1 Insufficient memory\./);
      expect(small.objects('pods', 'coop', `coop-bench.run=${RUN}`)).toEqual([]);
    } finally {
      await small.close();
    }
  });

  it('names what refused a pod: Pod Security admission, a namespace being deleted, RBAC', async () => {
    const cases: [Parameters<typeof startFakeKubeApiServer>[0], RegExp][] = [
      [{ podSecurity: 'restricted' }, /violates PodSecurity "restricted:latest".*label the namespace pod-security\.kubernetes\.io\/enforce=baseline/],
      [{ forbid: ['create pods'] }, /cannot create resource "pods" .*\(the Role coop-bench needs is in docs\/scaling\.md\)/],
      [{ forbid: ['create pods/exec'] }, /403 \(the Role coop-bench needs is in docs\/scaling\.md\)/],
      [{}, /because it is being terminated \(the namespace is being deleted: choose another with --namespace\)/],
    ];
    for (const [options, message] of cases) {
      const strict = await startFakeKubeApiServer({ namespaces: ['coop'], ...options });
      try {
        if (Object.keys(options ?? {}).length === 0) strict.terminateNamespace('coop');
        const error = await failure((await connect(strict, { image: local.name })).prepareRun('refused', [pool]));
        expect(error.message).toMatch(message);
      } finally {
        await strict.close();
      }
    }
  });
});

/** A call as the golden file lists it: names, ids and values replaced by their shape. */
function shape(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.length ? [shape(value[0], key)] : [];
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, shape(v, k)]),
    );
  return typeof value;
}

function normalize(call: RecordedCall) {
  const path = call.path.replace(/\/namespaces\/[^/]+/, '/namespaces/{namespace}').replace(/\/(pods|networkpolicies)\/[^/]+/, '/$1/{name}');
  const query = Object.fromEntries(
    Object.entries(call.query)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, k === 'command' ? '{argv}' : k === 'labelSelector' ? v[0].replace(/=.*/, '={value}') : v.join(',')]),
  );
  return { method: call.method, path, query, ...(call.body !== undefined && { body: shape(call.body) }) };
}

describe('kubernetes backend: API calls', () => {
  it('makes exactly the calls of the golden file, each checked against the API reference', () => {
    const made = [...new Map(fake.calls.map(normalize).map((c) => [JSON.stringify(c), c])).values()];
    type GoldenCall = { verb: string; method: string; path: string; query: object; body?: unknown; reference: string };
    const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as { about: string; calls: GoldenCall[] };
    const key = (c: { method: string; path: string; query: object; body?: unknown }) =>
      JSON.stringify({ method: c.method, path: c.path, query: c.query, body: c.body });
    if (process.env.UPDATE_GOLDEN) {
      const previous = new Map(golden.calls.map((c) => [key(c), c]));
      golden.calls = made.map((c) => ({ verb: previous.get(key(c))?.verb ?? 'TODO', ...c, reference: previous.get(key(c))?.reference ?? 'TODO' }));
      writeFileSync(GOLDEN, `${JSON.stringify(golden, null, 2)}\n`);
    }
    expect(made.map(key).sort()).toEqual(golden.calls.map(key).sort());
    for (const call of golden.calls)
      expect(call).toMatchObject({ verb: expect.stringMatching(/^(create|get|list|delete) /), reference: expect.stringMatching(/^https:\/\//) });
  });
});
