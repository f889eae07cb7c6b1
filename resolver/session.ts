// The work shared by the stages of one merge: each patch applied to the base (test files dropped),
// and folds of the patches in a given order, each step a `git merge` of the merge so far into the
// next patch's branch, as upstream's (cooperbench/CooperBench, eval/sandbox.py):
//   git checkout agent2 && git merge agent1 --no-commit --no-ff
// so for two patches the second is "ours" and the union writes its lines first. With N patches,
// step k checks out patch k's branch and merges the merge of patches 1..k-1 into it.
import { oneLine } from './bounded-text.ts';
import { AttributeFolders, ROOT_ATTRIBUTES, isAttributesPath } from './attributes.ts';
import { DEFAULT_CONTEXT_LINES, locateRegions, relabelMarkers, splitLines, toConflictRegion, type LocatedRegion } from './conflict-regions.ts';
import { ABSENT_MODE, GitScratch, commitObject, type GitTrace, type TreeChange, type TreeEntry } from './git.ts';
import type { MergeLabels } from './types.ts';
import { mergeTree, type ConflictedPath, type TreeMerge } from './merge-tree.ts';
import { dropTestFiles } from './test-files.ts';
import type { ConflictRegion, FileMerge, MergeInput, MergeResult } from './types.ts';

/** A file whose step merge left conflict markers, handed to the stage that resolves it. */
export interface ConflictedFile {
  path: string;
  /** The merged file with git's markers, labelled `patch_<k>`. */
  naive: Buffer;
  lines: string[];
  regions: LocatedRegion[];
  labels: MergeLabels;
  /** Blob ids of its base, ours and theirs versions (absent: the version has no such file). */
  versions: { base?: string; ours?: string; theirs?: string };
}

/** What a fold does with a step that conflicts. */
export type StepResolution =
  /** Nothing: the fold stops (the naive merge). */
  | { kind: 'none' }
  /** Upstream's union merge of the step: `* merge=union` appended to .gitattributes, merge again. */
  | { kind: 'union' }
  /**
   * Each conflicted file's content from `resolve` (the LLM and structural stages), or why it stays
   * conflicted; any other conflict stops the fold.
   */
  | { kind: 'resolve'; resolve(file: ConflictedFile): Promise<Buffer | { unresolved: string }> };

export interface FoldStep {
  labels: MergeLabels;
  /** The step's merge without resolution (conflict markers two-sided). */
  naive: TreeMerge;
  /** Paths the naive merge conflicted on (git's stand-in names relabelled, e.g. `lib~patch_1`). */
  conflicted: string[];
  /** Conflict regions of the naive merge's files. */
  regions: Map<string, ConflictRegion[]>;
  /** Conflicts the resolution left: path -> why, for people. */
  unresolved: Map<string, string>;
}

export interface Fold {
  /** The merged tree; undefined when a step's conflicts were left unresolved. */
  tree?: string;
  steps: FoldStep[];
  resolution: StepResolution['kind'];
}

/** Patch indices in agent order, and reversed (the other order of the order probe). */
export const forwardOrder = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
export const reversedOrder = (n: number): number[] => forwardOrder(n).reverse();

const patchLabel = (indices: number[]): string => `patch_${indices.map((i) => i + 1).join('+')}`;

// Naive merges pin the marker style to two sides: the regions go to the LLM stage and into reports.
// Union merges keep the repository's own setting, as upstream's `git merge` does (it changes the union).
const NAIVE_CONFIG = ['merge.conflictStyle=merge'];

export interface SessionOptions {
  /** Lines of context around each conflict region (default 5). */
  contextLines?: number;
  trace?: GitTrace;
}

export class MergeSession {
  private readonly commits = new Map<string, Promise<string>>();
  private readonly merges = new Map<string, Promise<TreeMerge>>();
  private written: Promise<void> = Promise.resolve();

  private constructor(
    readonly scratch: GitScratch,
    readonly input: MergeInput,
    readonly baseTree: string,
    /** Each patch applied to the base. */
    readonly trees: string[],
    /** Each patch's changes against the base (no rename detection). */
    readonly changes: Map<string, TreeChange>[],
    readonly droppedTestFiles: string[][],
    private readonly attributes: AttributeFolders,
    /** Lines of context around each conflict region. */
    readonly contextLines: number,
  ) {}

  /**
   * Applies every patch to the base, or says which do not apply (missing input: `failures`).
   * Throws MergeSetupError for a bad repository or revision.
   */
  static async open(input: MergeInput, options: SessionOptions = {}): Promise<{ session: MergeSession; failures: string[] }> {
    if (input.patches.length === 0) throw new Error('a merge needs at least one patch');
    const { scratch, baseTree, fileMode } = await GitScratch.open(input.repoDir, input.baseRev, options.trace);
    try {
      const filtered = input.patches.map(dropTestFiles);
      const baseIndex = filtered.some(({ patch }) => patch.trim() !== '') ? await scratch.indexOf(baseTree) : undefined;
      const applied = await Promise.all(filtered.map(({ patch }) => applyPatch(scratch, baseTree, baseIndex, patch, fileMode)));
      const failures = applied.flatMap((a, i) => (a.error ? [`patch ${i + 1} does not apply to ${oneLine(input.baseRev, 60)}: ${oneLine(a.error, 300)}`] : []));
      const changes = await scratch.changesFrom(
        baseTree,
        applied.map((a) => a.tree),
      );
      const touchAttributes = changes.some((c) => [...c.keys()].some(isAttributesPath));
      const session = new MergeSession(
        scratch,
        input,
        baseTree,
        applied.map((a) => a.tree),
        changes,
        filtered.map((f) => f.dropped),
        new AttributeFolders(scratch, baseTree, touchAttributes),
        options.contextLines ?? DEFAULT_CONTEXT_LINES,
      );
      return { session, failures };
    } catch (error) {
      await scratch.dispose();
      throw error;
    }
  }

  dispose(): Promise<void> {
    return this.scratch.dispose();
  }

  /** Merges the patches in `order`, resolving conflicted steps as `resolution` says. */
  async fold(order: number[], resolution: StepResolution): Promise<Fold> {
    const steps: FoldStep[] = [];
    let merged = this.trees[order[0]!]!;
    for (let k = 1; k < order.length; k++) {
      const labels: MergeLabels = { ours: patchLabel([order[k]!]), base: 'repo_state', theirs: patchLabel(order.slice(0, k)) };
      const ours = this.trees[order[k]!]!;
      const step = await this.step(ours, merged, labels, resolution);
      steps.push(step.step);
      if (!step.tree) return { steps, resolution: resolution.kind };
      merged = step.tree;
    }
    return { tree: merged, steps, resolution: resolution.kind };
  }

  private async step(oursTree: string, theirsTree: string, labels: MergeLabels, resolution: StepResolution): Promise<{ step: FoldStep; tree?: string }> {
    const [ours, theirs] = (await this.commitsOf([oursTree, theirsTree])) as [string, string];
    const naive = await this.merge(ours, theirs, await this.attributes.folderFor(oursTree, false), NAIVE_CONFIG);
    const files = await this.conflictedFiles(naive, { ours, theirs }, labels);
    const regions = new Map([...files].map(([file, found]) => [file, found.regions.map((region) => toConflictRegion(file, found.lines, region))]));
    // Git names the sides by what it merged (our commit ids), in messages and some stand-in paths.
    const relabel = (text: string) => text.replaceAll(ours, labels.ours).replaceAll(theirs, labels.theirs);
    const step: FoldStep = { labels, naive, conflicted: [...naive.conflicts.keys()].map(relabel), regions, unresolved: new Map() };
    if (naive.clean) return { step, tree: naive.tree };

    const leave = (conflict: ConflictedPath) => step.unresolved.set(relabel(conflict.path), oneLine(relabel(conflict.messages.join('; ') || 'conflict'), 300));
    if (resolution.kind === 'none') {
      for (const conflict of naive.conflicts.values()) leave(conflict);
      return { step };
    }
    if (resolution.kind === 'union') {
      const union = await this.merge(ours, theirs, await this.attributes.folderFor(oursTree, true));
      for (const conflict of union.conflicts.values()) leave(conflict);
      if (union.clean && !(await this.keepsRootAttributes(oursTree, union.tree))) {
        step.unresolved.set(
          ROOT_ATTRIBUTES,
          `upstream's union merge appends its line to ${ROOT_ATTRIBUTES} in the work tree, and git refuses to merge a change to it over that`,
        );
      }
      return step.unresolved.size > 0 ? { step } : { step, tree: union.tree };
    }
    const resolved: ConflictedFile[] = [];
    for (const conflict of naive.conflicts.values()) {
      const file = files.get(conflict.path);
      if (file && conflict.types.every((type) => type === 'CONFLICT (contents)')) resolved.push(file);
      else leave(conflict);
    }
    if (step.unresolved.size > 0) return { step };
    const modes = new Map(
      (
        await this.scratch.listTree(
          naive.tree,
          resolved.map((f) => f.path),
        )
      ).map((e) => [e.path, e.mode]),
    );
    const entries: TreeEntry[] = [];
    for (const file of resolved) {
      const content = await resolution.resolve(file);
      if (Buffer.isBuffer(content)) entries.push({ path: file.path, mode: modes.get(file.path)!, sha: await this.scratch.writeBlob(content) });
      else step.unresolved.set(relabel(file.path), oneLine(content.unresolved, 300));
    }
    if (step.unresolved.size > 0) return { step };
    const index = await this.scratch.indexOf(naive.tree);
    await this.scratch.updateIndex(index, entries);
    return { step, tree: await this.scratch.writeTree(index) };
  }

  /** Upstream's union `git merge` refuses to overwrite its own edit of the root .gitattributes. */
  private async keepsRootAttributes(oursTree: string, mergedTree: string): Promise<boolean> {
    const [ours, merged] = await Promise.all([this.attributes.filesOf(oursTree), this.attributes.filesOf(mergedTree)]);
    return ours.get(ROOT_ATTRIBUTES) === merged.get(ROOT_ATTRIBUTES);
  }

  /** The content-conflicted files of a merge, their markers relabelled from commit ids to patch names. */
  private async conflictedFiles(merge: TreeMerge, commits: { ours: string; theirs: string }, labels: MergeLabels): Promise<Map<string, ConflictedFile>> {
    const files = new Map<string, ConflictedFile>();
    // A path with a line break cannot be named to `git cat-file --batch`: its regions are not read.
    const paths = [...merge.conflicts.values()]
      .filter((c) => c.types.includes('CONFLICT (contents)') && !c.types.includes('CONFLICT (binary)') && !c.path.includes('\n'))
      .map((c) => c.path);
    const blobs = await this.scratch.readBlobs(paths.map((file) => `${merge.tree}:${file}`));
    for (const file of paths) {
      const naive = relabelMarkers(blobs.get(`${merge.tree}:${file}`)!, commits, labels);
      const lines = splitLines(naive.toString('utf8'));
      const regions = locateRegions(lines, labels, this.contextLines);
      const stage = (n: number) => merge.conflicts.get(file)!.stages.find((s) => s.stage === n)?.sha;
      const versions = { base: stage(1), ours: stage(2), theirs: stage(3) };
      if (regions.length > 0) files.set(file, { path: file, naive, lines, regions, labels, versions });
    }
    return files;
  }

  private merge(ours: string, theirs: string, workTree: string, config: string[] = []): Promise<TreeMerge> {
    const key = `${ours} ${theirs} ${workTree} ${config.join(' ')}`;
    let merge = this.merges.get(key);
    if (!merge) {
      merge = mergeTree(this.scratch, ours, theirs, workTree, config);
      this.merges.set(key, merge);
    }
    return merge;
  }

  /** Commits of these trees whose parent is the base, as each agent's branch is (written together). */
  private commitsOf(trees: string[]): Promise<string[]> {
    const base = commitObject(this.baseTree, []);
    const missing = [...new Set(trees)].filter((tree) => !this.commits.has(tree)).map((tree) => [tree, commitObject(tree, [base.id])] as const);
    if (missing.length > 0) {
      const batch = [...(this.commits.size === 0 ? [base] : []), ...missing.map(([, commit]) => commit)];
      // In turn: a batch's commits name the base, which the first batch writes.
      this.written = this.written.then(() => this.scratch.writeCommits(batch));
      for (const [tree, commit] of missing)
        this.commits.set(
          tree,
          this.written.then(() => commit.id),
        );
    }
    return Promise.all(trees.map((tree) => this.commits.get(tree)!));
  }

  /** The merge a fold produced, as a patch against the base with its files and regions. */
  async result(fold: Fold, stage: { name: string; status: string }): Promise<MergeResult> {
    const conflictRegions = fold.steps.flatMap((step) => [...step.regions.values()].flat());
    const unresolved = new Map(fold.steps.flatMap((step) => [...step.unresolved]));
    const files = this.fileMerges(fold, stage.name, unresolved);
    const droppedTestFiles = this.droppedTestFiles;
    if (!fold.tree) {
      const listed = [...unresolved].map(([file, why]) => `${oneLine(file, 120)} (${why})`);
      return {
        status: 'conflict',
        patch: '',
        files,
        conflictRegions,
        droppedTestFiles,
        timingsMs: {},
        reason: oneLine(`${unresolved.size} file(s) cannot be merged: ${listed.join('; ')}`, 600),
      };
    }
    const workTree = await this.attributes.folderFor(fold.tree, fold.resolution === 'union');
    const patch = fold.tree === this.baseTree ? '' : await this.scratch.diffPatch(this.baseTree, fold.tree, workTree);
    return { status: stage.status, strategy: stage.name, patch, files, conflictRegions, droppedTestFiles, timingsMs: {} };
  }

  private fileMerges(fold: Fold, stageName: string, unresolved: Map<string, string>): FileMerge[] {
    const files = new Map<string, FileMerge>();
    const entry = (file: string): FileMerge => {
      let found = files.get(file);
      if (!found) files.set(file, (found = { path: file, touchedBy: [], naiveConflicts: 0 }));
      return found;
    };
    this.changes.forEach((changed, i) => changed.forEach((_, file) => entry(file).touchedBy.push(i)));
    for (const step of fold.steps) {
      for (const conflicted of step.conflicted) {
        const file = entry(conflicted);
        file.naiveConflicts += step.regions.get(conflicted)?.length ?? 0;
        file.outcome = stageName;
      }
    }
    for (const [file, why] of unresolved) Object.assign(entry(file), { outcome: 'conflict', conflictReason: why });
    for (const file of files.values()) {
      if (file.outcome) continue;
      const versions = new Set(
        file.touchedBy.map((i) => {
          const c = this.changes[i]!.get(file.path)!;
          return `${c.newMode} ${c.newSha}`;
        }),
      );
      file.outcome = file.touchedBy.length < 2 ? 'one_side' : versions.size === 1 ? 'identical' : 'merged';
    }
    return [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}

export interface Applied {
  tree: string;
  error?: string;
}

/**
 * The base with one patch applied, as upstream's `git apply` + `git add -A` + commit leaves it.
 * With core.fileMode false (as the shipped pools' images set) `git add` keeps the recorded mode of an
 * existing file and records a new one as 100644: so does this, while `git apply --cached` would not.
 */
export async function applyPatch(scratch: GitScratch, baseTree: string, baseIndex: string | undefined, patch: string, fileMode: boolean): Promise<Applied> {
  if (patch.trim() === '' || !baseIndex) return { tree: baseTree };
  const index = await scratch.copyIndex(baseIndex);
  const error = await scratch.apply(index, patch);
  if (error) return { tree: baseTree, error };
  const tree = await scratch.writeTree(index);
  // Only a patch that sets a mode can record one that git add would not.
  if (fileMode || !/^(new mode|new file mode 100755)/m.test(patch)) return { tree };
  const regular = (mode: string) => mode === '100644' || mode === '100755';
  const modes = [...(await scratch.changes(baseTree, tree)).values()].flatMap((c): TreeEntry[] => {
    if (!regular(c.newMode)) return [];
    const kept = c.oldMode === ABSENT_MODE || !regular(c.oldMode) ? '100644' : c.oldMode;
    return kept === c.newMode ? [] : [{ path: c.path, mode: kept, sha: c.newSha }];
  });
  if (modes.length === 0) return { tree };
  await scratch.updateIndex(index, modes);
  return { tree: await scratch.writeTree(index) };
}
