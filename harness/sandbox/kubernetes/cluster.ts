// The connection to a Kubernetes cluster: kubeconfig from the usual places (KUBECONFIG,
// ~/.kube/config, in-cluster service account), the namespace, the API clients, and how the
// cluster's errors read (every one is infrastructure: it says nothing about an agent's work).
import { ApiException, CoreV1Api, Exec, KubeConfig, NetworkingV1Api } from '@kubernetes/client-node';
import { UserError, errorMessage } from '../../errors.ts';
import { SandboxStoppedError } from '../errors.ts';
import { ATTEMPTS, CALL_TIMEOUT_MS, isRetryable, sleep, waitBefore, withTimeout } from './retry.ts';

export interface Cluster {
  readonly namespace: string;
  /** `kubernetes:<namespace>@<server>`: where a task ran, as results record it. */
  readonly where: string;
  readonly core: CoreV1Api;
  readonly networking: NetworkingV1Api;
  readonly exec: Exec;
}

/** An error of the cluster or of the connection to it. */
export class KubernetesError extends Error {
  override name = 'KubernetesError';
  /** The HTTP status of the API's answer, when there was one. */
  readonly code?: number;
  /** For a 403: what refused it. */
  readonly refusal?: Refusal;

  constructor(message: string, options: { cause?: unknown; code?: number; refusal?: Refusal } = {}) {
    super(message, { cause: options.cause });
    this.code = options.code;
    this.refusal = options.refusal;
  }
}

/** The pod a command was to run in no longer runs (deleted, evicted, out of memory, its process died). */
export class PodStoppedError extends SandboxStoppedError {
  /** The kubelet reported OOMKilled: a process in the pod exhausted its memory limit. */
  readonly outOfMemory: boolean;
  /** The kubelet evicted the pod for writing past its ephemeral-storage limit. */
  readonly overDiskLimit: boolean;
  /** What the command printed before the pod stopped. */
  output = '';

  constructor(pod: string, how: string, options: { cause?: unknown; outOfMemory?: boolean; overDiskLimit?: boolean } = {}) {
    // Out of memory is what ran in the pod (the kubelet kills the whole container for it): the
    // agent's doing, scored as Docker scores a container its own processes stopped.
    super(`pod ${pod} ${how}`, how, { cause: options.cause, byItsProcesses: options.outOfMemory });
    this.name = 'PodStoppedError';
    this.outOfMemory = options.outOfMemory ?? false;
    this.overDiskLimit = options.overDiskLimit ?? false;
  }
}

/** Where this process's kubeconfig comes from, in client-node's order. */
function loadKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  try {
    kubeConfig.loadFromDefault();
  } catch (error) {
    throw new UserError(
      `cannot read the Kubernetes configuration (${process.env.KUBECONFIG ? `KUBECONFIG=${process.env.KUBECONFIG}` : '~/.kube/config'}): ${errorMessage(error)}`,
    );
  }
  const cluster = kubeConfig.getCurrentCluster();
  // loadFromDefault falls back to an unauthenticated localhost:8080 when it finds nothing.
  if (!cluster || (kubeConfig.getCurrentContext() === 'loaded-context' && cluster.server === 'http://localhost:8080')) {
    throw new UserError(
      'no Kubernetes configuration found: set KUBECONFIG to a kubeconfig file, put one at ~/.kube/config, or run inside a pod with a service account (see docs/scaling.md)',
    );
  }
  return kubeConfig;
}

export function connectCluster(namespace?: string): Cluster {
  const kubeConfig = loadKubeConfig();
  const context = kubeConfig.getContextObject(kubeConfig.getCurrentContext());
  const ns = namespace ?? context?.namespace ?? 'default';
  return {
    namespace: ns,
    where: `kubernetes:${ns}@${kubeConfig.getCurrentCluster()!.server}`,
    core: kubeConfig.makeApiClient(CoreV1Api),
    networking: kubeConfig.makeApiClient(NetworkingV1Api),
    exec: new Exec(kubeConfig),
  };
}

/** The API's own message (a Status object's), not client-node's dump of headers. */
function apiMessage(error: ApiException<unknown>): string {
  const body = typeof error.body === 'string' ? safeJson(error.body) : error.body;
  const message = (body as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : `HTTP ${error.code}`;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 300) };
  }
}

/**
 * What a 403 refused, read from its Status message: a full ResourceQuota (the resourcequota admission
 * plugin: "exceeded quota: …"), Pod Security admission ("violates PodSecurity …"), a namespace being
 * deleted ("… because it is being terminated", NamespaceLifecycle), else RBAC ("User … cannot …").
 */
export type Refusal = 'quota' | 'pod-security' | 'terminating' | 'rbac';

export function refusalOf(message: string): Refusal {
  if (/exceeded quota/.test(message)) return 'quota';
  if (/violates PodSecurity/.test(message)) return 'pod-security';
  if (/because it is being terminated/.test(message)) return 'terminating';
  return 'rbac';
}

export const REFUSAL_HINTS: Record<Refusal, string> = {
  quota: ' (a ResourceQuota of the namespace is full; docs/scaling.md sizes one for --concurrency)',
  'pod-security':
    " (the namespace's Pod Security admission refuses sandbox pods, which run the pool images' own user: label the namespace pod-security.kubernetes.io/enforce=baseline; see docs/scaling.md)",
  terminating: ' (the namespace is being deleted: choose another with --namespace)',
  rbac: ' (the Role coop-bench needs is in docs/scaling.md)',
};

function retryAfterOf(error: ApiException<unknown>): string | undefined {
  const headers = error.headers as Record<string, string> | undefined;
  return headers?.['retry-after'] ?? headers?.['Retry-After'];
}

/**
 * Runs one API call, bounded in time, and again when the answer says another try may succeed
 * (retry.ts; every call the backend makes is safe to repeat). A failure becomes a KubernetesError
 * saying what was asked and what the API answered.
 */
export async function api<T>(what: string, call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await withTimeout(call(), CALL_TIMEOUT_MS);
    } catch (error) {
      const code = error instanceof ApiException ? error.code : undefined;
      if (attempt < ATTEMPTS && isRetryable(code, error)) {
        await sleep(waitBefore(attempt, error instanceof ApiException ? retryAfterOf(error) : undefined));
        continue;
      }
      if (error instanceof ApiException) {
        const message = apiMessage(error);
        const refusal = error.code === 403 ? refusalOf(message) : undefined;
        throw new KubernetesError(`${what}: ${message}${refusal ? REFUSAL_HINTS[refusal] : ''}`, { cause: error, code: error.code, refusal });
      }
      throw new KubernetesError(`${what}: ${errorMessage(error)}`, { cause: error });
    }
  }
}

/** True for a KubernetesError carrying this HTTP status. */
export function hasStatus(error: unknown, code: number): boolean {
  return error instanceof KubernetesError && error.code === code;
}
