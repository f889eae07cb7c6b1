// The Kubernetes backend's pure parts: names and labels a real API server accepts, quantities, the
// exec status, why a pod does not run, image names, and the registry of backends.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { execa } from 'execa';
import { commandScript, exitCodeOf } from '../../../../../harness/sandbox/kubernetes/exec.ts';
import { PodStoppedError, refusalOf } from '../../../../../harness/sandbox/kubernetes/cluster.ts';
import { quantity, quotaRefusal } from '../../../../../harness/sandbox/kubernetes/quota.ts';
import { isRetryable, waitBefore } from '../../../../../harness/sandbox/kubernetes/retry.ts';
import { creatorOf, podLabels, podManifest, podProblem, podResources, labelValue, runSelector } from '../../../../../harness/sandbox/kubernetes/pods.ts';
import { hostname } from 'node:os';
import { clusterImageName } from '../../../../../harness/sandbox/kubernetes/images.ts';
import { splitTag } from '../../../../../harness/sandbox/docker/push.ts';
import { denyAllPolicy, policyName } from '../../../../../harness/sandbox/kubernetes/network.ts';
import { createBackend } from '../../../../../harness/sandbox/registry.ts';
import { labelKeyProblem, labelValueProblem, subdomainProblem, validateNetworkPolicy, validatePod } from '../../../../fakes/kube-api-server/validation.ts';
import { loadPool } from '../../../../../tasks/pools.ts';
import { SHIPPED_POOLS } from '../../../../../harness/paths.ts';
import { UserError } from '../../../../../harness/errors.ts';

const limits = { memoryBytes: 4 * 1024 ** 3, nanoCpus: 2e9, pids: 1024 };

describe('kubernetes backend: objects a real API server accepts', () => {
  it('turns any run name into a valid label value, the same every time', () => {
    for (const run of ['run1', 'My_Run.2', 'ends-with-dash-', 'x'.repeat(100), '_.', 'a..b']) {
      const value = labelValue(run);
      expect(labelValueProblem(value)).toBeUndefined();
      expect(labelValue(run)).toBe(value);
    }
    expect(labelValue('run1')).toBe('run1');
    expect(labelValue('x'.repeat(100))).not.toBe(labelValue(`${'x'.repeat(99)}y`));
  });

  it('labels pods and policies with the host and process that made them, as Docker containers are', () => {
    const labels = podLabels('run1', 'test');
    expect(labels).toMatchObject({ 'coop-bench.host': labelValue(hostname()), 'coop-bench.pid': String(process.pid) });
    expect(creatorOf(labels)).toEqual({ host: hostname(), pid: process.pid });
    expect(creatorOf(denyAllPolicy('run1').metadata!.labels)).toEqual({ host: hostname(), pid: process.pid });
    expect(creatorOf({ 'coop-bench.host': 'another-machine', 'coop-bench.pid': '12' })).toEqual({ host: 'another-machine', pid: 12 });
    expect(creatorOf({ 'coop-bench.run': 'made-by-an-older-version' })).toBeUndefined();
  });

  it("builds pods and policies that pass the API server's validation", () => {
    const labels = podLabels('My run!'.replace(/[ !]/g, '_'), 'agent', { task: 3, agent: 'agent1' });
    for (const key of Object.keys(labels)) expect(labelKeyProblem(key)).toBeUndefined();
    const pod = podManifest('coop-bench-agent-0123456789', { image: 'coop-bench/argkit_task:task1-abc', labels, limits });
    expect(() => validatePod(pod as never)).not.toThrow();
    expect(pod.spec).toMatchObject({ automountServiceAccountToken: false, restartPolicy: 'Never', enableServiceLinks: false });
    const policy = denyAllPolicy('Some_run-');
    expect(subdomainProblem(policyName('Some_run-'))).toBeUndefined();
    expect(() => validateNetworkPolicy(policy as never)).not.toThrow();
    expect(policy.spec).toEqual({ podSelector: { matchLabels: { 'coop-bench.run': labelValue('Some_run-') } }, policyTypes: ['Ingress', 'Egress'] });
    expect(runSelector('Some_run-')).toBe(`coop-bench.run=${labelValue('Some_run-')}`);
    expect(runSelector()).toBe('coop-bench=true');
  });

  it('gives the same limits as Docker: bytes of memory and millicores, --disk as ephemeral storage (20 GiB without one)', () => {
    expect(podResources(limits)).toEqual({ limits: { memory: String(4 * 1024 ** 3), cpu: '2000m', 'ephemeral-storage': String(20 * 1024 ** 3) } });
    expect(podResources({ ...limits, diskBytes: 8 * 1024 ** 3 }).limits['ephemeral-storage']).toBe(String(8 * 1024 ** 3));
    expect(podResources({ ...limits, nanoCpus: 5e8 }).limits.cpu).toBe('500m');
  });
});

describe("kubernetes backend: reading the cluster's answers", () => {
  it("reads the exit code from the exec's final Status", () => {
    expect(exitCodeOf({ status: 'Success' })).toBe(0);
    expect(exitCodeOf({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '3' }] } })).toBe(3);
    expect(() => exitCodeOf({ status: 'Failure', reason: 'InternalError', message: 'container not found' })).toThrow(/container not found/);
  });

  it('tells a pod that will start from one that cannot', () => {
    const running = {
      status: { phase: 'Running', containerStatuses: [{ name: 'sandbox', image: 'i', imageID: 'x', ready: true, restartCount: 0, state: { running: {} } }] },
    };
    expect(podProblem(running)).toBeUndefined();
    const waitingFor = (reason: string, message?: string) => ({
      status: {
        phase: 'Pending',
        containerStatuses: [{ name: 'sandbox', image: 'i', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason, message } } }],
      },
    });
    expect(podProblem(waitingFor('ContainerCreating'))).toEqual({ stuck: false, reason: 'ContainerCreating' });
    expect(podProblem(waitingFor('ImagePullBackOff', 'not found'))).toEqual({ stuck: true, reason: 'ImagePullBackOff: not found' });
    // A pull that failed on the way (a timeout, a refused connection) the kubelet retries: wait for it.
    const timeout = 'failed to pull image "r/i:1": dial tcp 10.0.0.5:5000: i/o timeout';
    expect(podProblem(waitingFor('ErrImagePull', timeout))).toEqual({ stuck: false, reason: `ErrImagePull: ${timeout}` });
    expect(podProblem(waitingFor('ImagePullBackOff', 'Back-off pulling image "r/i:1"'))).toMatchObject({ stuck: false });
    expect(podProblem(waitingFor('ErrImagePull', 'failed to pull image "r/i:1": 401 Unauthorized'))).toMatchObject({ stuck: true });
    const insecure = 'failed to pull image "r/i:1": http: server gave HTTP response to HTTPS client';
    expect(podProblem(waitingFor('ErrImagePull', insecure))).toMatchObject({ stuck: true });
    const unschedulable = {
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', message: '0/3 nodes are available: 3 Insufficient memory.' }] },
    };
    expect(podProblem(unschedulable)).toEqual({ stuck: false, reason: '0/3 nodes are available: 3 Insufficient memory.' });
    const killed = {
      status: {
        phase: 'Failed',
        containerStatuses: [
          { name: 'sandbox', image: 'i', imageID: 'x', ready: false, restartCount: 0, state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } },
        ],
      },
    };
    expect(podProblem(killed)).toEqual({ stuck: true, reason: 'stopped (OOMKilled 137)', outOfMemory: true, overDiskLimit: false });
  });

  it("counts a pod its own memory use stopped as stopped by what ran in it (the agent's failure, scored); one deleted or evicted by the node is not", () => {
    expect(new PodStoppedError('p', 'stopped (OOMKilled 137)', { outOfMemory: true }).byItsProcesses).toBe(true);
    expect(new PodStoppedError('p', 'was deleted').byItsProcesses).toBe(false);
    expect(new PodStoppedError('p', 'stopped (Evicted: the node was low on resource: ephemeral-storage)').byItsProcesses).toBe(false);
  });

  it("tells the kubelet's reasons apart: over its own storage limit (the pod's doing), a node low on disk, a deadline", () => {
    const ended = (reason: string, message: string) => ({
      spec: { activeDeadlineSeconds: 86400, containers: [] },
      status: {
        phase: 'Failed',
        reason,
        message,
        containerStatuses: [
          { name: 'sandbox', image: 'i', imageID: 'x', ready: false, restartCount: 0, state: { terminated: { exitCode: 137, reason: 'Error' } } },
        ],
      },
    });
    const own = 'Pod ephemeral local storage usage exceeds the total limit of containers 8589934592. ';
    expect(podProblem(ended('Evicted', own))).toEqual({ stuck: true, reason: `stopped (Evicted: ${own.trim()})`, outOfMemory: false, overDiskLimit: true });
    expect(podProblem(ended('Evicted', 'Container sandbox exceeded its local ephemeral storage limit "8Gi". '))).toMatchObject({ overDiskLimit: true });
    const node = 'The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 9Gi. ';
    expect(podProblem(ended('Evicted', node))).toMatchObject({ overDiskLimit: false, outOfMemory: false });
    expect(podProblem(ended('DeadlineExceeded', 'Pod was active on the node longer than the specified deadline'))).toEqual({
      stuck: true,
      reason:
        "stopped (DeadlineExceeded: it ran past the activeDeadlineSeconds coop-bench gives its pods (86400 s), so that a killed coordinator's pods stop holding quota)",
      outOfMemory: false,
      overDiskLimit: false,
    });
  });
});

describe('kubernetes backend: refusals, retries and commands on stdin', () => {
  it('names what a 403 refused from its Status message', () => {
    expect(refusalOf('pods "p" is forbidden: exceeded quota: q, requested: pods=1, used: pods=4, limited: pods=4')).toBe('quota');
    expect(refusalOf('pods "p" is forbidden: violates PodSecurity "restricted:latest": runAsNonRoot != true')).toBe('pod-security');
    expect(refusalOf('pods "p" is forbidden: unable to create new content in namespace coop because it is being terminated')).toBe('terminating');
    expect(refusalOf('pods is forbidden: User "u" cannot create resource "pods" in API group "" in the namespace "coop"')).toBe('rbac');
  });

  it('tells a quota that will have room from one the pod can never fit', () => {
    const full =
      'pods "p" is forbidden: exceeded quota: compute, requested: limits.memory=1Gi,pods=1, used: limits.memory=4Gi,pods=4, limited: limits.memory=4Gi,pods=4';
    expect(quotaRefusal(full)).toEqual({ quota: 'compute', neverFits: false });
    const tooBig = 'pods "p" is forbidden: exceeded quota: compute, requested: limits.memory=8Gi, used: limits.memory=0, limited: limits.memory=4Gi';
    expect(quotaRefusal(tooBig)).toEqual({ quota: 'compute', neverFits: true });
    expect(quotaRefusal('pods is forbidden: User "u" cannot create')).toBeUndefined();
    expect([quantity('1Gi'), quantity('500m'), quantity('2e3'), quantity('12')]).toEqual([1024 ** 3, 0.5, 2000, 12]);
  });

  it('waits what Retry-After says, else doubles from half a second; retries what another try may fix', () => {
    expect([waitBefore(1, '3'), waitBefore(1), waitBefore(3), waitBefore(1, 'soon'), waitBefore(1, '900')]).toEqual([3000, 500, 2000, 500, 60_000]);
    expect([429, 500, 502, 503, 504].every((code) => isRetryable(code, undefined))).toBe(true);
    expect([400, 401, 403, 404, 409, 422].some((code) => isRetryable(code, undefined))).toBe(false);
    expect(isRetryable(undefined, Object.assign(new Error('request failed'), { code: 'ECONNRESET' }))).toBe(true);
  });

  it('puts a command in a script on stdin, each argument quoted, run only when it arrived whole', async () => {
    const command = ['printf', '%s|', "it's", '$HOME', 'two words', ''];
    const { argv, script } = commandScript(command, false);
    expect(argv.join(' ').length).toBeLessThan(200);
    const whole = await execa(argv[0], argv.slice(1), { input: script, reject: false });
    expect(whole.stdout).toBe("it's|$HOME|two words||");
    const cut = await execa(argv[0], argv.slice(1), { input: script.subarray(0, script.length - 3), reject: false });
    expect(cut).toMatchObject({ exitCode: 125, stdout: '' });
  });
});

describe('kubernetes backend: images and registry', () => {
  const pool = loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1'));

  it('names the pushed image under --registry, --image over all, the published one otherwise', () => {
    expect(clusterImageName(pool, { registry: 'registry.test:5000/team/' })).toMatch(/^registry\.test:5000\/team\/coop-bench\/argkit_task:task1-[0-9a-f]{12}$/);
    expect(clusterImageName(pool, { image: 'mine:1', registry: 'r' })).toBe('mine:1');
    expect(clusterImageName(pool, {})).toBe(pool.publishedImage);
    expect(clusterImageName({ ...pool, dockerfilePath: undefined }, { registry: 'r' })).toBe(pool.publishedImage);
    expect(splitTag('registry.test:5000/a/b:tag1')).toEqual({ repo: 'registry.test:5000/a/b', tag: 'tag1' });
    expect(splitTag('registry.test:5000/a/b')).toEqual({ repo: 'registry.test:5000/a/b', tag: 'latest' });
  });

  it('refuses an unknown backend name, listing the known ones', async () => {
    await expect(createBackend('nomad', { log: () => undefined })).rejects.toThrow(UserError);
    await expect(createBackend('nomad', { log: () => undefined })).rejects.toThrow(/kubernetes/);
  });

  it('says where to put a kubeconfig when there is none', async () => {
    const saved = { KUBECONFIG: process.env.KUBECONFIG, HOME: process.env.HOME };
    process.env.KUBECONFIG = '';
    process.env.HOME = '/nonexistent-home';
    try {
      await expect(createBackend('kubernetes', { log: () => undefined })).rejects.toThrow(/no Kubernetes configuration found: set KUBECONFIG/);
    } finally {
      Object.assign(process.env, saved);
      if (saved.KUBECONFIG === undefined) delete process.env.KUBECONFIG;
    }
  });
});
