// The files and hunks of a unified diff: what the commitment checker reads code from. Sections
// are split by the resolver's lossless splitter, which follows hunk counts. Each hunk keeps both
// sides (context plus removed lines, context plus added lines) with their line numbers, so that a
// side can be parsed as code and a changed line located in the old file and in the new one.
import { splitPatch } from '../resolver/patch-sections.ts';

export interface PatchLine {
  /** Line number in the new file (added and context lines) or the old file (removed lines). */
  line: number;
  text: string;
}

export interface HunkSide {
  /** Number of the side's first line in its file. */
  start: number;
  /** Context and changed lines of this side, in order. */
  lines: string[];
  /** File line numbers of the lines this side changes (added on the new side, removed on the old). */
  changed: Set<number>;
}

export interface Hunk {
  /** The function context git prints after the second @@ (may be empty). */
  context: string;
  old: HunkSide;
  new: HunkSide;
  /** Old-file line numbers after which added lines were inserted (0: at the top). */
  insertedAfter: number[];
}

export interface PatchFile {
  /** Path after the change (before it, for a deleted file). */
  path: string;
  /** The whole file is in the patch (new file). */
  isNew: boolean;
  added: PatchLine[];
  removed: PatchLine[];
  hunks: Hunk[];
}

export function patchFiles(patch: string): PatchFile[] {
  return splitPatch(patch)
    .sections.filter((section) => section.paths.length > 0)
    .map((section) => ({ path: section.paths[section.paths.length - 1]!, isNew: /^--- \/dev\/null$/m.test(section.text), ...hunksOf(section.text) }));
}

function hunksOf(text: string): Pick<PatchFile, 'added' | 'removed' | 'hunks'> {
  const added: PatchLine[] = [];
  const removed: PatchLine[] = [];
  const hunks: Hunk[] = [];
  let hunk: Hunk | undefined;
  let oldLine = 0;
  let newLine = 0;
  for (const raw of text.split('\n')) {
    const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@ ?(.*)$/.exec(raw);
    if (header) {
      oldLine = Number(header[1]);
      newLine = Number(header[2]);
      // "-0,0" (a new file) starts its old side at line 0.
      hunk = {
        context: header[3]!,
        old: { start: Math.max(1, oldLine), lines: [], changed: new Set() },
        new: { start: Math.max(1, newLine), lines: [], changed: new Set() },
        insertedAfter: [],
      };
      hunks.push(hunk);
      continue;
    }
    if (!hunk) continue;
    const line = raw.replace(/\r$/, '');
    if (line.startsWith('+')) {
      added.push({ line: newLine, text: line.slice(1) });
      hunk.new.lines.push(line.slice(1));
      hunk.new.changed.add(newLine++);
      // Inserted after the last old line seen (a replacement counts as inside the range it replaces).
      hunk.insertedAfter.push(oldLine - 1);
    } else if (line.startsWith('-')) {
      removed.push({ line: oldLine, text: line.slice(1) });
      hunk.old.lines.push(line.slice(1));
      hunk.old.changed.add(oldLine++);
    } else if (line.startsWith(' ')) {
      hunk.old.lines.push(line.slice(1));
      hunk.new.lines.push(line.slice(1));
      oldLine++;
      newLine++;
    }
  }
  return { added, removed, hunks };
}

/** A file a message names ("types.py", "outlines/types/__init__.py") matches a diff path by suffix. */
export function pathMatches(diffPath: string, mentioned: string): boolean {
  const a = diffPath.replace(/^\.?\//, '');
  const b = mentioned.replace(/^\.?\//, '');
  return a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);
}
