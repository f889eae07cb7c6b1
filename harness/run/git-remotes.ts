// The --git setting: each agent publishes its branch to its own bare repository and reads its
// partners' (read-only). The backend provides the repositories at /git/<agent>.git (TeamRepos);
// here each agent's repository gets a remote per team member.
import type { Sandbox } from '../sandbox/types.ts';
import { TEAM_REPOS_ROOT } from '../sandbox/types.ts';
import { WORKSPACE } from '../../tasks/prompts.ts';

/** Adds a remote per agent (named after it) to the agent's repository. */
export async function configureTeamRemotes(sandbox: Sandbox, agentIds: string[]): Promise<void> {
  const script = [
    'set -e',
    `git config --global --add safe.directory '*'`,
    ...agentIds.map((id) => `git -C ${WORKSPACE} remote add ${id} ${TEAM_REPOS_ROOT}/${id}.git`),
  ].join('\n');
  const result = await sandbox.exec(['sh', '-c', script]);
  if (result.exitCode !== 0) throw new Error(`setting up git remotes failed: ${result.stderr.trim().slice(0, 300)}`);
}
