// The lines a unified diff adds and removes, per file: what the commitment checker searches for
// promised code. Sections are split by the resolver's lossless splitter, which follows hunk counts.
import { splitPatch } from '../resolver/patch-sections.ts';

export interface PatchLine {
  /** Line number in the new file (added lines) or the old file (removed lines). */
  line: number;
  text: string;
}

export interface PatchFile {
  /** Path after the change (before it, for a deleted file). */
  path: string;
  added: PatchLine[];
  removed: PatchLine[];
}

export function patchFiles(patch: string): PatchFile[] {
  return splitPatch(patch).sections
    .filter((section) => section.paths.length > 0)
    .map((section) => ({ path: section.paths[section.paths.length - 1]!, ...hunkLines(section.text) }));
}

function hunkLines(text: string): Pick<PatchFile, 'added' | 'removed'> {
  const added: PatchLine[] = [];
  const removed: PatchLine[] = [];
  let oldLine = 0;
  let newLine = 0;
  let inHunks = false;
  for (const line of text.split('\n')) {
    const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (header) {
      oldLine = Number(header[1]);
      newLine = Number(header[2]);
      inHunks = true;
    } else if (!inHunks) {
      continue;
    } else if (line.startsWith('+')) {
      added.push({ line: newLine++, text: line.slice(1).replace(/\r$/, '') });
    } else if (line.startsWith('-')) {
      removed.push({ line: oldLine++, text: line.slice(1).replace(/\r$/, '') });
    } else if (line.startsWith(' ')) {
      oldLine++;
      newLine++;
    }
  }
  return { added, removed };
}

/** A file a message names ("types.py", "outlines/types/__init__.py") matches a diff path by suffix. */
export function pathMatches(diffPath: string, mentioned: string): boolean {
  const a = diffPath.replace(/^\.?\//, '');
  const b = mentioned.replace(/^\.?\//, '');
  return a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);
}
