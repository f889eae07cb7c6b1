// --git on Docker: one bare repository per agent in a folder of this machine, bind-mounted into the
// team's containers, each agent's own writable and its partners' read-only. Mount permissions, not
// trust, make partners' branches read-only; containers still have no network.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { TEAM_REPOS_ROOT, type TeamRepos } from '../types.ts';

export interface DockerTeamRepos extends TeamRepos {
  /** Bind mounts for one agent's container. */
  bindsFor(agentId: string): string[];
}

export function isDockerTeamRepos(repos: TeamRepos): repos is DockerTeamRepos {
  return typeof (repos as Partial<DockerTeamRepos>).bindsFor === 'function';
}

export async function createTeamRepos(agentIds: string[]): Promise<DockerTeamRepos> {
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
    agentIds,
    bindsFor: (self) => agentIds.map((id) => `${bare(id)}:${TEAM_REPOS_ROOT}/${id}.git:${id === self ? 'rw' : 'ro'}`),
    remove: async () => rmSync(root, { recursive: true, force: true }),
  };
}
