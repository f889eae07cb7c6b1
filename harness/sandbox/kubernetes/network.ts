// No network for a run's pods: a NetworkPolicy that selects them and allows nothing in or out, and a
// probe pod under it that must fail to reach the cluster's own API service. A network plugin that
// does not enforce NetworkPolicy (the API server accepts policies whatever the plugin does) is
// caught here instead of trusted.
import { createHash } from 'node:crypto';
import type { V1NetworkPolicy } from '@kubernetes/client-node';
import { UserError } from '../../errors.ts';
import { LABEL, RUN_LABEL } from '../labels.ts';
import type { ContainerLimits } from '../types.ts';
import { api, hasStatus, type Cluster } from './cluster.ts';
import { PodSandbox } from './pod-sandbox.ts';
import { creatorLabels, podLabels, labelValue, type PodTracker } from './pods.ts';

export function policyName(run: string): string {
  return `coop-bench-no-network-${createHash('sha256').update(run).digest('hex').slice(0, 12)}`;
}

/** Deny-all: both policy types and no rule (https://kubernetes.io/docs/concepts/services-networking/network-policies/#default-deny-all-ingress-and-all-egress-traffic). */
export function denyAllPolicy(run: string): V1NetworkPolicy {
  const value = labelValue(run);
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: policyName(run), labels: { [LABEL]: 'true', [RUN_LABEL]: value, ...creatorLabels() } },
    spec: { podSelector: { matchLabels: { [RUN_LABEL]: value } }, policyTypes: ['Ingress', 'Egress'] },
  };
}

/** Creates the run's policy; one left by an earlier process of the same run is the same policy. */
export async function createDenyAllPolicy(cluster: Cluster, run: string): Promise<void> {
  const { namespace, networking } = cluster;
  try {
    await api(`creating NetworkPolicy ${policyName(run)} in namespace ${namespace}`, () =>
      networking.createNamespacedNetworkPolicy({ namespace, body: denyAllPolicy(run) }),
    );
  } catch (error) {
    if (!hasStatus(error, 409)) throw error;
  }
}

// Tries the address every pod is given for the API service (KUBERNETES_SERVICE_HOST/PORT, set by the
// kubelet whatever enableServiceLinks says) for 5 s; prints `reached <address>` if it got through.
const PROBE = `command -v bash >/dev/null && command -v timeout >/dev/null || { echo "the image has no bash or timeout" >&2; exit 3; }
[ -n "$KUBERNETES_SERVICE_HOST" ] || { echo "the pod was given no API service address" >&2; exit 3; }
target="$KUBERNETES_SERVICE_HOST:\${KUBERNETES_SERVICE_PORT:-443}"
if timeout 5 bash -c 'exec 3<>"/dev/tcp/\${0%:*}/\${0##*:}"' "$target" 2>/dev/null; then echo "reached $target"; else echo "blocked $target"; fi`;

/**
 * When the probe tries again after getting through: a network plugin programs a new policy some time
 * after it is created, and a pod started before that runs unprotected until then (the NetworkPolicy
 * docs, "Pod lifecycle"). Through the last try is "not enforced"; blocked at a later one, "applied late".
 */
export const PROBE_RETRY_DELAYS_MS = [2_000, 4_000, 8_000, 16_000];

/** What the probe saw: blocked (at which try), or reached (an address; the pod's own node's, or not). */
export type ProbeFinding = { blocked: true; afterMs: number } | { blocked: false; target: string; ownNode: boolean };

/**
 * Runs the probe in a pod of the run (so under its policy), again after each of `retryDelaysMs` while
 * it gets through; throws a UserError when the pod kept its network, saying whether what it reached
 * was its own node (which NetworkPolicy never isolates a pod from) or something else.
 */
export async function probeIsolation(
  cluster: Cluster,
  pods: PodTracker,
  run: string,
  image: string,
  limits: ContainerLimits,
  log: (line: string) => void = () => undefined,
  retryDelaysMs = PROBE_RETRY_DELAYS_MS,
): Promise<ProbeFinding> {
  const probe = await PodSandbox.start(cluster, pods, 'probe', { image, labels: podLabels(run, 'probe'), limits });
  const started = Date.now();
  try {
    for (let attempt = 0; ; attempt++) {
      const result = await probe.exec(['sh', '-c', PROBE], { timeoutMs: 60_000 });
      const reached = /^reached (.+)$/m.exec(result.stdout);
      if (!reached) {
        if (result.exitCode !== 0 || !/^blocked /m.test(result.stdout)) {
          throw new UserError(
            `the network probe could not run in image ${image} (exit ${result.exitCode}: ${(result.stderr || result.stdout).trim().slice(0, 300)}): the run does not start without proof that pods have no network`,
          );
        }
        const afterMs = Date.now() - started;
        if (attempt > 0)
          log(`the network policy took effect ${Math.round(afterMs / 1000)} s after the probe pod started (the network plugin applies new policies late)`);
        return { blocked: true, afterMs };
      }
      if (attempt < retryDelaysMs.length) {
        await new Promise((resolve) => setTimeout(resolve, retryDelaysMs[attempt]));
        continue;
      }
      const target = reached[1]!;
      const node = probe.pod.status?.hostIP;
      const ownNode = node !== undefined && target.slice(0, target.lastIndexOf(':')) === node;
      const waited = `${Math.round((Date.now() - started) / 1000)} s`;
      throw new UserError(
        ownNode
          ? `the network probe cannot tell whether the cluster enforces NetworkPolicy: a probe pod under run ${run}'s deny-all policy ${policyName(run)} (namespace ${cluster.namespace}) reached the API service at ${target}, which is the pod's own node ${node}, for ${waited}; ` +
              "traffic between a pod and its own node is always allowed (a single-node cluster's API server is that node). Run on a cluster whose API service is not on the sandboxes' nodes (e.g. a multi-node cluster with a dedicated control plane); see docs/scaling.md"
          : `the cluster does not enforce NetworkPolicy: a probe pod under run ${run}'s deny-all policy ${policyName(run)} (namespace ${cluster.namespace}) still reached ${target} after ${waited}. ` +
              'Sandboxes must have no network: use a network plugin that enforces NetworkPolicy (Calico, Cilium, ...) for this namespace ' +
              "(on a single-node cluster, the API service may forward to the pod's own node, which no policy isolates a pod from); see docs/scaling.md",
      );
    }
  } finally {
    await probe.remove();
  }
}
