// One merge as `git merge` makes it, without a work tree: `git merge-tree --write-tree` runs the
// same merge machinery (ort: rename detection, histogram diff, the xdiff merge level and attributes
// of `git merge`), so its tree is byte for byte the tree `git merge` would leave.
import { oneLine } from './bounded-text.ts';
import type { GitScratch, TreeEntry } from './git.ts';

/** A path the merge could not settle, with git's own message(s) about it. */
export interface ConflictedPath {
  path: string;
  /** Index stages git left: 1 base, 2 ours, 3 theirs. */
  stages: (TreeEntry & { stage: number })[];
  /** Conflict types, as git names them: `CONFLICT (contents)`, `CONFLICT (modify/delete)`, ... */
  types: string[];
  messages: string[];
}

export interface TreeMerge {
  /** The merged tree; conflicted files hold git's conflict markers. */
  tree: string;
  clean: boolean;
  conflicts: Map<string, ConflictedPath>;
}

/**
 * Merges commit `theirs` into commit `ours` (`git checkout ours && git merge theirs`). Attributes are
 * read from `workTree` (upstream merges in a checkout of `ours`). `config` pins settings with `-c`.
 */
export async function mergeTree(scratch: GitScratch, ours: string, theirs: string, workTree: string, config: string[] = []): Promise<TreeMerge> {
  const out = await scratch.run([...config.flatMap((c) => ['-c', c]), 'merge-tree', '--write-tree', '-z', '--messages', ours, theirs], { workTree });
  if (out.exitCode !== 0 && out.exitCode !== 1) throw new Error(`git merge-tree failed: ${oneLine(out.stderr) || `exit ${out.exitCode}`}`);
  return parseMergeTree(out.stdout.toString('utf8'), out.exitCode === 0);
}

/** `<tree>\0` then, on conflict, `<mode> <sha> <stage>\t<path>\0`..., `\0`, and messages `<n>\0<path>\0...<type>\0<text>\0`. */
export function parseMergeTree(output: string, clean: boolean): TreeMerge {
  const fields = output.split('\0');
  const conflicts = new Map<string, ConflictedPath>();
  const entry = (file: string): ConflictedPath => {
    let found = conflicts.get(file);
    if (!found) conflicts.set(file, (found = { path: file, stages: [], types: [], messages: [] }));
    return found;
  };
  let i = 1;
  for (; i < fields.length && fields[i] !== ''; i++) {
    const field = fields[i]!;
    const tab = field.indexOf('\t');
    const [mode, sha, stage] = field.slice(0, tab).split(' ') as [string, string, string];
    const file = field.slice(tab + 1);
    entry(file).stages.push({ path: file, mode, sha, stage: Number(stage) });
  }
  for (i++; i < fields.length && fields[i] !== '';) {
    const count = Number(fields[i]);
    const paths = fields.slice(i + 1, i + 1 + count);
    const type = fields[i + 1 + count] ?? '';
    const text = (fields[i + 2 + count] ?? '').trim();
    i += count + 3;
    if (!type.startsWith('CONFLICT')) continue;
    for (const conflicted of paths.flatMap((file) => conflicts.get(file) ?? [])) {
      conflicted.types.push(type);
      conflicted.messages.push(text);
    }
  }
  return { tree: fields[0]!, clean, conflicts };
}
