// What the kubelet does to a pod, counted as Docker counts it, through `coop-bench run --backend
// kubernetes` against the test API server (its pods are real containers): an agent that writes past
// its pod's ephemeral-storage limit (--disk) is evicted and ends as disk_limit, scored, as Docker's
// disk watch ends it; a pod that outlives its activeDeadlineSeconds during a run is the harness's
// doing, so its task is an infrastructure error that names the deadline, never a score.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { coopBench, tempDir } from '../helpers/cli.ts';
import { queryRun, uniqueRun } from '../helpers/run-db.ts';
import { bash, finish, scriptsByModel, type Script } from '../helpers/hostile-agents.ts';
import { implement } from '../helpers/scripted-agents.ts';
import { startFakeVllm, type FakeOpenAIServer } from '../fakes/openai-server.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-api-server/index.ts';
import { loadPool } from '../../tasks/pools.ts';
import { engineAt } from '../../harness/sandbox/docker/engine.ts';
import { poolImage } from '../../harness/sandbox/docker/images.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';

const NAMESPACE = 'coop';
const pool = loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1'));
const runs = tempDir('kube-limits');

const scripts: Record<string, Script> = {
  good: (p, prompt) => [...implement(p, prompt), finish],
  // 200 MB against a 64 MB limit, then time for the kubelet to look.
  'fill-disk': (p, prompt) => [...implement(p, prompt), bash('head -c 200M /dev/zero > /tmp/fill; sleep 30; echo still here', 60), finish],
  // Busy long enough for its pod's deadline to pass under it.
  slow: (p, prompt) => [bash('sleep 30; echo still here', 60), ...implement(p, prompt), finish],
};

let server: FakeOpenAIServer;
let fake: FakeKubeApiServer;
let image: string;
let env: Record<string, string>;
const spec = (behaviour: string) => `openai:${behaviour}@${server.url}`;

beforeAll(async () => {
  server = await startFakeVllm({ served: Object.keys(scripts), handler: scriptsByModel(pool, scripts) });
  // The kubelet looks every second here (10 s by default).
  fake = await startFakeKubeApiServer({ namespaces: [NAMESPACE], evictionIntervalMs: 1000 });
  env = { KUBECONFIG: fake.writeKubeconfig(tempDir('kube-limits-config'), NAMESPACE) };
  image = (await poolImage(engineAt(), pool)).name;
});

afterAll(async () => {
  await fake?.close();
  await server?.close();
});

const runWith = (run: string, behaviours: string[]) =>
  coopBench(
    [
      ...['run', '--models', behaviours.map(spec).join(','), '--context-window', '128000', '--setting', 'solo', '--pool', 'argkit', '--features', '1,3'],
      ...['--max-steps', '12', '--concurrency', '2', '--disk', '64m', '--name', run, '--runs-dir', runs],
      ...['--backend', 'kubernetes', '--namespace', NAMESPACE, '--image', image],
    ],
    { env },
  );

interface Outcome {
  status: string;
  error: string | null;
  both_passed: number | null;
  agent_status: string | null;
  agent_error: string | null;
  patch: string | null;
}

const outcome = (run: string, behaviour: string) =>
  queryRun<Outcome>(
    runs,
    run,
    `SELECT t.status, t.error, t.both_passed, a.status AS agent_status, a.error AS agent_error, a.patch FROM tasks t LEFT JOIN agents a ON a.task = t.id WHERE t.models = ?`,
    JSON.stringify([spec(behaviour)]),
  )[0];

describe('--backend kubernetes: the kubelet ends a pod', { timeout: 900_000 }, () => {
  it('an agent that writes past its ephemeral-storage limit is evicted and ends as disk_limit, scored; its neighbour finishes', async () => {
    const run = uniqueRun('kube-disk');
    const result = await runWith(run, ['good', 'fill-disk']);
    expect(result.exitCode, result.all).toBe(0);
    expect(fake.objects('pods', NAMESPACE, `coop-bench.run=${run}`)).toEqual([]);
    expect(outcome(run, 'fill-disk')).toMatchObject({ status: 'done', error: null, agent_status: 'disk_limit', both_passed: 0, patch: '' });
    expect(outcome(run, 'fill-disk').agent_error).toBe(
      "the agent wrote more than its pod's 0.06 GiB of ephemeral storage (--disk): Kubernetes evicted the pod and what it changed is lost (empty patch)",
    );
    expect(outcome(run, 'good')).toMatchObject({ status: 'done', agent_status: 'finished', both_passed: 1 });
  });

  it("a pod whose activeDeadlineSeconds pass during the run is an infrastructure error naming the deadline, not the agent's score", async () => {
    const run = uniqueRun('kube-deadline');
    const running = runWith(run, ['slow']);
    // The deadline passes as soon as the agent's pod runs (as if 24 hours had gone by).
    let passed = false;
    const watch = setInterval(() => {
      for (const pod of fake.objects('pods', NAMESPACE, `coop-bench.run=${run}`)) {
        if (pod.metadata.labels['coop-bench.role'] !== 'agent' || !fake.pod(NAMESPACE, pod.metadata.name)?.containerId) continue;
        fake.passDeadline(NAMESPACE, pod.metadata.name);
        passed = true;
      }
    }, 200);
    const result = await running.finally(() => clearInterval(watch));
    expect(passed, result.all).toBe(true);
    const slow = outcome(run, 'slow');
    expect(slow.status, result.all).toBe('error');
    expect(slow.error).toMatch(/DeadlineExceeded: it ran past the activeDeadlineSeconds coop-bench gives its pods \(86400 s\)/);
    expect(fake.objects('pods', NAMESPACE, `coop-bench.run=${run}`)).toEqual([]);
  });
});
