// The merge stage (design.md "Merge", paper §2.2): drop test files, apply each patch to the base,
// merge file by file with `git merge-file`, resolve what conflicted (union, or the LLM stage),
// and return the merged tree as a patch against the base.
import { performance } from 'node:perf_hooks';
import { oneLine } from './bounded-text.ts';
import { locateRegions, splitLines, toConflictRegion, DEFAULT_CONTEXT_LINES, type LocatedRegion } from './conflict-regions.ts';
import { ABSENT_MODE, GitScratch, type TreeChange } from './git.ts';
import { isBinary, mergeFile, PAPER_LABELS, type MergeLabels } from './merge-file.ts';
import { dropTestFiles } from './test-files.ts';
import type { ConflictRegion, FileMerge, FileOutcome, MergeInput, MergeResult, MergeStrategy } from './types.ts';

export interface MergeOptions {
  /** Lines of context around each reported conflict region (default 5). */
  contextLines?: number;
}

/** A file whose naive merge left conflict markers, handed to the stage that resolves it. */
export interface ConflictedFile {
  path: string;
  /** `git merge-file` output, with markers. */
  naive: Buffer;
  lines: string[];
  regions: LocatedRegion[];
  versions: { ours: Buffer; base: Buffer; theirs: Buffer };
  labels: MergeLabels;
  /** Scratch directory for further `git merge-file` runs. */
  workDir: string;
}

/** Resolves conflicted files: union by default, the model in the LLM stage. */
export interface ConflictStage {
  strategy: Exclude<MergeStrategy, 'naive'>;
  /** Returns the file's resolved content; throws to abandon the whole merge. */
  resolve(file: ConflictedFile): Promise<Buffer>;
}

export const unionStage: ConflictStage = {
  strategy: 'union',
  async resolve(file) {
    return (await mergeFile(file.workDir, file.versions, file.labels, true)).content;
  },
};

/** Merges the agents' patches (sequentially when more than two). Throws MergeSetupError for a bad repo or revision. */
export function mergePatches(input: MergeInput, options: MergeOptions = {}): Promise<MergeResult> {
  return runMerge(input, unionStage, options);
}

const OUTCOME_RANK: FileOutcome[] = ['one_side', 'identical', 'merged', 'union', 'llm', 'conflict'];

export async function runMerge(input: MergeInput, stage: ConflictStage, options: MergeOptions = {}): Promise<MergeResult> {
  if (input.patches.length === 0) throw new Error('mergePatches needs at least one patch');
  const contextLines = options.contextLines ?? DEFAULT_CONTEXT_LINES;
  const started = performance.now();
  const scratch = await GitScratch.open(input.repoDir);
  try {
    const baseTree = await scratch.resolveTree(input.baseRev);
    const filtered = input.patches.map(dropTestFiles);
    const droppedTestFiles = filtered.map((patch) => patch.dropped);

    // Apply each patch to its own copy of the base index (at the same time: they are independent).
    const applied = await Promise.all(
      filtered.map(async ({ patch }) => {
        const index = await scratch.indexOf(baseTree);
        const error = patch.trim() === '' ? undefined : await scratch.apply(index, patch);
        return { error, tree: await scratch.writeTree(index) };
      }),
    );
    const trees = applied.map((a) => a.tree);
    const failures = applied.flatMap((a, i) => (a.error ? [`patch ${i + 1} does not apply to ${oneLine(input.baseRev, 60)}: ${oneLine(a.error, 300)}`] : []));
    const applyMs = performance.now() - started;
    if (failures.length > 0) {
      return {
        status: 'missing_input', patch: '', files: [], conflictRegions: [], droppedTestFiles,
        reason: failures.join('; '),
        timingsMs: { naive: 0, apply: applyMs, total: performance.now() - started },
      };
    }

    const files = new Map<string, FileMerge>();
    const changes = await Promise.all(trees.map((tree) => scratch.changes(baseTree, tree)));
    for (const [i, changed] of changes.entries()) {
      for (const file of changed.keys()) {
        const entry = files.get(file) ?? { path: file, touchedBy: [], naiveConflicts: 0 };
        entry.touchedBy.push(i);
        files.set(file, entry);
      }
    }

    // Sequential merge: (1+2), then with 3, ...
    const conflictRegions: ConflictRegion[] = [];
    const conflicts: string[] = [];
    let stageMs = 0;
    let ours = trees[0]!;
    for (let k = 1; k < trees.length && conflicts.length === 0; k++) {
      const labels = k === 1 ? PAPER_LABELS : { ...PAPER_LABELS, ours: `patch_${range(k).join('+')}`, theirs: `patch_${k + 1}` };
      const step = await mergeStep(scratch, baseTree, ours, trees[k]!, labels, stage, contextLines);
      stageMs += step.stageMs;
      conflictRegions.push(...step.regions);
      for (const [file, result] of step.files) {
        const entry = files.get(file)!;
        entry.naiveConflicts += result.naiveConflicts;
        if (!entry.outcome || OUTCOME_RANK.indexOf(result.outcome) > OUTCOME_RANK.indexOf(entry.outcome)) entry.outcome = result.outcome;
        if (result.conflictReason) {
          entry.conflictReason = result.conflictReason;
          conflicts.push(`${oneLine(file, 120)} (${result.conflictReason})`);
        }
      }
      if (step.tree) ours = step.tree;
    }
    for (const entry of files.values()) entry.outcome ??= 'one_side';

    const resolvedSomething = conflictRegions.length > 0;
    const naiveMs = performance.now() - started - applyMs - stageMs;
    const timingsMs = {
      naive: naiveMs, apply: applyMs, ...(resolvedSomething ? { [stage.strategy]: stageMs } : {}),
      total: performance.now() - started,
    };
    const fileList = [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    if (conflicts.length > 0) {
      return {
        status: 'conflict', patch: '', files: fileList, conflictRegions, droppedTestFiles,
        reason: oneLine(`${conflicts.length} file(s) cannot be merged: ${conflicts.join('; ')}`, 600),
        timingsMs,
      };
    }
    const patch = ours === baseTree ? '' : await scratch.diffPatch(baseTree, ours);
    timingsMs.total = performance.now() - started;
    const strategy: MergeStrategy = resolvedSomething ? stage.strategy : 'naive';
    return {
      status: strategy === 'naive' ? 'clean' : strategy, strategy, patch, files: fileList,
      conflictRegions, droppedTestFiles, timingsMs,
    };
  } finally {
    await scratch.dispose();
  }
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

interface StepFile {
  outcome: FileOutcome;
  naiveConflicts: number;
  conflictReason?: string;
}

interface StepResult {
  /** The merged tree; undefined when some file could not be merged. */
  tree?: string;
  files: Map<string, StepFile>;
  regions: ConflictRegion[];
  stageMs: number;
}

type Decision =
  | { kind: 'take'; mode: string; sha: string; outcome: FileOutcome }
  | { kind: 'merge'; mode: string; base?: string; ours: string; theirs: string }
  | { kind: 'conflict'; reason: string };

async function mergeStep(
  scratch: GitScratch, baseTree: string, oursTree: string, theirsTree: string,
  labels: MergeLabels, stage: ConflictStage, contextLines: number,
): Promise<StepResult> {
  const [ours, theirs] = await Promise.all([scratch.changes(baseTree, oursTree), scratch.changes(baseTree, theirsTree)]);
  const paths = [...new Set([...ours.keys(), ...theirs.keys()])].sort();
  const decisions = new Map(paths.map((file) => [file, decide(ours.get(file), theirs.get(file), labels)] as const));
  for (const [file, reason] of fileDirectoryClashes(ours, theirs)) decisions.set(file, { kind: 'conflict', reason });

  const toRead = [...decisions.values()].flatMap((d) => (d.kind === 'merge' ? [d.ours, d.theirs, ...(d.base ? [d.base] : [])] : []));
  const blobs = await scratch.readBlobs(toRead);

  const files = new Map<string, StepFile>();
  const regions: ConflictRegion[] = [];
  const entries: { path: string; mode: string; sha: string }[] = [];
  let stageMs = 0;
  for (const [file, decision] of decisions) {
    if (decision.kind === 'conflict') {
      files.set(file, { outcome: 'conflict', naiveConflicts: 0, conflictReason: decision.reason });
      continue;
    }
    if (decision.kind === 'take') {
      files.set(file, { outcome: decision.outcome, naiveConflicts: 0 });
      entries.push({ path: file, mode: decision.mode, sha: decision.sha });
      continue;
    }
    const versions = {
      ours: blobs.get(decision.ours)!,
      base: decision.base ? blobs.get(decision.base)! : Buffer.alloc(0),
      theirs: blobs.get(decision.theirs)!,
    };
    if (isBinary(versions.ours) || isBinary(versions.base) || isBinary(versions.theirs)) {
      files.set(file, { outcome: 'conflict', naiveConflicts: 0, conflictReason: `binary file changed by ${labels.ours} and ${labels.theirs}` });
      continue;
    }
    const naive = await mergeFile(scratch.dir, versions, labels);
    const lines = splitLines(naive.content.toString('utf8'));
    const located = locateRegions(lines, labels, contextLines);
    const naiveConflicts = located.length || naive.conflicts;
    let content = naive.content;
    let outcome: FileOutcome = 'merged';
    if (naiveConflicts > 0) {
      regions.push(...located.map((region) => toConflictRegion(file, lines, region)));
      const stageStarted = performance.now();
      content = await stage.resolve({ path: file, naive: naive.content, lines, regions: located, versions, labels, workDir: scratch.dir });
      stageMs += performance.now() - stageStarted;
      outcome = stage.strategy;
    }
    files.set(file, { outcome, naiveConflicts });
    entries.push({ path: file, mode: decision.mode, sha: await scratch.writeBlob(content) });
  }

  if ([...files.values()].some((file) => file.outcome === 'conflict')) return { files, regions, stageMs };
  const index = await scratch.indexOf(baseTree);
  await scratch.updateIndex(index, entries);
  return { tree: await scratch.writeTree(index), files, regions, stageMs };
}

const isRegular = (mode: string): boolean => mode === '100644' || mode === '100755';

/** What to do with one path, given each side's change against the base. */
function decide(o: TreeChange | undefined, t: TreeChange | undefined, labels: MergeLabels): Decision {
  if (!o || !t) {
    const change = (o ?? t)!;
    return { kind: 'take', mode: change.newMode, sha: change.newSha, outcome: 'one_side' };
  }
  if (o.newMode === t.newMode && o.newSha === t.newSha) return { kind: 'take', mode: o.newMode, sha: o.newSha, outcome: 'identical' };
  if (o.newMode === ABSENT_MODE) return { kind: 'conflict', reason: `deleted by ${labels.ours}, modified by ${labels.theirs}` };
  if (t.newMode === ABSENT_MODE) return { kind: 'conflict', reason: `modified by ${labels.ours}, deleted by ${labels.theirs}` };

  const baseMode = o.oldMode;
  const mode = o.newMode === t.newMode ? o.newMode : o.newMode === baseMode ? t.newMode : t.newMode === baseMode ? o.newMode : undefined;
  if (!mode) return { kind: 'conflict', reason: `mode set to ${o.newMode} by ${labels.ours} and to ${t.newMode} by ${labels.theirs}` };

  // One side left the content alone (only its mode changed): the other side's content wins,
  // which is also what `git merge-file` would output.
  const baseSha = baseMode === ABSENT_MODE ? undefined : o.oldSha;
  if (o.newSha === t.newSha || o.newSha === baseSha) return { kind: 'take', mode, sha: t.newSha, outcome: 'merged' };
  if (t.newSha === baseSha) return { kind: 'take', mode, sha: o.newSha, outcome: 'merged' };
  if (![baseMode, o.newMode, t.newMode].every((m) => m === ABSENT_MODE || isRegular(m))) {
    return { kind: 'conflict', reason: `symlink or submodule changed by ${labels.ours} and ${labels.theirs}` };
  }
  return { kind: 'merge', mode, base: baseSha, ours: o.newSha, theirs: t.newSha };
}

/** A file added by one side where the other side added a directory of the same name. */
function fileDirectoryClashes(ours: Map<string, TreeChange>, theirs: Map<string, TreeChange>): Map<string, string> {
  const added = (changes: Map<string, TreeChange>): Set<string> =>
    new Set([...changes.values()].filter((c) => c.oldMode === ABSENT_MODE && c.newMode !== ABSENT_MODE).map((c) => c.path));
  const clashes = new Map<string, string>();
  const check = (files: Set<string>, otherFiles: Set<string>): void => {
    for (const file of files) {
      const parts = file.split('/');
      for (let i = 1; i < parts.length; i++) {
        const dir = parts.slice(0, i).join('/');
        if (otherFiles.has(dir)) {
          clashes.set(file, `added inside ${oneLine(dir, 120)}, which the other patch adds as a file`);
          clashes.set(dir, 'added as a file where the other patch adds a directory');
        }
      }
    }
  };
  const oursAdded = added(ours);
  const theirsAdded = added(theirs);
  check(oursAdded, theirsAdded);
  check(theirsAdded, oursAdded);
  return clashes;
}
