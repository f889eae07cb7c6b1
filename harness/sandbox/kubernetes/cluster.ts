// The connection to a Kubernetes cluster: kubeconfig from the usual places (KUBECONFIG,
// ~/.kube/config, in-cluster service account), the namespace, the API clients, and how the
// cluster's errors read (every one is infrastructure: it says nothing about an agent's work).
import { ApiException, CoreV1Api, Exec, KubeConfig, NetworkingV1Api } from '@kubernetes/client-node';
import { UserError, errorMessage } from '../../errors.ts';
import { SandboxStoppedError } from '../errors.ts';

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

  constructor(message: string, options: { cause?: unknown; code?: number } = {}) {
    super(message, { cause: options.cause });
    this.code = options.code;
  }
}

/** The pod a command was to run in no longer runs (deleted, evicted, out of memory, its process died). */
export class PodStoppedError extends SandboxStoppedError {
  /** The kubelet reported OOMKilled: a process in the pod exhausted its memory limit. */
  readonly outOfMemory: boolean;
  /** What the command printed before the pod stopped. */
  output = '';

  constructor(pod: string, how: string, options: { cause?: unknown; outOfMemory?: boolean } = {}) {
    super(`pod ${pod} ${how}`, how, options);
    this.name = 'PodStoppedError';
    this.outOfMemory = options.outOfMemory ?? false;
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

const RBAC_HINT = ' (the Role coop-bench needs is in docs/scaling.md)';

/** Runs one API call; its failure becomes a KubernetesError saying what was asked and what the API answered. */
export async function api<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ApiException) {
      const hint = error.code === 403 ? RBAC_HINT : '';
      throw new KubernetesError(`${what}: ${apiMessage(error)}${hint}`, { cause: error, code: error.code });
    }
    throw new KubernetesError(`${what}: ${errorMessage(error)}`, { cause: error });
  }
}

/** True for a KubernetesError carrying this HTTP status. */
export function hasStatus(error: unknown, code: number): boolean {
  return error instanceof KubernetesError && error.code === code;
}
