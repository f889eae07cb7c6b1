// Hostile agents: each misbehaviour runs as its own Solo task of one run, next to a
// well-behaved agent, through the real tools in real containers. Each must be contained, scored
// as it should be, leave the harness's memory bounded and the other tasks unaffected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { CLI, coopBench, containersOf, tempDir } from '../helpers/cli.ts';
import { filesUnder, queryRun, uniqueRun } from '../helpers/run-db.ts';
import { bash, finish, hostileScripts, networkProbes, scriptsByModel, type Script } from '../helpers/hostile-agents.ts';
import { agentIdOf, implement } from '../helpers/scripted-agents.ts';
import { watchContainers, type ContainerWatch } from '../helpers/container-watch.ts';
import { trackPeakRss } from '../helpers/peak-rss.ts';
import { startFakeVllm, type FakeOpenAIServer } from '../fakes/openai-server.ts';
import { startCanary, type Canary } from '../fakes/canary-server.ts';
import { DEFAULT_LIMITS } from '../../harness/sandbox/types.ts';
import { loadPool } from '../../tasks/pools.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';

const pool = loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1'));
const runs = tempDir('hostile');
// Never sent to a provider here (every model is a spec with its own server): none may appear anywhere.
const KEYS = {
  OPENAI_API_KEY: 'sk-canary-openai-5e1f0c2a9b',
  ANTHROPIC_API_KEY: 'sk-ant-canary-7d3b9e4f1a',
  COOP_BENCH_ENDPOINT_API_KEY: 'sk-canary-endpoint-2c8a6d0e4b',
};
const MiB = 1024 * 1024;

let server: FakeOpenAIServer;
let canary: Canary;
let scripts: Record<string, Script>;
const spec = (behaviour: string) => `openai:${behaviour}@${server.url}`;

interface TaskRow {
  id: number;
  models: string;
  status: string;
  both_passed: number;
  error: string | null;
}
interface AgentRow {
  status: string;
  error: string | null;
  patch: string;
}

beforeAll(async () => {
  canary = await startCanary();
  scripts = hostileScripts(canary);
  // git-net is scripted by the --git tests below.
  server = await startFakeVllm({ served: [...Object.keys(scripts), 'git-net'], handler: scriptsByModel(pool, scripts) });
});

afterAll(async () => {
  await server.close();
  await canary.close();
});

describe('hostile agents, one Solo task each, next to a well-behaved one', () => {
  const run = uniqueRun('hostile');
  let result: Awaited<ReturnType<typeof coopBench>>;
  let peakRss: number;
  let watch: ContainerWatch;
  const task = (behaviour: string) => queryRun<TaskRow>(runs, run, 'SELECT * FROM tasks WHERE models = ?', JSON.stringify([spec(behaviour)]))[0];
  const agent = (behaviour: string) => queryRun<AgentRow>(runs, run, 'SELECT status, error, patch FROM agents WHERE task = ?', task(behaviour).id)[0];
  const steps = (behaviour: string) =>
    queryRun<{ name: string; output: string | null; exit_code: number | null }>(
      runs,
      run,
      `SELECT name, output, exit_code FROM steps WHERE task = ? AND kind = 'tool' ORDER BY idx`,
      task(behaviour).id,
    );
  const dropped = (behaviour: string) =>
    JSON.parse(
      queryRun<{ dropped_test_files: string }>(runs, run, 'SELECT dropped_test_files FROM merges WHERE task = ?', task(behaviour).id)[0].dropped_test_files,
    ) as string[][];

  beforeAll(async () => {
    watch = await watchContainers(run);
    const models = Object.keys(scripts).map(spec).join(',');
    const child = execa(
      'node',
      [
        CLI,
        'run',
        '--models',
        models,
        '--context-window',
        '128000',
        '--setting',
        'solo',
        '--pool',
        'argkit',
        '--features',
        '1,3',
        '--max-steps',
        '12',
        '--concurrency',
        '3',
        '--name',
        run,
        '--runs-dir',
        runs,
      ],
      {
        reject: false,
        all: true,
        env: KEYS,
      },
    );
    const rss = trackPeakRss(child.pid!);
    result = await child;
    rss.stop();
    peakRss = rss.peakBytes();
    await watch.stop();
    process.stdout.write(
      `hostile agents: peak RSS of the coop-bench process ${Math.round(peakRss / MiB)} MiB over ${Object.keys(scripts).length} tasks (1 GiB of agent output, a 50 MiB patch)\n`,
    );
  });

  it("finishes the run: every misbehaviour is the agent's, none is a harness error", () => {
    expect(result.exitCode, result.all).toBe(0);
    const rows = queryRun<TaskRow>(runs, run, 'SELECT * FROM tasks');
    expect(rows).toHaveLength(Object.keys(scripts).length);
    expect(rows.filter((r) => r.status !== 'done').map((r) => `${r.models}: ${r.error}`)).toEqual([]);
  });

  it('scores each task as its work deserves', () => {
    const verdicts = Object.fromEntries(Object.keys(scripts).map((b) => [b, task(b).both_passed === 1]));
    expect(verdicts).toEqual({
      good: true,
      'rm-git': true,
      'rm-root': false,
      'fork-bomb': true,
      flood: true,
      endless: true,
      network: true,
      snoop: true,
      'test-cheat': false,
      'test-edit': true,
      outside: false,
      'big-patch': false,
    });
  });

  it('rm -rf .git: the patch is still the working tree against the base', () => {
    expect(agent('rm-git')).toMatchObject({ status: 'finished' });
    expect(agent('rm-git').patch).toContain('diff --git a/src/parser.js b/src/parser.js');
  });

  it('rm -rf /: the agent user removes only what it owns, its repository: the patch deletes it, and fails', () => {
    expect(agent('rm-root')).toMatchObject({ status: 'finished', patch: expect.stringContaining('deleted file mode') });
  });

  it('a fork bomb is contained by the pids limit and cleared before the next command', () => {
    expect(steps('fork-bomb')[1]).toMatchObject({ exit_code: 0, output: expect.stringContaining('still here') });
  });

  it('a gigabyte of output reaches neither the model nor memory; an oversized file view is a tool error', () => {
    const [flood, , view] = steps('flood');
    expect(flood.output).toMatch(/characters of output omitted/);
    expect(flood.output!.length).toBeLessThan(20_000);
    expect(view).toMatchObject({ exit_code: 1, output: expect.stringMatching(/^Error: .*over the \d+-byte limit/) });
    expect(peakRss, `peak RSS ${Math.round(peakRss / MiB)} MiB`).toBeLessThan(1024 * MiB); // sanity bound: the 1 GiB was never held
  });

  it('an endless loop is killed at its timeout, a detached one at the end, and the step limit ends the agent', () => {
    expect(steps('endless')[0]).toMatchObject({ output: expect.stringMatching(/^killed after 3 s \(timeout\)/) });
    expect(agent('endless')).toMatchObject({ status: 'step_limit' });
  });

  it('the network is unreachable: no probe reached the host or the outside', () => {
    const output = steps('network')[0].output!;
    expect(output).not.toMatch(/REACHED|RESOLVED/);
    expect(output.match(/blocked /g)).toHaveLength(canary.hosts.length + 2);
    expect(canary.connections()).toBe(0);
  });

  it('edits to test files are dropped before merging; the hidden tests decide', () => {
    for (const behaviour of ['test-cheat', 'test-edit']) {
      expect(dropped(behaviour)[0]).toEqual(
        expect.arrayContaining(['test/features/inline-values.test.js', 'test/features/multiple-values.test.js', 'test/parse.test.js']),
      );
    }
    const cheat = queryRun<{ passed: number; output: string }>(runs, run, 'SELECT passed, output FROM evaluations WHERE task = ?', task('test-cheat').id);
    expect(cheat.map((e) => e.passed)).toEqual([0, 0]);
  });

  it('writes outside the repository reach neither the patch, the test containers nor the host', () => {
    const { patch } = agent('outside');
    expect(patch).not.toMatch(/runner\.sh|coop-bench-evil|outside/);
    expect(existsSync('/etc/coop-bench-evil')).toBe(false);
    const evaluations = queryRun<{ passed: number; output: string }>(runs, run, 'SELECT passed, output FROM evaluations WHERE task = ?', task('outside').id);
    expect(evaluations.map((e) => e.passed)).toEqual([0, 0]);
    expect(evaluations[0].output).toMatch(/^not ok/m); // the pool's own runner ran, not the agent's
  });

  it("a 50 MB patch is the agent's error: dropped, scored as no work, the run goes on", () => {
    expect(agent('big-patch')).toMatchObject({
      status: 'error',
      patch: '',
      error: 'the patch is larger than 20 MiB: the files it adds or changes hold 50.0 MiB; dropped',
    });
    expect(task('big-patch').status).toBe('done');
  });

  it('every container had CPU, memory and pids limits and no network', () => {
    // One agent container per task, seen as it was created, and test containers: at most one per
    // task and a spare, fewer since the test cache answers for code already tested.
    expect(watch.seen.length + watch.missed).toBeGreaterThan(Object.keys(scripts).length);
    expect(watch.seen.filter((c) => c.role === 'agent')).toHaveLength(Object.keys(scripts).length);
    expect(watch.seen.some((c) => c.role === 'test')).toBe(true);
    for (const c of watch.seen) {
      expect(c, `${c.role} container ${c.id}`).toMatchObject({
        networkMode: 'none',
        memoryBytes: DEFAULT_LIMITS.memoryBytes,
        nanoCpus: DEFAULT_LIMITS.nanoCpus,
        pidsLimit: DEFAULT_LIMITS.pids,
      });
    }
    process.stdout.write(`hostile agents: ${watch.seen.length} containers inspected at creation, all limited and without network\n`);
  });

  it('no API key reaches a container, a trajectory, a log, the store or the report', async () => {
    expect(steps('snoop')[0].output).toMatch(/PATH=/); // the agent did read its environment
    const report = await coopBench(['report', '--name', run, '--runs-dir', runs]);
    expect(report.exitCode, report.all).toBe(0);
    const artifacts = filesUnder(join(runs, run));
    expect(artifacts.some((f) => f.endsWith('report.html'))).toBe(true);
    for (const key of Object.values(KEYS)) {
      for (const file of artifacts) expect(readFileSync(file).includes(key), `${key} in ${file}`).toBe(false);
      expect(result.all.includes(key) || report.all.includes(key)).toBe(false);
    }
  });

  it('leaves no container behind', async () => {
    expect(await containersOf(run)).toEqual([]);
  });
});

describe('--git: agents share branches through mounted repositories, still without a network', () => {
  const run = uniqueRun('hostile-git');
  let result: Awaited<ReturnType<typeof coopBench>>;
  let watch: ContainerWatch;
  const publish = (self: string) =>
    `git add -A && git -c user.name=${self} -c user.email=${self}@example.invalid commit -qm "work of ${self}" && git push -q ${self} HEAD:refs/heads/main && echo pushed`;
  const readPartner = (partner: string) =>
    `for i in $(seq 1 60); do git fetch -q ${partner} 2>/dev/null && git log -1 --format=%s ${partner}/main && break; sleep 1; done; git push ${partner} HEAD:refs/heads/stolen 2>&1 || echo "push to ${partner} refused"`;

  beforeAll(async () => {
    scripts['git-net'] = (p, prompt) => {
      const self = agentIdOf(prompt)!;
      const partner = self === 'agent1' ? 'agent2' : 'agent1';
      return [bash(networkProbes(canary.hosts, canary.port)), ...implement(p, prompt), bash(publish(self)), bash(readPartner(partner), 120), finish];
    };
    watch = await watchContainers(run);
    result = await coopBench(
      [
        'run',
        '--models',
        spec('git-net'),
        '--context-window',
        '128000',
        '--setting',
        'coop',
        '--git',
        '--pool',
        'argkit',
        '--features',
        '1,3',
        '--name',
        run,
        '--runs-dir',
        runs,
      ],
      { env: KEYS },
    );
    await watch.stop();
  });

  it("each agent reads its partner's branch, cannot write it, and reaches nothing else", () => {
    expect(result.exitCode, result.all).toBe(0);
    const rows = queryRun<{ agent: string; name: string; output: string }>(
      runs,
      run,
      `SELECT agent, name, output FROM steps WHERE kind = 'tool' AND name = 'bash' ORDER BY agent, idx`,
    );
    for (const [self, partner] of [
      ['agent1', 'agent2'],
      ['agent2', 'agent1'],
    ]) {
      const outputs = rows.filter((r) => r.agent === self).map((r) => r.output);
      expect(outputs[0]).not.toMatch(/REACHED|RESOLVED/);
      expect(outputs[2]).toContain('pushed');
      expect(outputs[3]).toContain(`work of ${partner}`);
      expect(outputs[3]).toContain(`push to ${partner} refused`);
    }
    expect(canary.connections()).toBe(0);
    expect(queryRun<{ both_passed: number }>(runs, run, 'SELECT both_passed FROM tasks')).toEqual([{ both_passed: 1 }]);
  });

  it('agent containers have no network even then, only the bare repositories mounted', () => {
    const agents = watch.seen.filter((c) => c.role === 'agent');
    expect(agents).toHaveLength(2);
    for (const c of agents) {
      expect(c.networkMode).toBe('none');
      const mounts = c.binds.map((b) => b.split(':').slice(1).join(':')).sort();
      expect(mounts).toHaveLength(2);
      expect(mounts.filter((m) => m.endsWith(':rw'))).toHaveLength(1);
      expect(mounts.map((m) => m.replace(/:r[ow]$/, ''))).toEqual(['/git/agent1.git', '/git/agent2.git']);
    }
  });
});

describe('the network probe is able to see a connection', () => {
  it('run where there is a network (the host), the same probe reaches the canary', async () => {
    const before = canary.connections();
    const probe = await execa('bash', ['-c', networkProbes(canary.hosts, canary.port)]);
    expect(probe.stdout).toMatch(new RegExp(`REACHED ${canary.hosts[0]}/${canary.port}`));
    expect(canary.connections()).toBeGreaterThan(before);
  });
});
