// What happens to a pod the API server stored, with each rule's source: the scheduler leaves one that
// fits no node Pending; the kubelet fails one that outlived its activeDeadlineSeconds and evicts one
// that wrote past its ephemeral-storage limit (every container killed, the pod's status says why:
// phase Failed, reason, message).
import type Docker from 'dockerode';
import { quantityValue } from './validation.ts';

/** How the kubelet ended a pod: status.reason and status.message. */
export interface PodEnding {
  reason: string;
  message: string;
}

/**
 * activeDeadlineSeconds: "Optional duration in seconds the pod may be active on the node relative to
 * StartTime before the system will actively try to mark it failed and kill associated containers"
 * (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#lifecycle). The
 * kubelet's activeDeadlineHandler (pkg/kubelet/active_deadline.go) sets reason DeadlineExceeded and
 * this message.
 */
export const DEADLINE_EXCEEDED: PodEnding = { reason: 'DeadlineExceeded', message: 'Pod was active on the node longer than the specified deadline' };

/**
 * "If a Pod is using more ephemeral storage than you allow it to, the kubelet sets an eviction signal
 * that triggers Pod eviction" (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#local-ephemeral-storage,
 * and node-pressure eviction: https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/).
 * The eviction manager's localStorageEviction (pkg/kubelet/eviction/eviction_manager.go) compares a
 * pod's usage (its containers' writable layers and logs) with the sum of its containers' limits and
 * evicts it with reason Evicted (helpers.go `Reason`) and podEphemeralStorageMessageFmt; it looks
 * every evictionMonitoringPeriod, 10 s by default.
 */
export const EVICTION_MONITORING_MS = 10_000;

export function storageEviction(limit: string): PodEnding {
  return { reason: 'Evicted', message: `Pod ephemeral local storage usage exceeds the total limit of containers ${limit}. ` };
}

/** The pod's ephemeral-storage limit (the sum over its containers), as the quantity it was given when there is one container. */
// Pod bodies are arbitrary JSON, as the API server reads them.
export function storageLimit(pod: any): string | undefined {
  const limits = (pod.spec.containers as { resources?: { limits?: Record<string, string> } }[])
    .map((c) => c.resources?.limits?.['ephemeral-storage'])
    .filter((l): l is string => l !== undefined);
  if (limits.length === 0) return undefined;
  return limits.length === 1 ? limits[0] : String(limits.reduce((sum, l) => sum + quantityValue(l), 0));
}

/** Bytes the container wrote over its image (its writable layer: `docker container inspect --size`). */
export async function writtenBytes(docker: Docker, containerId: string): Promise<number | undefined> {
  // `size` is a query parameter of the engine's inspect that dockerode passes on but does not declare.
  const info = (await docker
    .getContainer(containerId)
    .inspect({ size: true } as Docker.ContainerInspectOptions)
    .catch(() => undefined)) as { SizeRw?: number; State?: { Running?: boolean } } | undefined;
  return info?.State?.Running ? info.SizeRw : undefined;
}

/**
 * The scheduler's NodeResourcesFit filter: a pod whose requests (here its limits, which requests
 * default to) exceed a node's allocatable does not fit it; with no node left the pod stays Pending
 * with condition PodScheduled False, reason Unschedulable, and the FitError message
 * (pkg/scheduler/framework/types.go: "0/%v nodes are available: %v.", "Insufficient <resource>"),
 * followed by preemption's verdict. The node of the test API server is one, and empty: a pod either
 * fits it or never does.
 */
export function unschedulable(pod: any, allocatable: Record<string, string>): string | undefined {
  const requested: Record<string, number> = {};
  for (const container of pod.spec.containers as { resources?: { limits?: Record<string, string> } }[])
    for (const [resource, value] of Object.entries(container.resources?.limits ?? {})) requested[resource] = (requested[resource] ?? 0) + quantityValue(value);
  const short = Object.keys(allocatable)
    .filter((resource) => (requested[resource] ?? 0) > quantityValue(allocatable[resource]))
    .sort();
  if (short.length === 0) return undefined;
  const reasons = short.map((resource) => `1 Insufficient ${resource}`).join(', ');
  return `0/1 nodes are available: ${reasons}. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.`;
}
