// `--backend kubernetes`: one pod per agent sandbox, per test run, and per image the run meets (to
// learn its digest and copy its repository); every pod of a run is under the run's deny-all
// NetworkPolicy, proven by a probe before the first sandbox starts. The agents' loops, the message
// bus and the merge stay on this machine: only tools and tests run in pods.
import { execa } from 'execa';
import type { Pool } from '../../../tasks/types.ts';
import { WORKSPACE } from '../../../tasks/prompts.ts';
import { UserError } from '../../errors.ts';
import { cachedBaseRepo } from '../base-repo-cache.ts';
import { SandboxStoppedError } from '../errors.ts';
import type { BackendOptions, BackendSlot, BaseRepo, ContainerLimits, Leftover, SandboxBackend, SandboxImage } from '../types.ts';
import { RUN_LABEL } from '../labels.ts';
import { api, connectCluster, hasStatus, KubernetesError, type Cluster } from './cluster.ts';
import { clusterImageName, pinnedImage } from './images.ts';
import { createDenyAllPolicy, probeIsolation } from './network.ts';
import { PodSandbox } from './pod-sandbox.ts';
import { creatorOf, podLabels, PodTracker, runSelector } from './pods.ts';
import { startTestPod } from './test-run.ts';

/** Limits of the short-lived helper pods (probe, image digest and repository copy). */
const HELPER_LIMITS: ContainerLimits = { memoryBytes: 1024 ** 3, nanoCpus: 1e9, pids: 1024 };
const EXTRACT_TIMEOUT_MS = 600_000;
const POD = 'pod';
const POLICY = 'networkpolicy';

export const GIT_UNSUPPORTED =
  "--git is not available with --backend kubernetes: pods share no folders and have no network, so agents cannot reach each other's repositories; run --git with --backend docker on one local engine";

export const CLI_AGENTS_UNSUPPORTED =
  'agent CLIs (claude-code, codex) are not available with --backend kubernetes: they reach their model through a socket folder mounted from this machine, which a pod cannot mount; run them with --backend docker, or use a model spec (the built-in agent) on the cluster';

interface PreparedImage {
  image: SandboxImage;
  base: Promise<BaseRepo>;
}

/** Copies the image's repository out of a running pod: a tar on the exec's stdout, unpacked here. */
async function copyRepository(pod: PodSandbox, staging: string): Promise<void> {
  const parent = WORKSPACE.slice(0, WORKSPACE.lastIndexOf('/'));
  const tar = execa('tar', ['-x', '--no-same-owner', '-C', staging]);
  try {
    await pod.stream(['tar', '-C', parent, '-cf', '-', WORKSPACE.slice(parent.length + 1)], tar.stdin!, EXTRACT_TIMEOUT_MS);
  } catch (error) {
    tar.kill();
    await tar.catch(() => undefined);
    throw error;
  }
  await tar;
}

export async function createKubernetesBackend(options: BackendOptions): Promise<SandboxBackend> {
  const cluster: Cluster = connectCluster(options.namespace);
  const pods = new PodTracker(cluster, options.log);
  const isolated = new Map<string, Promise<void>>();
  const prepared = new Map<string, Promise<PreparedImage>>();

  /** The run's policy exists and a probe proved it holds: checked once per run, before its first pod. */
  const isolate = (run: string, image: string): Promise<void> => {
    let done = isolated.get(run);
    if (!done) {
      done = (async () => {
        await createDenyAllPolicy(cluster, run);
        await probeIsolation(cluster, pods, run, image, HELPER_LIMITS, options.log, options.probeRetryDelaysMs);
      })();
      isolated.set(run, done);
      done.catch(() => isolated.delete(run));
    }
    return done;
  };

  /** One pod per image name: the digest the node resolved it to, and the repository in it. */
  const prepare = (name: string, run: string, log: (line: string) => void): Promise<PreparedImage> => {
    let result = prepared.get(name);
    if (!result) {
      result = (async () => {
        await isolate(run, name);
        const pod = await PodSandbox.start(cluster, pods, 'extract', { image: name, labels: podLabels(run, 'extract'), limits: HELPER_LIMITS });
        try {
          const image = { name, id: pod.imageId };
          const base = cachedBaseRepo(image.id, (staging) => {
            log(`copying the repository of ${name} from the cluster`);
            return copyRepository(pod, staging);
          });
          await base;
          return { image, base };
        } finally {
          await pod.remove();
        }
      })();
      prepared.set(name, result);
      result.catch(() => prepared.delete(name));
    }
    return result;
  };

  const slot: BackendSlot = {
    where: cluster.where,
    prepareImage: async (pool, run, log) => (await prepare(clusterImageName(pool, options), run, log)).image,
    baseRepo: async (image, run) => (await prepare(image.name, run, options.log)).base,
    async startAgentSandbox(spec) {
      if (spec.teamRepos) throw new UserError(GIT_UNSUPPORTED);
      if (spec.mounts?.length) throw new UserError(CLI_AGENTS_UNSUPPORTED);
      await isolate(spec.run, spec.image.name);
      return PodSandbox.start(cluster, pods, 'agent', {
        image: pinnedImage(spec.image),
        labels: podLabels(spec.run, 'agent', { task: spec.task, agent: spec.agent }),
        limits: spec.limits,
      });
    },
    async startTestRun(spec) {
      await isolate(spec.run, spec.image.name);
      return startTestPod(cluster, pods, spec);
    },
  };

  /** The run's pods and its NetworkPolicy, by label. */
  const listLeftovers = async (run?: string): Promise<Leftover[]> => {
    const { namespace, core, networking } = cluster;
    const labelSelector = runSelector(run);
    const [podList, policyList] = await Promise.all([
      api(`listing coop-bench pods in namespace ${namespace}`, () => core.listNamespacedPod({ namespace, labelSelector })),
      api(`listing coop-bench NetworkPolicies in namespace ${namespace}`, () => networking.listNamespacedNetworkPolicy({ namespace, labelSelector })),
    ]);
    const leftover = (kind: string, metadata: { name?: string; labels?: Record<string, string> } | undefined): Leftover => ({
      id: `${kind}/${metadata!.name!}`,
      run: metadata?.labels?.[RUN_LABEL] ?? '',
      where: cluster.where,
      creator: creatorOf(metadata?.labels),
    });
    return [...podList.items.map((pod) => leftover(POD, pod.metadata)), ...policyList.items.map((policy) => leftover(POLICY, policy.metadata))];
  };

  const removeSandboxes = async (leftovers: Leftover[]): Promise<number> => {
    const { namespace, networking } = cluster;
    const named = (kind: string) => leftovers.filter((l) => l.id.startsWith(`${kind}/`)).map((l) => l.id.slice(kind.length + 1));
    const podNames = named(POD);
    await Promise.all(podNames.map((name) => pods.delete(name)));
    // Pods first, and gone: a pod must never outlive the policy that keeps it off the network.
    const policies = named(POLICY);
    if (policies.length > 0) await pods.waitGone(podNames);
    await Promise.all(
      policies.map((name) =>
        api(`deleting NetworkPolicy ${name}`, () => networking.deleteNamespacedNetworkPolicy({ name, namespace })).catch((error) => {
          if (!hasStatus(error, 404)) throw error;
        }),
      ),
    );
    // A run whose policy went proves its isolation again before its next pod.
    if (policies.length > 0) isolated.clear();
    return podNames.length;
  };

  return {
    name: 'kubernetes',
    placeCount: 1,
    async prepareRun(run: string, pools: Pool[]) {
      if (pools.length === 0) return;
      await isolate(run, clusterImageName(pools[0], options));
    },
    acquire: () => slot,
    release: () => undefined,
    gitUnsupported: () => GIT_UNSUPPORTED,
    cliAgentsUnsupported: () => CLI_AGENTS_UNSUPPORTED,
    createTeamRepos: () => Promise.reject(new UserError(GIT_UNSUPPORTED)),
    sandboxNoun: 'pod',
    removeLeftovers: async (run) => removeSandboxes(await listLeftovers(run)),
    listLeftovers,
    removeSandboxes,
    removeOwn: () => pods.deleteAll(),
    isInfrastructureError: (error) => error instanceof KubernetesError || error instanceof SandboxStoppedError,
  };
}
