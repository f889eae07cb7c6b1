// Agents that attack the exec channel from inside their container (exec-channel-server.ts): frames
// written to the server's own streams through /proc/<server>/fd, by the command itself or by a
// detached job for the commands after it (refused: agents' commands run as a user of their own,
// agent-user.ts), and a 150 MB file that compresses to a tiny patch. Each
// runs as its own Solo task of one run, next to a well-behaved agent: the patch the harness stores,
// merges and tests is what the repository really holds, taken after the agent's processes are
// stopped (harness/sandbox/docker/stop-processes.ts) by a `docker exec` of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { CLI, containersOf, tempDir } from '../helpers/cli.ts';
import { execa } from 'execa';
import { queryRun, uniqueRun } from '../helpers/run-db.ts';
import { forgingScripts, scriptsByModel, type Script } from '../helpers/hostile-agents.ts';
import { startFakeVllm, type FakeOpenAIServer } from '../fakes/openai-server.ts';
import { loadPool } from '../../tasks/pools.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';

const pool = loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1'));
const runs = tempDir('forged');
let server: FakeOpenAIServer;
let scripts: Record<string, Script>;
/** What the agents' commands printed, as their next model requests carried it back. */
const toolOutputs: string[] = [];
const spec = (behaviour: string) => `openai:${behaviour}@${server.url}`;

beforeAll(async () => {
  scripts = forgingScripts();
  server = await startFakeVllm({
    served: Object.keys(scripts),
    handler: scriptsByModel(pool, scripts, (request) => toolOutputs.push(JSON.stringify(request.body.messages ?? []))),
  });
});

afterAll(async () => {
  await server.close();
});

describe('forged exec channel frames, one Solo task each, next to a well-behaved agent', () => {
  const run = uniqueRun('forged');
  let result: { exitCode?: number; all?: string };
  const task = (behaviour: string) =>
    queryRun<{ id: number; status: string; both_passed: number; error: string | null }>(
      runs,
      run,
      'SELECT id, status, both_passed, error FROM tasks WHERE models = ?',
      JSON.stringify([spec(behaviour)]),
    )[0];
  const agent = (behaviour: string) =>
    queryRun<{ status: string; error: string | null; patch: string }>(
      runs,
      run,
      'SELECT status, error, patch FROM agents WHERE task = ?',
      task(behaviour).id,
    )[0];
  const good = () => agent('good').patch;

  beforeAll(async () => {
    const models = Object.keys(scripts).map(spec).join(',');
    const args = ['run', '--models', models, '--context-window', '128000', '--setting', 'solo', '--pool', 'argkit', '--features', '1,3'];
    result = await execa('node', [CLI, ...args, '--max-steps', '12', '--concurrency', '2', '--name', run, '--runs-dir', runs], { reject: false, all: true });
  });

  it('finishes the run, every task scored', () => {
    expect(result.exitCode, result.all).toBe(0);
    expect(queryRun<{ status: string }>(runs, run, 'SELECT status FROM tasks').map((t) => t.status)).toEqual(Array(Object.keys(scripts).length).fill('done'));
  });

  it("a detached job forging every command's result changes nothing stored: the patch is the repository's, and passes", () => {
    const { patch, status } = agent('forge-patch');
    expect(patch).not.toMatch(/FORGED/);
    expect(patch).toBe(good());
    expect(status).toBe('finished');
    expect(task('forge-patch').both_passed).toBe(1);
  });

  it("a command announcing its own end on the server's streams changes neither the patch nor the verdict", () => {
    expect(agent('forge-exit').patch).toBe(good());
    expect(task('forge-exit').both_passed).toBe(1);
  });

  it("a command writing to the fds of the channel's server (another user's process) is refused, and its exit status stands", () => {
    const report = toolOutputs.find((output) => output.includes('processes of other users:'));
    const [, others, opened, written] = /processes of other users: (\d+), fd folders opened: (\d+), frames written: (\d+)/.exec(report ?? '') ?? [];
    expect(Number(others), report).toBeGreaterThanOrEqual(2); // at least the server and the container's main process
    expect({ opened: Number(opened), written: Number(written) }).toEqual({ opened: 0, written: 0 });
    expect(report).toMatch(/exit code 9/);
    expect(agent('forge-fd')).toMatchObject({ status: 'finished', patch: good() });
    expect(task('forge-fd').both_passed).toBe(1);
  });

  it('a 150 MB untracked file of zeros is measured by its real size: the patch is dropped, the agent failed', () => {
    expect(agent('big-zeros')).toMatchObject({
      status: 'error',
      patch: '',
      error: expect.stringMatching(/^the patch is larger than 20 MiB: the files it adds or changes hold 150\.\d MiB; dropped$/),
    });
    expect(task('big-zeros').both_passed).toBe(0);
  });

  it('leaves no container behind', async () => {
    expect(await containersOf(run)).toEqual([]);
  });
});
