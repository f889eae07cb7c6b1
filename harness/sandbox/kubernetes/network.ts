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

/** Runs the probe in a pod of the run (so under its policy); throws a UserError when the pod had network. */
export async function probeIsolation(cluster: Cluster, pods: PodTracker, run: string, image: string, limits: ContainerLimits): Promise<void> {
  const probe = await PodSandbox.start(cluster, pods, 'probe', { image, labels: podLabels(run, 'probe'), limits });
  try {
    const result = await probe.exec(['sh', '-c', PROBE], { timeoutMs: 60_000 });
    const reached = /^reached (.+)$/m.exec(result.stdout);
    if (reached) {
      throw new UserError(
        `the cluster does not enforce NetworkPolicy: a probe pod under run ${run}'s deny-all policy ${policyName(run)} (namespace ${cluster.namespace}) reached ${reached[1]}. ` +
          'Sandboxes must have no network: use a network plugin that enforces NetworkPolicy (Calico, Cilium, ...) for this namespace; see docs/scaling.md',
      );
    }
    if (result.exitCode !== 0 || !/^blocked /m.test(result.stdout)) {
      throw new UserError(
        `the network probe could not run in image ${image} (exit ${result.exitCode}: ${(result.stderr || result.stdout).trim().slice(0, 300)}): the run does not start without proof that pods have no network`,
      );
    }
  } finally {
    await probe.remove();
  }
}
