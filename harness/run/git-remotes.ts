// The --git setting: each agent publishes its branch to its own bare repository and reads its
// partners' through read-only mounts. Mount permissions, not trust, make partners' branches
// read-only; containers still have no network.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Sandbox } from '../docker/sandbox.ts';
import { REPO_PATH } from '../docker/base-repo.ts';

const MOUNT_ROOT = '/git';

export interface TeamRemotes {
  /** Bind mounts for one agent's container. */
  bindsFor(agentId: string): string[];
  /** Adds a remote per agent (named after it) to the agent's repository. */
  configure(sandbox: Sandbox, agentIds: string[]): Promise<void>;
  remove(): void;
}

export async function createTeamRemotes(agentIds: string[]): Promise<TeamRemotes> {
  const root = mkdtempSync(join(tmpdir(), 'coop-bench-git-'));
  const bare = (id: string) => join(root, `${id}.git`);
  try {
    // The container's user may differ from ours: shared permissions so its pushes can write.
    await Promise.all(agentIds.map((id) => execa('git', ['init', '--bare', '--quiet', '--shared=0777', bare(id)])));
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return {
    bindsFor: (self) => agentIds.map((id) => `${bare(id)}:${MOUNT_ROOT}/${id}.git:${id === self ? 'rw' : 'ro'}`),
    async configure(sandbox, ids) {
      const script = ['set -e', `git config --global --add safe.directory '*'`, ...ids.map((id) => `git -C ${REPO_PATH} remote add ${id} ${MOUNT_ROOT}/${id}.git`)].join('\n');
      const result = await sandbox.exec(['sh', '-c', script]);
      if (result.exitCode !== 0) throw new Error(`setting up git remotes failed: ${result.stderr.trim().slice(0, 300)}`);
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
