// The test API server rejects what a real one rejects, as Status objects, through the real client:
// a lenient fake would let the backend's tests prove nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiException, CoreV1Api, Exec, KubeConfig, NetworkingV1Api, type V1Pod } from '@kubernetes/client-node';
import https from 'node:https';
import { PassThrough, Writable } from 'node:stream';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-api-server/index.ts';
import { tempDir } from '../helpers/cli.ts';

const IMAGE = 'debian:bookworm-slim';
let fake: FakeKubeApiServer;
let core: CoreV1Api;
let networking: NetworkingV1Api;
let exec: Exec;
let kubeconfig: string;

beforeAll(async () => {
  fake = await startFakeKubeApiServer({ namespaces: ['coop'] });
  kubeconfig = fake.writeKubeconfig(tempDir('kube-fake'));
  const config = new KubeConfig();
  config.loadFromFile(kubeconfig);
  core = config.makeApiClient(CoreV1Api);
  networking = config.makeApiClient(NetworkingV1Api);
  exec = new Exec(config);
});

afterAll(async () => {
  await fake?.close();
});

const pod = (name: string, patch: Partial<V1Pod['spec']> & { labels?: Record<string, string> } = {}): V1Pod => {
  const { labels, ...spec } = patch;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: { restartPolicy: 'Never', containers: [{ name: 'sandbox', image: IMAGE, command: ['tail', '-f', '/dev/null'] }], ...spec },
  };
};

/** The API's answer to a failing call: its HTTP code and Status body. */
async function failure(call: Promise<unknown>): Promise<{
  code: number;
  body: { kind: string; status: string; reason: string; message: string; code: number; details?: { causes?: { field: string }[] } };
}> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiException);
  const { code, body } = error as ApiException<string | undefined>;
  return { code, body: typeof body === 'string' ? JSON.parse(body) : body };
}

const sink = () => new Writable({ write: (_c, _e, done) => done() });

/** A pod of IMAGE whose container runs. */
async function runningPod(name: string): Promise<void> {
  await core.createNamespacedPod({ namespace: 'coop', body: pod(name) });
  for (let i = 0; i < 50 && (await core.readNamespacedPod({ name, namespace: 'coop' })).status?.phase !== 'Running'; i++)
    await new Promise((r) => setTimeout(r, 100));
}

/** Runs `command` through client-node's own Exec; the final Status, or undefined when the connection ended without one. */
async function rawExec(name: string, command: string[], stdin: PassThrough | null = null): Promise<unknown> {
  let status: unknown;
  const socket = await exec.exec('coop', name, 'sandbox', command, sink(), sink(), stdin, false, (s) => (status = s));
  await new Promise((resolve) => socket.on('close', resolve));
  return status;
}

describe('test Kubernetes API server: what a real one rejects', () => {
  it('invalid pods: 422 Invalid with a cause per field', async () => {
    const cases: [V1Pod, string][] = [
      [pod('Upper_Case'), 'metadata.name'],
      [{ ...pod('x'), metadata: {} }, 'metadata.name'],
      [pod('bad-label', { labels: { 'coop-bench.run': 'ends-with-dash-' } }), 'metadata.labels[coop-bench.run]'],
      [pod('bad-key', { labels: { '-key': 'v' } }), 'metadata.labels'],
      [pod('no-containers', { containers: [] }), 'spec.containers'],
      [pod('no-image', { containers: [{ name: 'sandbox' }] }), 'spec.containers[0].image'],
      [pod('bad-container', { containers: [{ name: 'Sandbox_1', image: IMAGE }] }), 'spec.containers[0].name'],
      [pod('bad-restart', { restartPolicy: 'Sometimes' }), 'spec.restartPolicy'],
      [pod('bad-grace', { terminationGracePeriodSeconds: -1 }), 'spec.terminationGracePeriodSeconds'],
    ];
    for (const [body, field] of cases) {
      const { code, body: status } = await failure(core.createNamespacedPod({ namespace: 'coop', body }));
      expect(code).toBe(422);
      expect(status).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422 });
      expect(status.details?.causes?.map((c) => c.field)).toContain(field);
    }
  });

  it('malformed bodies and quantities: 400 BadRequest', async () => {
    const quantity = pod('bad-quantity', { containers: [{ name: 'sandbox', image: IMAGE, resources: { limits: { memory: 'lots' } } }] });
    expect(await failure(core.createNamespacedPod({ namespace: 'coop', body: quantity }))).toMatchObject({ code: 400, body: { reason: 'BadRequest' } });
    const elsewhere = { ...pod('elsewhere'), metadata: { name: 'elsewhere', namespace: 'other' } };
    expect(await failure(core.createNamespacedPod({ namespace: 'coop', body: elsewhere }))).toMatchObject({
      code: 400,
      body: { message: expect.stringMatching(/namespace of the provided object does not match/) },
    });
    expect(await failure(core.listNamespacedPod({ namespace: 'coop', labelSelector: 'coop-bench.run=bad value!' }))).toMatchObject({
      code: 400,
      body: { message: expect.stringMatching(/unable to parse requirement/) },
    });
  });

  it('missing objects and namespaces: 404 NotFound; duplicates: 409 AlreadyExists', async () => {
    expect(await failure(core.readNamespacedPod({ name: 'nope', namespace: 'coop' }))).toMatchObject({
      code: 404,
      body: { reason: 'NotFound', message: 'pods "nope" not found' },
    });
    expect(await failure(core.deleteNamespacedPod({ name: 'nope', namespace: 'coop' }))).toMatchObject({ code: 404, body: { reason: 'NotFound' } });
    expect(await failure(core.createNamespacedPod({ namespace: 'absent', body: pod('x') }))).toMatchObject({
      code: 404,
      body: { message: 'namespaces "absent" not found' },
    });
    expect(await failure(networking.deleteNamespacedNetworkPolicy({ name: 'nope', namespace: 'coop' }))).toMatchObject({ code: 404 });
    await core.createNamespacedPod({ namespace: 'coop', body: pod('twice') });
    expect(await failure(core.createNamespacedPod({ namespace: 'coop', body: pod('twice') }))).toMatchObject({
      code: 409,
      body: { reason: 'AlreadyExists', message: 'pods "twice" already exists' },
    });
    await core.deleteNamespacedPod({ name: 'twice', namespace: 'coop', gracePeriodSeconds: 0 });
  });

  it('invalid NetworkPolicies: 422', async () => {
    const policy = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p' }, spec: { podSelector: {}, policyTypes: ['Sideways'] } };
    expect(await failure(networking.createNamespacedNetworkPolicy({ namespace: 'coop', body: policy }))).toMatchObject({
      code: 422,
      body: { reason: 'Invalid' },
    });
  });

  it('no token, no access: 401', async () => {
    const config = new KubeConfig();
    config.loadFromFile(kubeconfig);
    config.users[0] = { name: config.users[0].name, token: 'wrong' };
    const stranger = config.makeApiClient(CoreV1Api);
    // client-node keeps no body for a 401 (its OpenAPI lists none); the code is what it sees.
    expect((await failure(stranger.listNamespacedPod({ namespace: 'coop' }))).code).toBe(401);
  });

  it('exec: refused without a command, in a missing container, in a stopped pod; runs with v5 otherwise', async () => {
    await core.createNamespacedPod({ namespace: 'coop', body: pod('exec-target') });
    for (let i = 0; i < 50 && (await core.readNamespacedPod({ name: 'exec-target', namespace: 'coop' })).status?.phase !== 'Running'; i++)
      await new Promise((r) => setTimeout(r, 100));
    await expect(exec.exec('coop', 'exec-target', 'sandbox', [], sink(), sink(), null, false)).rejects.toMatchObject({ message: expect.stringMatching(/400/) });
    await expect(exec.exec('coop', 'exec-target', 'other', ['true'], sink(), sink(), null, false)).rejects.toMatchObject({
      message: expect.stringMatching(/400/),
    });
    await expect(exec.exec('coop', 'missing', 'sandbox', ['true'], sink(), sink(), null, false)).rejects.toMatchObject({
      message: expect.stringMatching(/404/),
    });
    let status: unknown;
    const socket = await exec.exec('coop', 'exec-target', 'sandbox', ['sh', '-c', 'exit 4'], sink(), sink(), null, false, (s) => (status = s));
    expect(socket.protocol).toBe('v5.channel.k8s.io');
    await new Promise((resolve) => socket.on('close', resolve));
    expect(status).toEqual({
      metadata: {},
      status: 'Failure',
      message: expect.stringMatching(/exit code 4/),
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '4' }] },
    });
    await fake.docker.getContainer(fake.pod('coop', 'exec-target')!.containerId!).kill();
    await expect(exec.exec('coop', 'exec-target', 'sandbox', ['true'], sink(), sink(), null, false)).rejects.toMatchObject({
      message: expect.stringMatching(/400/),
    });
    await core.deleteNamespacedPod({ name: 'exec-target', namespace: 'coop', gracePeriodSeconds: 0 });
  });

  it('exec: a stdin message over 32 MB ends the connection without an exit status; smaller messages are read', async () => {
    await runningPod('big-stdin');
    const count = ['sh', '-c', 'head -c 34603008 >/dev/null'];
    const whole = new PassThrough();
    whole.write(Buffer.alloc(33 * 1024 * 1024, 1));
    expect(await rawExec('big-stdin', count, whole)).toBeUndefined();
    const pieces = new PassThrough();
    for (let i = 0; i < 33; i++) pieces.write(Buffer.alloc(1024 * 1024, 1));
    expect(await rawExec('big-stdin', count, pieces)).toEqual({ metadata: {}, status: 'Success' });
    await core.deleteNamespacedPod({ name: 'big-stdin', namespace: 'coop', gracePeriodSeconds: 0 });
  });

  it('a pod past its activeDeadlineSeconds is failed with DeadlineExceeded, its container killed; a deadline under a second is invalid', async () => {
    expect(await failure(core.createNamespacedPod({ namespace: 'coop', body: pod('no-deadline', { activeDeadlineSeconds: 0 }) }))).toMatchObject({
      code: 422,
      body: { details: { causes: [{ field: 'spec.activeDeadlineSeconds' }] } },
    });
    await core.createNamespacedPod({ namespace: 'coop', body: pod('short-lived', { activeDeadlineSeconds: 2 }) });
    let read = await core.readNamespacedPod({ name: 'short-lived', namespace: 'coop' });
    for (let i = 0; i < 100 && read.status?.phase !== 'Failed'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      read = await core.readNamespacedPod({ name: 'short-lived', namespace: 'coop' });
    }
    expect(read.status).toMatchObject({
      phase: 'Failed',
      reason: 'DeadlineExceeded',
      message: 'Pod was active on the node longer than the specified deadline',
    });
    expect(read.status?.containerStatuses?.[0].state?.terminated).toMatchObject({ exitCode: 137 });
    expect((await fake.docker.getContainer(fake.pod('coop', 'short-lived')!.containerId!).inspect()).State.Running).toBe(false);
    await expect(exec.exec('coop', 'short-lived', 'sandbox', ['true'], sink(), sink(), null, false)).rejects.toMatchObject({
      message: expect.stringMatching(/400/),
    });
    await core.deleteNamespacedPod({ name: 'short-lived', namespace: 'coop', gracePeriodSeconds: 0 });
  });

  it('a pod that writes past its ephemeral-storage limit is evicted; one within it runs on', async () => {
    const strict = await startFakeKubeApiServer({ namespaces: ['coop'], evictionIntervalMs: 500 });
    try {
      const config = new KubeConfig();
      config.loadFromFile(strict.writeKubeconfig(tempDir('kube-evict')));
      const strictCore = config.makeApiClient(CoreV1Api);
      const limited = (name: string) =>
        pod(name, {
          containers: [
            {
              name: 'sandbox',
              image: IMAGE,
              command: ['sh', '-c', 'head -c 30M /dev/zero > /tmp/fill; sleep 60'],
              resources: { limits: { 'ephemeral-storage': name === 'filler' ? '10Mi' : '100Mi' } },
            },
          ],
        });
      await strictCore.createNamespacedPod({ namespace: 'coop', body: limited('filler') });
      await strictCore.createNamespacedPod({ namespace: 'coop', body: limited('within') });
      let read = await strictCore.readNamespacedPod({ name: 'filler', namespace: 'coop' });
      for (let i = 0; i < 200 && read.status?.phase !== 'Failed'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        read = await strictCore.readNamespacedPod({ name: 'filler', namespace: 'coop' });
      }
      expect(read.status).toMatchObject({
        phase: 'Failed',
        reason: 'Evicted',
        message: 'Pod ephemeral local storage usage exceeds the total limit of containers 10Mi. ',
      });
      expect((await strictCore.readNamespacedPod({ name: 'within', namespace: 'coop' })).status?.phase).toBe('Running');
    } finally {
      await strict.close();
    }
  });

  it('a request line over 16 KB is refused (431), as behind a proxy with 8 KB buffers; an API server stops at 1 MB', async () => {
    // The fake's certificate is its own authority: this request does not verify it, only reads the status line.
    const code = await new Promise<number | undefined>((resolve) => {
      https
        .get(`${fake.url}/api/v1/namespaces/coop/pods?labelSelector=${'x'.repeat(20_000)}`, { rejectUnauthorized: false }, (res) => {
          res.resume();
          resolve(res.statusCode);
        })
        .on('error', () => resolve(undefined));
    });
    expect(code).toBe(431);
  });

  it('exec: a connection with no frame either way for the idle time is cut, as a load balancer does', async () => {
    const strict = await startFakeKubeApiServer({ namespaces: ['coop'], execIdleMs: 2000 });
    try {
      const config = new KubeConfig();
      config.loadFromFile(strict.writeKubeconfig(tempDir('kube-idle')));
      const strictCore = config.makeApiClient(CoreV1Api);
      await strictCore.createNamespacedPod({ namespace: 'coop', body: pod('quiet') });
      for (let i = 0; i < 50 && (await strictCore.readNamespacedPod({ name: 'quiet', namespace: 'coop' })).status?.phase !== 'Running'; i++)
        await new Promise((r) => setTimeout(r, 100));
      let status: unknown;
      // client-node's Exec sends no pings.
      const socket = await new Exec(config).exec('coop', 'quiet', 'sandbox', ['sleep', '4'], sink(), sink(), null, false, (s) => (status = s));
      await new Promise((resolve) => socket.on('close', resolve));
      expect(status).toBeUndefined();
    } finally {
      await strict.close();
    }
  });
});
