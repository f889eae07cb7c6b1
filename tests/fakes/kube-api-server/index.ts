// A Kubernetes API server for tests, backed by the real Docker engine: exactly the calls the
// Kubernetes backend makes (pods: create, get, list, delete, exec; NetworkPolicies: create, list,
// delete), with a real server's rejections (validation.ts) and its exec protocol (exec.ts).
// A pod is a container; a deny-all NetworkPolicy that selects a pod when it is created makes that
// container `--network none` (with `enforceNetworkPolicy: false` policies are stored and ignored, as
// by a network plugin without NetworkPolicy support); a pod without one gets the default bridge.
// Every request is recorded for the golden-file test.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { execa } from 'execa';
import { faultStatus, namespaceTerminating, podSecurityViolation, podUsage, quotaExceeded, rbacForbidden, type Fault, type Quota } from './admission.ts';
import { handleExec } from './exec.ts';
import { DEADLINE_EXCEEDED, EVICTION_MONITORING_MS, storageEviction, storageLimit, unschedulable, writtenBytes, type PodEnding } from './kubelet.ts';
import {
  alreadyExists,
  ApiError,
  decodeObject,
  matches,
  methodNotAllowed,
  noSuchPath,
  notFound,
  parseSelector,
  quantityValue,
  unauthorized,
  validateNetworkPolicy,
  validatePod,
} from './validation.ts';

export const FAKE_LABEL = 'coop-bench-fake-kube';

/**
 * A pod's image by digest. The kubelet reports containerStatuses[].imageID as the repository and
 * the digest of the manifest it ran (containerd: `docker.io/library/debian@sha256:…`); images here
 * are the local engine's and most were never pushed, so their image ID stands in for the digest, and
 * a pod that names `repo@<that ID>` runs exactly that image whatever the tag points to now.
 */
const DIGEST = /@(sha256:[0-9a-f]{64})$/;

export interface FakeKubeOptions {
  namespaces?: string[];
  /** False: NetworkPolicies are accepted and stored but pods keep their network (a plugin without support). */
  enforceNetworkPolicy?: boolean;
  /** The kubelet's podPidsLimit (-1: unlimited, the kubelet's default). */
  podPidsLimit?: number;
  /** Exec subprotocols the server speaks, preferred first. */
  execProtocols?: string[];
  /** Largest WebSocket message the server reads (default 32 MB: websocket.ts has the source). */
  maxMessageBytes?: number;
  /** Exec connections with no frame either way for this long are cut (default 20 s, haproxy's: websocket.ts). */
  execIdleMs?: number;
  /**
   * True (the default): an OOM kill of one process stops the whole container and the pod fails with
   * OOMKilled, as the kubelet does since Kubernetes 1.28 on cgroup v2 by setting memory.oom.group
   * (kubernetes PR #117793; the kubelet's singleProcessOOMKill restores per-process kills). False:
   * only the process dies, as under Docker or cgroup v1.
   */
  groupOomKill?: boolean;
  /** RBAC: verbs on resources the user may not use, as `create pods` or `create pods/exec` (admission.ts). */
  forbid?: string[];
  /** Pod Security admission level the namespaces enforce (admission.ts); baseline and privileged admit every pod the backend makes. */
  podSecurity?: 'restricted';
  /** A ResourceQuota in every namespace (admission.ts). */
  quota?: Quota;
  /**
   * How long after its creation the network plugin applies a NetworkPolicy (default 0). "If a pod
   * that is affected by a NetworkPolicy is created before the network plugin has completed
   * NetworkPolicy handling, that pod may be started unprotected, and isolation rules will be applied
   * when the NetworkPolicy handling is completed" (https://kubernetes.io/docs/concepts/services-networking/network-policies/,
   * "Pod lifecycle"): such pods start with a network and lose it at that time.
   */
  policyDelayMs?: number;
  /**
   * True: the API service's address (the bridge gateway, this machine) is the pods' node, as on a
   * single-node kind, minikube or k3s cluster: pods' status.hostIP says so. False (default): pods'
   * node is another address (192.0.2.1, TEST-NET-1), as on a cluster with a control plane of its own.
   */
  apiServerOnNode?: boolean;
  /** The node's allocatable resources (`memory`, `cpu`, `ephemeral-storage`): a pod larger stays Pending, unschedulable (kubelet.ts). Default: unbounded. */
  nodeAllocatable?: Record<string, string>;
  /** How often the kubelet compares pods' written bytes with their ephemeral-storage limits (default 10 s: kubelet.ts). */
  evictionIntervalMs?: number;
}

export interface RecordedCall {
  method: string;
  path: string;
  query: Record<string, string[]>;
  body?: unknown;
}

// Request and object bodies are arbitrary JSON, as the API server reads them.
type Json = any;

export interface PodEntry {
  object: Json;
  containerId?: string;
  imageId?: string;
  /** The scheduler's message for a pod that fits no node. */
  unscheduled?: string;
  /** Why the container could not be created (an image the engine does not have). */
  waiting?: { reason: string; message: string };
  /** The container was stopped by a group OOM kill. */
  oomKilled?: boolean;
  /** The kubelet failed the pod (its deadline passed, it was evicted): kubelet.ts. */
  ended?: PodEnding;
  deadline?: NodeJS.Timeout;
}

export interface FakeKubeApiServer {
  readonly url: string;
  readonly calls: RecordedCall[];
  readonly docker: Docker;
  /** A kubeconfig file for this server (token auth, the given namespace in its context). */
  writeKubeconfig(dir: string, namespace?: string): string;
  pod(namespace: string, name: string): PodEntry | undefined;
  /** Cuts every open exec connection without a close frame, as a load balancer that restarts does. */
  cutExecConnections(): number;
  /**
   * The pods' node is lost (powered off, cut from the network): its containers stop where they are,
   * open exec connections break, new ones fail as the API server cannot dial the kubelet, and the
   * node lifecycle controller marks its pods not Ready while their phase stays what the kubelet last
   * reported (https://kubernetes.io/docs/concepts/architecture/nodes/#condition; pkg/controller/nodelifecycle
   * MarkPodsNotReady).
   */
  loseNode(): Promise<void>;
  /** The next requests that match fail as `fault` says (admission.ts): REST calls and exec upgrades. */
  injectFault(fault: Fault): void;
  /** The pod's activeDeadlineSeconds pass now, as if that much time had gone by: the kubelet fails it (kubelet.ts). */
  passDeadline(namespace: string, name: string): void;
  /** The namespace is being deleted: nothing new may be created in it. */
  terminateNamespace(namespace: string): void;
  /** Objects of a namespace whose labels hold `label` (key=value): what a user would see with kubectl -l. */
  objects(kind: 'pods' | 'networkpolicies', namespace: string, label: string): Json[];
  close(): Promise<void>;
}

/** A certificate for 127.0.0.1, its own authority: clients verify it as they verify a real cluster's. */
async function selfSignedCertificate(): Promise<{ key: Buffer; cert: Buffer }> {
  const dir = mkdtempSync(join(tmpdir(), 'coop-bench-fake-kube-tls-'));
  try {
    await execa('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=fake-kube-apiserver',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ]);
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The default bridge's gateway: where a pod with a network finds this machine. */
async function bridgeGateway(docker: Docker): Promise<string> {
  const info = await docker.getNetwork('bridge').inspect();
  const config = (info.IPAM?.Config ?? [])[0] as { Gateway?: string; Subnet?: string } | undefined;
  if (config?.Gateway) return config.Gateway;
  if (config?.Subnet) return config.Subnet.replace(/\.\d+\/\d+$/, '.1');
  throw new Error('the default bridge network has no IPv4 subnet');
}

function send(response: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

function queryOf(url: URL): Record<string, string[]> {
  const query: Record<string, string[]> = {};
  for (const [key, value] of url.searchParams) (query[key] ??= []).push(value);
  return query;
}

function parseOrText(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

export async function startFakeKubeApiServer(options: FakeKubeOptions = {}): Promise<FakeKubeApiServer> {
  const docker = new Docker();
  const instance = randomBytes(6).toString('hex');
  const token = randomBytes(16).toString('hex');
  const namespaces = new Set(options.namespaces ?? ['default']);
  const enforce = options.enforceNetworkPolicy ?? true;
  const pods = new Map<string, PodEntry>();
  const policies = new Map<string, Json>();
  /** When the network plugin applies each policy (policyDelayMs). */
  const policyApplied = new Map<Json, number>();
  const calls: RecordedCall[] = [];
  const faults: Fault[] = [];
  const terminating = new Set<string>();
  let nodeLost = false;
  let resourceVersion = 1;
  const key = (namespace: string, name: string) => `${namespace}/${name}`;

  // What every pod is told of the API service (KUBERNETES_SERVICE_HOST/PORT): a listener a pod with
  // a network can reach; the network probe tries it.
  const service = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => service.listen(0, '0.0.0.0', resolve));
  const gateway = await bridgeGateway(docker);
  const hostIP = options.apiServerOnNode ? gateway : '192.0.2.1';
  const serviceEnv = [`KUBERNETES_SERVICE_HOST=${gateway}`, `KUBERNETES_SERVICE_PORT=${(service.address() as AddressInfo).port}`];

  // The engine reports each OOM kill in a container as an `oom` event.
  const oomEvents = (await docker.getEvents({ filters: { event: ['oom'], label: [`${FAKE_LABEL}=${instance}`] } })) as NodeJS.ReadableStream & {
    destroy(): void;
  };
  oomEvents.on('data', (chunk: Buffer) => {
    if (options.groupOomKill === false) return;
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
      const id = (JSON.parse(line) as { id?: string; Actor?: { ID?: string } }).Actor?.ID;
      const entry = [...pods.values()].find((e) => e.containerId === id);
      if (!entry) continue;
      entry.oomKilled = true;
      void docker
        .getContainer(id!)
        .kill()
        .catch(() => undefined);
    }
  });

  const meta = (object: Json, namespace: string) => ({
    ...object.metadata,
    namespace,
    uid: randomUUID(),
    resourceVersion: String(resourceVersion++),
    creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  });

  /** Deny-all policies (both types, no rules) that select the pod; rules the fake cannot map are refused. */
  const isolating = (namespace: string, labels: Record<string, string> | undefined) =>
    [...policies.values()].filter((policy) => {
      if (!enforce || policy.metadata.namespace !== namespace) return false;
      const selector = Object.entries(policy.spec?.podSelector?.matchLabels ?? {}).map(([k, v]) => ({ key: k, op: '=' as const, value: v as string }));
      const types: string[] = policy.spec?.policyTypes ?? ['Ingress'];
      return (
        matches(selector, labels) && types.includes('Egress') && types.includes('Ingress') && !policy.spec?.ingress?.length && !policy.spec?.egress?.length
      );
    });

  /** Applied when a pod is created (`none`), or `at` a time still to come (the pod starts on the bridge and loses it then). */
  const isolation = (namespace: string, labels: Record<string, string> | undefined): { now: boolean; at?: number } => {
    const times = isolating(namespace, labels).map((policy) => policyApplied.get(policy) ?? 0);
    if (times.length === 0) return { now: false };
    const at = Math.min(...times);
    return at <= Date.now() ? { now: true } : { now: false, at };
  };

  async function createPod(namespace: string, raw: string): Promise<Json> {
    if (!namespaces.has(namespace)) throw notFound('namespaces', namespace);
    const object = decodeObject(raw, 'Pod', 'v1', namespace) as Json;
    validatePod(object);
    if (pods.has(key(namespace, object.metadata.name))) throw alreadyExists('pods', object.metadata.name);
    // Admission runs after validation, in the API server's order: NamespaceLifecycle, PodSecurity, ResourceQuota.
    if (terminating.has(namespace)) throw namespaceTerminating('pods', object.metadata.name, namespace);
    if (options.podSecurity === 'restricted') {
      const violation = podSecurityViolation(object);
      if (violation) throw violation;
    }
    if (options.quota) {
      const used: Record<string, number> = {};
      for (const entry of pods.values()) {
        if (entry.object.metadata.namespace !== namespace) continue;
        const { phase } = (await withStatus(entry)).status;
        if (phase === 'Succeeded' || phase === 'Failed') continue;
        for (const [resource, value] of Object.entries(podUsage(entry.object))) used[resource] = (used[resource] ?? 0) + value;
      }
      const exceeded = quotaExceeded(options.quota, object, used);
      if (exceeded) throw exceeded;
    }
    if (object.spec.containers.length !== 1) throw new Error('the fake runs pods of one container only');
    const pod: Json = { apiVersion: 'v1', kind: 'Pod', ...object, metadata: meta(object, namespace) };
    const entry: PodEntry = { object: pod };
    pods.set(key(namespace, pod.metadata.name), entry);
    const [container] = pod.spec.containers;
    entry.unscheduled = options.nodeAllocatable && unschedulable(pod, options.nodeAllocatable);
    if (entry.unscheduled) return pod;
    const image = await docker
      .getImage(DIGEST.exec(container.image)?.[1] ?? container.image)
      .inspect()
      .catch(() => undefined);
    if (!image) {
      // As the kubelet reports a pull the registry refused: reason ErrImagePull, and the runtime's error as
      // the message (containerd: `failed to pull and unpack image "…": … not found`).
      entry.waiting = { reason: 'ErrImagePull', message: `failed to pull image "${container.image}": not found` };
      return pod;
    }
    const network = isolation(namespace, pod.metadata.labels);
    const limits = container.resources?.limits ?? {};
    const memory = limits.memory ? Math.round(quantityValue(limits.memory)) : undefined;
    const created = await docker.createContainer({
      Image: image.Id,
      Entrypoint: container.command,
      Cmd: container.args ?? (container.command ? [] : undefined),
      WorkingDir: container.workingDir,
      Env: [...(container.env ?? []).map((e: { name: string; value?: string }) => `${e.name}=${e.value ?? ''}`), ...serviceEnv],
      Labels: { [FAKE_LABEL]: instance, 'io.kubernetes.pod.name': pod.metadata.name, 'io.kubernetes.pod.namespace': namespace },
      HostConfig: {
        NetworkMode: network.now ? 'none' : 'bridge',
        Memory: memory,
        MemorySwap: memory,
        NanoCpus: limits.cpu ? Math.round(quantityValue(limits.cpu) * 1e9) : undefined,
        PidsLimit: (options.podPidsLimit ?? -1) > 0 ? options.podPidsLimit : undefined,
        // The pause container as PID 1 of a shared process namespace reaps orphans, as --init does.
        Init: pod.spec.shareProcessNamespace === true,
      },
    });
    entry.containerId = created.id;
    if (network.at !== undefined) {
      const timer = setTimeout(() => {
        void docker
          .getNetwork('bridge')
          .disconnect({ Container: created.id, Force: true })
          .catch(() => undefined);
      }, network.at - Date.now());
      timer.unref();
    }
    entry.imageId = `${container.image.replace(/@.*$/, '').replace(/:[^:/]+$/, '')}@${image.Id}`;
    await created.start().then(
      () => {
        // Counted from the pod's start (status.startTime), which here is its container's.
        const seconds = pod.spec.activeDeadlineSeconds as number | undefined;
        if (seconds) entry.deadline = setTimeout(() => end(entry, DEADLINE_EXCEEDED), Math.min(seconds * 1000, 2 ** 31 - 1)).unref();
      },
      (error: Error) => {
        entry.waiting = { reason: 'RunContainerError', message: error.message };
      },
    );
    return pod;
  }

  /** The kubelet ends a running pod: every container killed, the pod Failed with the reason. */
  function end(entry: PodEntry, ending: PodEnding): void {
    if (entry.ended || !entry.containerId) return;
    entry.ended = ending;
    clearTimeout(entry.deadline);
    void docker
      .getContainer(entry.containerId)
      .kill()
      .catch(() => undefined);
  }

  // The eviction manager: pods over their ephemeral-storage limit, one look at a time.
  let looking = false;
  const evictions = setInterval(() => {
    if (looking) return;
    looking = true;
    void Promise.all(
      [...pods.values()].map(async (entry) => {
        const limit = storageLimit(entry.object);
        if (!limit || entry.ended || !entry.containerId) return;
        const written = await writtenBytes(docker, entry.containerId);
        if (written !== undefined && written > quantityValue(limit)) end(entry, storageEviction(limit));
      }),
    ).finally(() => (looking = false));
  }, options.evictionIntervalMs ?? EVICTION_MONITORING_MS).unref();

  /** The pod's status as the kubelet would report it, read from its container. */
  async function withStatus(entry: PodEntry): Promise<Json> {
    const container = entry.object.spec.containers[0];
    const base = { name: container.name, image: container.image, imageID: entry.imageId ?? '', restartCount: 0 };
    if (entry.unscheduled) {
      const condition = { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: entry.unscheduled };
      return { ...entry.object, status: { phase: 'Pending', conditions: [condition] } };
    }
    if (entry.waiting || !entry.containerId) {
      return { ...entry.object, status: { phase: 'Pending', containerStatuses: [{ ...base, ready: false, state: { waiting: entry.waiting } }] } };
    }
    const info = await docker
      .getContainer(entry.containerId)
      .inspect()
      .catch(() => undefined);
    if (entry.ended) {
      const terminated = { exitCode: info?.State.Running ? 137 : (info?.State.ExitCode ?? 137), reason: 'Error' };
      return { ...entry.object, status: { phase: 'Failed', ...entry.ended, containerStatuses: [{ ...base, ready: false, state: { terminated } }] } };
    }
    if (info?.State.Running) {
      return {
        ...entry.object,
        status: {
          phase: 'Running',
          hostIP,
          ...(nodeLost && { conditions: [{ type: 'Ready', status: 'False' }] }),
          containerStatuses: [
            { ...base, ready: true, started: true, containerID: `docker://${entry.containerId}`, state: { running: { startedAt: info.State.StartedAt } } },
          ],
        },
      };
    }
    const exitCode = entry.oomKilled ? 137 : (info?.State.ExitCode ?? 137);
    const reason = entry.oomKilled || info?.State.OOMKilled ? 'OOMKilled' : !info ? 'ContainerStatusUnknown' : exitCode === 0 ? 'Completed' : 'Error';
    const phase = exitCode === 0 && info ? 'Succeeded' : 'Failed';
    return { ...entry.object, status: { phase, containerStatuses: [{ ...base, ready: false, state: { terminated: { exitCode, reason } } }] } };
  }

  function getPod(namespace: string, name: string): PodEntry {
    const entry = pods.get(key(namespace, name));
    if (!entry) throw notFound('pods', name);
    return entry;
  }

  async function deletePod(namespace: string, name: string): Promise<Json> {
    const entry = getPod(namespace, name);
    const object = await withStatus(entry);
    pods.delete(key(namespace, name));
    clearTimeout(entry.deadline);
    if (entry.containerId)
      await docker
        .getContainer(entry.containerId)
        .remove({ force: true })
        .catch(() => undefined);
    return object;
  }

  function createPolicy(namespace: string, raw: string): Json {
    if (!namespaces.has(namespace)) throw notFound('namespaces', namespace);
    const object = decodeObject(raw, 'NetworkPolicy', 'networking.k8s.io/v1', namespace) as Json;
    validateNetworkPolicy(object);
    if (policies.has(key(namespace, object.metadata.name))) throw alreadyExists('networkpolicies.networking.k8s.io', object.metadata.name);
    const policy = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', ...object, metadata: meta(object, namespace) };
    policies.set(key(namespace, policy.metadata.name), policy);
    policyApplied.set(policy, Date.now() + (options.policyDelayMs ?? 0));
    return policy;
  }

  function list(kind: string, apiVersion: string, items: Json[], namespace: string, selector: string | null): Json {
    const requirements = parseSelector(selector ?? '');
    return {
      kind,
      apiVersion,
      metadata: { resourceVersion: String(resourceVersion) },
      items: items.filter((o) => o.metadata.namespace === namespace && matches(requirements, o.metadata.labels)),
    };
  }

  async function route(method: string, url: URL, body: string): Promise<[number, unknown]> {
    let m = /^\/api\/v1\/namespaces\/([^/]+)\/pods(?:\/([^/]+))?$/.exec(url.pathname);
    if (m) {
      const [, namespace, name] = m.map((part) => part && decodeURIComponent(part));
      if (!name && method === 'POST') return [201, await createPod(namespace, body)];
      if (!name && method === 'GET')
        return [200, list('PodList', 'v1', await Promise.all([...pods.values()].map(withStatus)), namespace, url.searchParams.get('labelSelector'))];
      if (name && method === 'GET') return [200, await withStatus(getPod(namespace, name))];
      if (name && method === 'DELETE') return [200, await deletePod(namespace, name)];
      throw methodNotAllowed();
    }
    m = /^\/apis\/networking\.k8s\.io\/v1\/namespaces\/([^/]+)\/networkpolicies(?:\/([^/]+))?$/.exec(url.pathname);
    if (m) {
      const [, namespace, name] = m.map((part) => part && decodeURIComponent(part));
      if (!name && method === 'POST') return [201, createPolicy(namespace, body)];
      if (!name && method === 'GET')
        return [200, list('NetworkPolicyList', 'networking.k8s.io/v1', [...policies.values()], namespace, url.searchParams.get('labelSelector'))];
      if (name && method === 'DELETE') {
        const policy = policies.get(key(namespace, name));
        if (!policy) throw notFound('networkpolicies.networking.k8s.io', name);
        policies.delete(key(namespace, name));
        return [
          200,
          {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Success',
            details: { name, group: 'networking.k8s.io', kind: 'networkpolicies', uid: policy.metadata.uid },
          },
        ];
      }
      throw methodNotAllowed();
    }
    throw noSuchPath();
  }

  const authorized = (request: IncomingMessage) => request.headers.authorization === `Bearer ${token}`;

  /** The fault this request meets, if one is waiting for it. */
  const faultFor = (method: string, path: string): Fault | undefined => {
    const fault = faults.find((f) => !f.match || f.match(method, path));
    if (fault && --fault.times <= 0) faults.splice(faults.indexOf(fault), 1);
    return fault;
  };

  /** RBAC: the verb and resource a request needs (https://kubernetes.io/docs/reference/access-authn-authz/authorization/#determine-the-request-verb). */
  const rbac = (method: string, path: string) => {
    const m = /\/namespaces\/([^/]+)\/(pods|networkpolicies)(?:\/([^/]+))?(?:\/(exec))?$/.exec(path);
    if (!m || !options.forbid?.length) return;
    const [, namespace, resource, name, sub] = m;
    const verb = sub || method === 'POST' ? 'create' : method === 'DELETE' ? 'delete' : name ? 'get' : 'list';
    const full = sub ? `${resource}/${sub}` : resource;
    if (options.forbid.includes(`${verb} ${full}`)) throw rbacForbidden('tester', verb, full, name ?? '', decodeURIComponent(namespace));
  };

  const tls = await selfSignedCertificate();
  // Node's HTTP parser refuses request heads over 16 KB (431): stricter than an API server (1 MB, Go's
  // DefaultMaxHeaderBytes) and near proxies in front of one (nginx: 8 KB buffers), so a command in an
  // exec URL fails here as behind such a proxy.
  const server = https.createServer(tls, async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const body = await readBody(request);
    calls.push({ method: request.method ?? 'GET', path: url.pathname, query: queryOf(url), ...(body ? { body: parseOrText(body) } : {}) });
    try {
      if (!authorized(request)) throw unauthorized();
      const fault = faultFor(request.method ?? 'GET', url.pathname);
      if (fault) {
        const text = JSON.stringify(faultStatus(fault));
        response.writeHead(fault.code, {
          'Content-Type': 'application/json',
          ...(fault.retryAfterSeconds !== undefined && { 'Retry-After': String(fault.retryAfterSeconds) }),
        });
        response.end(text);
        return;
      }
      rbac(request.method ?? 'GET', url.pathname);
      const [code, result] = await route(request.method ?? 'GET', url, body);
      send(response, code, result);
    } catch (error) {
      if (error instanceof ApiError) send(response, error.status.code, error.status);
      else
        send(response, 500, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: String(error), reason: 'InternalError', code: 500 });
    }
  });

  const execSockets = new Set<net.Socket>();
  server.on('upgrade', (request: IncomingMessage, socket: net.Socket) => {
    execSockets.add(socket);
    socket.on('close', () => execSockets.delete(socket));
    const url = new URL(request.url ?? '/', 'http://fake');
    calls.push({ method: request.method ?? 'GET', path: url.pathname, query: queryOf(url) });
    const reject = (status: unknown) => {
      const code = (status as { code: number }).code;
      const text = JSON.stringify(status);
      socket.end(`HTTP/1.1 ${code} ${http.STATUS_CODES[code]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
    };
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/exec$/.exec(url.pathname);
    if (!authorized(request)) return reject(unauthorized().status);
    if (!m || request.method !== 'GET') return reject(noSuchPath().status);
    const fault = faultFor('GET', url.pathname);
    if (fault) return reject(faultStatus(fault));
    // The API server proxies exec to the node's kubelet (port 10250); a dial that fails is a 500 (UpgradeAwareHandler).
    if (nodeLost)
      return reject({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `error dialing backend: dial tcp ${hostIP}:10250: i/o timeout`,
        reason: 'InternalError',
        code: 500,
      });
    try {
      rbac('GET', url.pathname);
    } catch (error) {
      return reject((error as ApiError).status);
    }
    const entry = pods.get(key(decodeURIComponent(m[1]), decodeURIComponent(m[2])));
    if (!entry) return reject(notFound('pods', decodeURIComponent(m[2])).status);
    handleExec({
      docker,
      request,
      socket,
      url,
      pod: entry,
      status: () => withStatus(entry),
      protocols: options.execProtocols ?? ['v5.channel.k8s.io', 'v4.channel.k8s.io'],
      limits: { maxMessageBytes: options.maxMessageBytes, idleMs: options.execIdleMs ?? 20_000 },
      reject,
    }).catch(() => socket.destroy());
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    calls,
    docker,
    writeKubeconfig(dir, namespace) {
      mkdirSync(dir, { recursive: true });
      const path = join(dir, 'kubeconfig');
      const context = namespace ? `\n    namespace: ${namespace}` : '';
      writeFileSync(
        path,
        `apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: ${url}\n    certificate-authority-data: ${tls.cert.toString('base64')}\nusers:\n- name: tester\n  user:\n    token: ${token}\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: tester${context}\ncurrent-context: fake\n`,
      );
      return path;
    },
    pod: (namespace, name) => pods.get(key(namespace, name)),
    injectFault: (fault) => void faults.push({ ...fault }),
    terminateNamespace: (namespace) => void terminating.add(namespace),
    passDeadline(namespace, name) {
      const entry = pods.get(key(namespace, name));
      if (entry?.object.spec.activeDeadlineSeconds) end(entry, DEADLINE_EXCEEDED);
    },
    async loseNode() {
      nodeLost = true;
      execSockets.forEach((socket) => socket.destroy());
      await Promise.all(
        [...pods.values()].map((entry) =>
          entry.containerId
            ? docker
                .getContainer(entry.containerId)
                .pause()
                .catch(() => undefined)
            : undefined,
        ),
      );
    },
    cutExecConnections() {
      const cut = execSockets.size;
      execSockets.forEach((socket) => socket.destroy());
      return cut;
    },
    objects(kind, namespace, label) {
      const [labelKey, value] = label.split('=');
      const all: Json[] = kind === 'pods' ? [...pods.values()].map((entry) => entry.object) : [...policies.values()];
      return all.filter((o) => o.metadata.namespace === namespace && o.metadata.labels?.[labelKey] === value);
    },
    async close() {
      oomEvents.destroy();
      clearInterval(evictions);
      pods.forEach((entry) => clearTimeout(entry.deadline));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => service.close(() => resolve()));
      const containers = await docker.listContainers({ all: true, filters: { label: [`${FAKE_LABEL}=${instance}`] } });
      await Promise.all(
        containers.map((c) =>
          docker
            .getContainer(c.Id)
            .remove({ force: true })
            .catch(() => undefined),
        ),
      );
    },
  };
}
