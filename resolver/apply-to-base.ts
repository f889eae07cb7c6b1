// One patch applied to the base as an agent's container yields it: `git apply` in a checkout of the
// base, then `git add -A` and `git diff --cached --binary <base>` (harness/run/workspace.ts). Done in
// a scratch area of the repository on this machine (it is only read), so no container is needed.
import { GitScratch } from './git.ts';
import { oneLine } from './bounded-text.ts';
import { applyPatch } from './session.ts';

export interface BaseApply {
  repoDir: string;
  baseRev: string;
  patch: string;
}

/** The patch as `git diff` against the base gives it back, or git's reason it does not apply. */
export async function applyToBase({ repoDir, baseRev, patch }: BaseApply): Promise<{ patch: string } | { error: string }> {
  const { scratch, baseTree, fileMode } = await GitScratch.open(repoDir, baseRev);
  try {
    if (patch.trim() === '') return { patch: '' };
    const applied = await applyPatch(scratch, baseTree, await scratch.indexOf(baseTree), patch, fileMode);
    if (applied.error) return { error: oneLine(applied.error, 300) };
    // The container's command, with the repository's own configuration (not the user's: cleanGitEnv).
    return { patch: (await scratch.runOk(['diff', '--binary', baseRev, applied.tree], { workTree: repoDir })).toString('utf8') };
  } finally {
    await scratch.dispose();
  }
}
