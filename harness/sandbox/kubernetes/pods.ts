// One pod per sandbox: its manifest (labels, limits, no service account token, no restarts), its
// start (until its container runs, or a clear reason why not), its removal, and the pods this
// process has not removed yet (an interrupted run removes them).
import { createHash, randomBytes } from 'node:crypto';
import type { V1Pod } from '@kubernetes/client-node';
import { hostname } from 'node:os';
import { AGENT_LABEL, HOST_LABEL, LABEL, PID_LABEL, ROLE_LABEL, RUN_LABEL, TASK_LABEL, type Leftover } from '../labels.ts';
import { WORKSPACE } from '../../../tasks/prompts.ts';
import type { ContainerLimits } from '../types.ts';
import { api, hasStatus, KubernetesError, PodStoppedError, type Cluster } from './cluster.ts';
import { quotaRefusal } from './quota.ts';
import { sleep } from './retry.ts';

export const CONTAINER = 'sandbox';
export type PodRole = 'agent' | 'test' | 'extract' | 'probe';

const IDLE = ['tail', '-f', '/dev/null'];
/** Image pulls of multi-GB pool images take minutes on a cold node. */
export const POD_START_TIMEOUT_MS = 600_000;

// Label values: at most 63 characters, alphanumerics with '-', '_', '.' inside
// (https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set).
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** A text (run name, host name) as a label value: itself when valid, else a readable prefix and a hash (the same every time). */
export function labelValue(text: string): string {
  if (text.length <= 63 && LABEL_VALUE.test(text)) return text;
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 10);
  const prefix = text.slice(0, 50).replace(/[^A-Za-z0-9]+$/, '');
  return prefix ? `${prefix}-${hash}` : hash;
}

/**
 * The machine and process that create an object, as Docker containers carry them: `clean` leaves
 * those of a live process alone. A host name that is no valid label value (over 63 characters) is
 * stored as labelValue gives it, and read back as this machine's name when it is this machine's.
 */
export function creatorLabels(): Record<string, string> {
  return { [HOST_LABEL]: labelValue(hostname()), [PID_LABEL]: String(process.pid) };
}

export function creatorOf(labels: Record<string, string> | undefined): Leftover['creator'] {
  const host = labels?.[HOST_LABEL];
  const pid = Number(labels?.[PID_LABEL]);
  if (!host || !Number.isInteger(pid) || pid <= 0) return undefined;
  return { host: host === labelValue(hostname()) ? hostname() : host, pid };
}

export function podLabels(run: string, role: PodRole, owner?: { task?: number; agent?: string }): Record<string, string> {
  return {
    [LABEL]: 'true',
    [RUN_LABEL]: labelValue(run),
    [ROLE_LABEL]: role,
    ...creatorLabels(),
    ...(owner?.task !== undefined && { [TASK_LABEL]: String(owner.task) }),
    ...(owner?.agent && { [AGENT_LABEL]: owner.agent }),
  };
}

/** The selector of one run's objects, or of every object coop-bench made. */
export function runSelector(run?: string): string {
  return run ? `${RUN_LABEL}=${labelValue(run)}` : `${LABEL}=true`;
}

/**
 * Disk a pod may write (its writable layer, logs) when the limits name none (--disk names it): past
 * it the kubelet evicts that pod, not the others of a node whose disk an agent filled
 * (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#local-ephemeral-storage).
 */
export const EPHEMERAL_STORAGE_BYTES = 20 * 1024 ** 3;

/**
 * How long a pod may live (activeDeadlineSeconds): a coordinator killed with -9 leaves pods that
 * hold quota and nodes until `clean`; past this the kubelet stops them. Far above any task's time.
 */
export const POD_DEADLINE_SECONDS: Record<PodRole, number> = { agent: 24 * 3600, test: 6 * 3600, extract: 3600, probe: 3600 };

/** Quantities as the API reads them: bytes, and millicores. */
export function podResources(limits: ContainerLimits): { limits: Record<string, string> } {
  return {
    limits: {
      memory: String(limits.memoryBytes),
      cpu: `${Math.max(1, Math.round(limits.nanoCpus / 1e6))}m`,
      'ephemeral-storage': String(limits.diskBytes ?? EPHEMERAL_STORAGE_BYTES),
    },
  };
}

export interface PodSpec {
  image: string;
  labels: Record<string, string>;
  limits: ContainerLimits;
  /** activeDeadlineSeconds (default: none). */
  deadlineSeconds?: number;
}

/**
 * Requests default to the limits, so the scheduler places a pod only where its limits fit. The pids
 * limit is a node setting (the kubelet's podPidsLimit), not a pod's: docs/scaling.md says so.
 * shareProcessNamespace makes the pause container PID 1, which reaps what commands leave behind
 * (Docker's --init). No token, no service links, no restarts: a pod that stops stays stopped.
 */
export function podManifest(name: string, spec: PodSpec): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: spec.labels },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      shareProcessNamespace: true,
      terminationGracePeriodSeconds: 0,
      ...(spec.deadlineSeconds && { activeDeadlineSeconds: spec.deadlineSeconds }),
      containers: [{ name: CONTAINER, image: spec.image, command: IDLE, workingDir: WORKSPACE, resources: podResources(spec.limits) }],
    },
  };
}

/** Waiting reasons that will not resolve by waiting. */
const STUCK = new Set(['InvalidImageName', 'ErrImageNeverPull', 'CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);

/**
 * A failed pull the kubelet retries, with a back-off that grows to 300 s (kubernetes.io, "Images",
 * section ImagePullBackOff): a registry timeout or a refused connection may pass. It is final when
 * the registry answered that the image is not there or not for us, or when the registry named cannot
 * be reached as configured (an unknown host, a certificate the node does not trust, HTTP for HTTPS).
 */
const PULL_FAILED = new Set(['ErrImagePull', 'ImagePullBackOff']);
const PULL_REFUSED = /not found|manifest unknown|name unknown|unauthorized|denied|forbidden|no such host|x509|certificate|http response to https client/i;

/**
 * The kubelet's eviction of a pod over its own ephemeral-storage limit (pkg/kubelet/eviction:
 * reason Evicted, podEphemeralStorageMessageFmt or containerEphemeralStorageMessageFmt); an eviction
 * for a node low on disk ("The node was low on resource: ephemeral-storage") is not the pod's doing.
 */
const OVER_STORAGE_LIMIT = /^(Pod ephemeral local storage usage exceeds|Container \S+ exceeded its local ephemeral storage limit)/;

/** Why a stopped pod stopped: the kubelet's reason for the pod (Evicted, DeadlineExceeded) first, else its container's. */
function stopReason(pod: V1Pod): string {
  const status = pod.status;
  const terminated = status?.containerStatuses?.find((c) => c.name === CONTAINER)?.state?.terminated;
  if (status?.reason === 'DeadlineExceeded') {
    return `DeadlineExceeded: it ran past the activeDeadlineSeconds coop-bench gives its pods (${pod.spec?.activeDeadlineSeconds} s), so that a killed coordinator's pods stop holding quota`;
  }
  if (status?.reason) return `${status.reason}${status.message ? `: ${status.message.trim()}` : ''}`;
  return terminated ? `${terminated.reason ?? 'exit'} ${terminated.exitCode}` : (status?.phase ?? 'unknown');
}

/**
 * Why a pod does not run (yet): undefined when its container runs. `outOfMemory` and
 * `overDiskLimit`: what ran in it exhausted its memory or its ephemeral storage.
 */
export function podProblem(pod: V1Pod): { stuck: boolean; reason: string; outOfMemory?: boolean; overDiskLimit?: boolean } | undefined {
  const status = pod.status;
  const container = status?.containerStatuses?.find((c) => c.name === CONTAINER);
  if (status?.phase === 'Running' && container?.state?.running) return undefined;
  if (status?.phase === 'Failed' || status?.phase === 'Succeeded' || container?.state?.terminated) {
    return {
      stuck: true,
      reason: `stopped (${stopReason(pod)})`,
      outOfMemory: container?.state?.terminated?.reason === 'OOMKilled',
      overDiskLimit: status?.reason === 'Evicted' && OVER_STORAGE_LIMIT.test(status.message ?? ''),
    };
  }
  const waiting = container?.state?.waiting;
  const waitingFor = waiting?.reason && (waiting.message ? `${waiting.reason}: ${waiting.message}` : waiting.reason);
  if (waiting?.reason && (STUCK.has(waiting.reason) || (PULL_FAILED.has(waiting.reason) && PULL_REFUSED.test(waiting.message ?? ''))))
    return { stuck: true, reason: waitingFor! };
  const unscheduled = status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  return { stuck: false, reason: unscheduled?.message ?? waitingFor ?? status?.phase ?? 'Pending' };
}

/** Waiting for quota: the longest pause between tries, and how long to wait while no pod of this process could free room. */
const QUOTA_MAX_PAUSE_MS = 30_000;
const QUOTA_ALONE_WAIT_MS = 600_000;

/** Pods created and not yet deleted by this process. */
export class PodTracker {
  private readonly live = new Set<string>();
  private creating = 0;
  private closed = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** Creates the pod and waits until its container runs; a pod that cannot start is deleted. */
  async start(prefix: PodRole, spec: PodSpec, timeoutMs = POD_START_TIMEOUT_MS): Promise<V1Pod> {
    if (this.closed) throw new KubernetesError('coop-bench is shutting down');
    const name = `coop-bench-${prefix}-${randomBytes(5).toString('hex')}`;
    this.creating++;
    try {
      await this.create(name, { ...spec, deadlineSeconds: spec.deadlineSeconds ?? POD_DEADLINE_SECONDS[prefix] });
      this.live.add(name);
    } finally {
      this.creating--;
    }
    if (this.closed) {
      await this.delete(name);
      throw new KubernetesError('coop-bench is shutting down');
    }
    try {
      return await this.waitRunning(name, spec.image, timeoutMs);
    } catch (error) {
      await this.delete(name).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Creates the pod; while a ResourceQuota of the namespace is full, waits for room (pods of this
   * run end and free it) instead of failing the task. A pod the quota could never hold, or a quota
   * that stays full while this process holds no pod that could free it, fails.
   */
  private async create(name: string, spec: PodSpec): Promise<void> {
    const { namespace, core } = this.cluster;
    const waitedSince = Date.now();
    for (let pause = 1000; ; pause = Math.min(QUOTA_MAX_PAUSE_MS, pause * 2)) {
      try {
        await api(`creating pod ${name} in namespace ${namespace}`, () => core.createNamespacedPod({ namespace, body: podManifest(name, spec) }));
        return;
      } catch (error) {
        // A retried creation whose first try went through: the name (40 random bits) is this call's.
        if (hasStatus(error, 409)) return;
        const refusal = error instanceof KubernetesError && error.refusal === 'quota' ? quotaRefusal(error.message) : undefined;
        if (!refusal || refusal.neverFits || this.closed) throw error;
        if (this.live.size === 0 && Date.now() - waitedSince > QUOTA_ALONE_WAIT_MS) throw error;
        if (pause === 1000) this.log(`pod ${name} waits for room in ResourceQuota ${refusal.quota} of namespace ${namespace}`);
        await sleep(pause);
      }
    }
  }

  private async waitRunning(name: string, image: string, timeoutMs: number): Promise<V1Pod> {
    const deadline = Date.now() + timeoutMs;
    for (let pause = 100; ; pause = Math.min(2000, pause * 2)) {
      const pod = await this.read(name);
      const problem = podProblem(pod);
      if (!problem) return pod;
      if (problem.stuck) throw new KubernetesError(`pod ${name} (image ${image}) cannot start: ${problem.reason}`);
      if (Date.now() > deadline)
        throw new KubernetesError(`pod ${name} (image ${image}) not running after ${Math.round(timeoutMs / 1000)} s: ${problem.reason}`);
      await sleep(pause);
    }
  }

  read(name: string): Promise<V1Pod> {
    const { namespace, core } = this.cluster;
    return api(`reading pod ${name}`, () => core.readNamespacedPod({ name, namespace }));
  }

  /**
   * Throws PodStoppedError unless the pod's container still runs. `settleMs`: how long a pod that
   * still shows as running is watched (the kubelet reports a container's death a second or more after
   * the exec connection into it broke).
   */
  async failIfStopped(name: string, settleMs = 0): Promise<void> {
    const until = Date.now() + settleMs;
    for (;;) {
      let pod: V1Pod;
      try {
        pod = await this.read(name);
      } catch (error) {
        if (hasStatus(error, 404)) throw new PodStoppedError(name, 'was deleted', { cause: error });
        throw error;
      }
      const problem = podProblem(pod);
      if (problem) throw new PodStoppedError(name, problem.reason, { outOfMemory: problem.outOfMemory, overDiskLimit: problem.overDiskLimit });
      if (Date.now() >= until) return;
      await sleep(500);
    }
  }

  /**
   * Deletes with a grace period of one second, not zero: zero is a forced deletion, which removes
   * the object before the kubelet has stopped the containers (kubernetes.io, "Pod Lifecycle",
   * forced pod termination), and a pod whose policy goes next would run a moment with network.
   * Gone already is fine.
   */
  async delete(name: string): Promise<void> {
    const { namespace, core } = this.cluster;
    try {
      await api(`deleting pod ${name}`, () => core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 1 }));
    } catch (error) {
      if (!hasStatus(error, 404)) throw error;
    } finally {
      this.live.delete(name);
    }
  }

  /** Waits (bounded) until the pods are gone: their containers stopped, as the kubelet confirmed. */
  async waitGone(names: string[], timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const name of names) {
      while (Date.now() < deadline) {
        try {
          await this.read(name);
        } catch (error) {
          if (hasStatus(error, 404)) break;
          throw error;
        }
        await sleep(500);
      }
    }
  }

  /** Stops creating pods and deletes every live one, after waiting (bounded) for creations under way. */
  async deleteAll(): Promise<number> {
    this.closed = true;
    for (let waited = 0; this.creating > 0 && waited < 15_000; waited += 100) await sleep(100);
    const names = [...this.live];
    await Promise.all(names.map((name) => this.delete(name).catch(() => undefined)));
    return names.length;
  }
}
