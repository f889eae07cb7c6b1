// Agents' patches that an imported run recorded damaged (cut by the reference adapters'
// .strip(), harness/import/stripped-patch.ts), kept repaired beside the run's store:
// runs/<name>/repaired-patches/<task key>/<agent>.patch. `eval` tests them as an extra attempt.
import { lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Bigger repaired patches are not read (an agent's patch beyond this is not code to test). */
const MAX_PATCH_BYTES = 16 * 1024 * 1024;

const safeName = (name: string) => name.replace(/[^A-Za-z0-9._+-]/g, '_');
const taskDir = (runDirectory: string, key: string) => join(runDirectory, 'repaired-patches', safeName(key));

export function saveRepairedPatches(runDirectory: string, key: string, patches: { agent: string; patch: string }[]): void {
  if (patches.length === 0) return;
  const dir = taskDir(runDirectory, key);
  mkdirSync(dir, { recursive: true });
  for (const p of patches) writeFileSync(join(dir, `${safeName(p.agent)}.patch`), p.patch);
}

/** The repaired patches of a task's agents, by agent; only regular files are read (never a link). */
export function repairedPatches(runDirectory: string, key: string, agents: string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const agent of agents) {
    const path = join(taskDir(runDirectory, key), `${safeName(agent)}.patch`);
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (!stat.isFile()) throw new Error(`${path} is not a regular file: remove it (repaired patches are files import writes)`);
    if (stat.size > MAX_PATCH_BYTES) throw new Error(`${path} is larger than ${MAX_PATCH_BYTES / 1024 / 1024} MiB: not read`);
    found.set(agent, readFileSync(path, 'utf8'));
  }
  return found;
}
