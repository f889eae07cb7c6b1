// An agent's container as the Docker backend starts it: commands run as the agent's own user, who
// owns the repository and its home, from an image with that user set up once (agent-user.ts), so
// the container's writable layer holds none of the repository until the agent writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createDockerBackend } from '../../harness/sandbox/docker/backend.ts';
import { engineAt, requireEngine } from '../../harness/sandbox/docker/engine.ts';
import { poolImage, type PoolImage } from '../../harness/sandbox/docker/images.ts';
import { removeLabelledContainers } from '../../harness/sandbox/docker/containers.ts';
import { AGENT_USER, agentImageName } from '../../harness/sandbox/docker/agent-user.ts';
import type { DockerSandbox } from '../../harness/sandbox/docker/sandbox.ts';
import { DEFAULT_LIMITS } from '../../harness/sandbox/types.ts';
import { SHIPPED_POOLS } from '../../harness/paths.ts';
import { loadPool } from '../../tasks/pools.ts';
import { uniqueRun } from '../helpers/run-db.ts';

const RUN = uniqueRun('agent-user');
let image: PoolImage;

beforeAll(async () => {
  const engine = await requireEngine(engineAt());
  image = await poolImage(engine, loadPool(join(SHIPPED_POOLS, 'argkit_task', 'task1')), { log: () => undefined });
});

afterAll(async () => {
  await removeLabelledContainers([engineAt()], RUN);
});

async function startAgent(agent: string): Promise<DockerSandbox> {
  const slot = (await createDockerBackend({ log: () => undefined })).acquire();
  return (await slot.startAgentSandbox({ image, run: RUN, task: 1, agent, limits: DEFAULT_LIMITS })) as DockerSandbox;
}

describe("an agent's container", { timeout: 300_000 }, () => {
  it("runs the agent's commands as its user, who owns the repository and its home", async () => {
    const sandbox = await startAgent('agent1');
    try {
      const who = await sandbox.exec(['sh', '-c', 'id -u; whoami; stat -c %u .; stat -c %u "$HOME"; touch new-file && stat -c %u new-file']);
      expect(who.exitCode).toBe(0);
      expect(who.stdout.trim().split('\n')).toEqual([String(AGENT_USER.uid), AGENT_USER.name, ...Array(3).fill(String(AGENT_USER.uid))]);
      expect((await sandbox.exec(['id', '-u'], { privileged: true })).stdout.trim()).toBe('0');
    } finally {
      await sandbox.remove();
    }
  });

  it("starts from the pool image with the user set up once: the repository is not copied into each container's writable layer", async () => {
    const [first, second] = [await startAgent('agent1'), await startAgent('agent2')];
    try {
      const info = await first.container.inspect();
      expect(info.Config.Image).toBe((await image.engine.docker.getImage(agentImageName(image.id, AGENT_USER)).inspect()).Id);
      expect((await second.container.inspect()).Image).toBe(info.Image);
      // What the container changed against its image: the repository's files are not among them.
      const changes = ((await first.container.changes()) ?? []) as { Path: string }[];
      expect(changes.filter((c) => c.Path.startsWith('/workspace/repo/'))).toEqual([]);
    } finally {
      await Promise.all([first.remove(), second.remove()]);
    }
  });
});
