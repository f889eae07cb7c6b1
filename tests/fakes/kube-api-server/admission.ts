// What stands between a valid request and its object on a real API server, with each rule's source:
// RBAC per verb and resource, a namespace being deleted, Pod Security admission, ResourceQuota, and
// the failures of a server under load (429 from API Priority and Fairness, 5xx).
import { ApiError, quantityValue, type Status } from './validation.ts';

const forbidden = (resource: string, name: string, message: string, causes?: { reason: string; message: string; field: string }[]) =>
  new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${resource} "${name}" is forbidden: ${message}`,
    reason: 'Forbidden',
    details: { name, kind: resource, ...(causes && { causes }) },
    code: 403,
  });

/**
 * RBAC: a verb on a resource (subresources as `pods/exec`) the user's Role does not grant; the
 * authorizer's message (k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go forbiddenMessage).
 */
export function rbacForbidden(user: string, verb: string, resource: string, name: string, namespace: string): ApiError {
  const group = resource.startsWith('networkpolicies') ? 'networking.k8s.io' : '';
  return forbidden(
    resource.split('/')[0],
    name,
    `User "${user}" cannot ${verb} resource "${resource}" in API group "${group}" in the namespace "${namespace}"`,
  );
}

/** NamespaceLifecycle admission: nothing new in a namespace being deleted (plugin/pkg/admission/namespace/lifecycle). */
export function namespaceTerminating(resource: string, name: string, namespace: string): ApiError {
  const message = `unable to create new content in namespace ${namespace} because it is being terminated`;
  return forbidden(resource, name, message, [{ reason: 'NamespaceTerminating', message, field: 'metadata.namespace' }]);
}

/**
 * Pod Security admission at level restricted (https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted):
 * every container must set allowPrivilegeEscalation=false, drop ALL capabilities, run as non-root,
 * and have a seccomp profile; the message lists what is missing
 * (k8s.io/pod-security-admission/policy). Baseline admits coop-bench's pods.
 */
// Pod bodies are arbitrary JSON, as the API server reads them.
export function podSecurityViolation(pod: any): ApiError | undefined {
  const podContext = pod.spec.securityContext ?? {};
  const problems: string[] = [];
  for (const container of pod.spec.containers as { name: string; securityContext?: Record<string, unknown> }[]) {
    const context = (container.securityContext ?? {}) as {
      allowPrivilegeEscalation?: boolean;
      capabilities?: { drop?: string[] };
      runAsNonRoot?: boolean;
      seccompProfile?: { type?: string };
    };
    if (context.allowPrivilegeEscalation !== false)
      problems.push(`allowPrivilegeEscalation != false (container "${container.name}" must set securityContext.allowPrivilegeEscalation=false)`);
    if (!context.capabilities?.drop?.includes('ALL'))
      problems.push(`unrestricted capabilities (container "${container.name}" must set securityContext.capabilities.drop=["ALL"])`);
    if ((context.runAsNonRoot ?? podContext.runAsNonRoot) !== true)
      problems.push(`runAsNonRoot != true (pod or container "${container.name}" must set securityContext.runAsNonRoot=true)`);
    if (!(context.seccompProfile ?? podContext.seccompProfile)?.type)
      problems.push(`seccompProfile (pod or container "${container.name}" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`);
  }
  return problems.length ? forbidden('pods', pod.metadata.name, `violates PodSecurity "restricted:latest": ${problems.join(', ')}`) : undefined;
}

/** A ResourceQuota's hard limits: `pods`, `limits.memory`, `limits.cpu`, `limits.ephemeral-storage`. */
export type Quota = { name: string; hard: Record<string, string> };

/** What a pod counts against a quota (a pod's requests default to its limits). */
export function podUsage(pod: any): Record<string, number> {
  const usage: Record<string, number> = { pods: 1 };
  for (const container of pod.spec.containers as { resources?: { limits?: Record<string, string> } }[])
    for (const [resource, value] of Object.entries(container.resources?.limits ?? {}))
      usage[`limits.${resource}`] = (usage[`limits.${resource}`] ?? 0) + quantityValue(value);
  return usage;
}

/**
 * ResourceQuota admission: a pod that would take a resource past the quota's hard limit, counting
 * the pods of the namespace that are not Succeeded or Failed, is refused with every resource that
 * does not fit (plugin/pkg/admission/resourcequota/controller.go: "exceeded quota: %s, requested:
 * %s, used: %s, limited: %s", lists `resource=quantity` sorted and joined by commas).
 */
export function quotaExceeded(quota: Quota, pod: any, used: Record<string, number>): ApiError | undefined {
  const requested = podUsage(pod);
  const failing = Object.keys(quota.hard)
    .filter((resource) => (requested[resource] ?? 0) > 0 && (used[resource] ?? 0) + requested[resource] > quantityValue(quota.hard[resource]))
    .sort();
  if (failing.length === 0) return undefined;
  const list = (values: (resource: string) => string) => failing.map((resource) => `${resource}=${values(resource)}`).join(',');
  return forbidden(
    'pods',
    pod.metadata.name,
    `exceeded quota: ${quota.name}, requested: ${list((r) => String(requested[r]))}, used: ${list((r) => String(used[r] ?? 0))}, limited: ${list((r) => quota.hard[r])}`,
  );
}

/**
 * A failure the server gives instead of an answer, for as many requests as `times` says: 429
 * TooManyRequests with a Retry-After header (API Priority and Fairness,
 * https://kubernetes.io/docs/concepts/cluster-administration/flow-control/), 500 (an etcd leader
 * change: "etcdserver: leader changed"), 503 (an API server or load balancer without a ready backend).
 */
export interface Fault {
  code: 429 | 500 | 503;
  retryAfterSeconds?: number;
  times: number;
  /** Which requests: method and path; all when absent. */
  match?: (method: string, path: string) => boolean;
}

export function faultStatus(fault: Fault): Status {
  const [reason, message] =
    fault.code === 429
      ? ['TooManyRequests', 'Too many requests, please try again later.']
      : fault.code === 500
        ? ['InternalError', 'Internal error occurred: etcdserver: leader changed']
        : ['ServiceUnavailable', 'the server is currently unable to handle the request'];
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code: fault.code };
}
