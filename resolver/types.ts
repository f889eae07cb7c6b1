// The merge stage's interface: agents' patches in, the code to test out.

/**
 * The status of a merge: the status of the stage whose code is the result (`clean` for the naive
 * merge, `union`, `llm`: see stages/index.ts), `conflict` when no stage produced code, or
 * `missing_input` when a patch did not apply to the base.
 */
export type MergeStatus = string;

export interface MergeInput {
  /** A git repository on the host holding the base commit. */
  repoDir: string;
  /** Revision of the base (commit id or ref). */
  baseRev: string;
  /** Agents' patches (unified diffs against the base), in agent order. */
  patches: string[];
}

/** Labels of a conflict's sides in markers and prompts: `patch_2` (the checked-out side) and `patch_1`. */
export interface MergeLabels {
  ours: string;
  base: string;
  theirs: string;
}

export interface FileMerge {
  path: string;
  /** Indices of the patches that touch this file. */
  touchedBy: number[];
  /** Conflict regions the naive merge left in it. */
  naiveConflicts: number;
  /**
   * How its merged content was obtained. one_side: one patch touched it. identical: the patches made
   * the same change. merged: git merged it without conflict. A stage name (union, llm): that stage
   * resolved its conflicts. conflict: nothing could (delete vs modify, binary, ...).
   */
  outcome?: string;
  /** Why this file could not be merged (outcome 'conflict'), for people; bounded. */
  conflictReason?: string;
}

/** A naive-merge conflict region with its surrounding context, as the LLM stage sees it. */
export interface ConflictRegion {
  path: string;
  /** Text between and including the conflict markers. */
  marked: string;
  /** Up to N lines before and after the region. */
  before: string;
  after: string;
  /** 1-based line of the `<<<<<<<` marker in the naive merge output of the file. */
  startLine?: number;
}

export interface MergeResult {
  status: MergeStatus;
  /** The stage that produced `patch`; undefined for conflict and missing_input. */
  strategy?: string;
  /** Unified diff of the merged tree against the base; '' when there is nothing to test. */
  patch: string;
  files: FileMerge[];
  conflictRegions: ConflictRegion[];
  /** Test files removed from each input patch (agents cannot edit the hidden tests). */
  droppedTestFiles: string[][];
  /** Why the merge is conflict/missing_input, for people. */
  reason?: string;
  /** Milliseconds: `apply`, each stage that ran, `total`. */
  timingsMs: Record<string, number>;
}

/** The small model behind the LLM stage: one prompt in, one completion out (temperature 0). */
export interface ResolverModel {
  /** For reports, e.g. `Qwen2.5-Coder-0.5B-Merge-Resolver@http://127.0.0.1:8080/v1`. */
  name: string;
  /** The prompt template it is asked with (llm-prompt.ts); default: the shipped one. */
  promptTemplate?: string;
  /** Throws ResolverModelError (one line) when the backend is unavailable. */
  complete(prompt: string): Promise<string>;
  /** Frees the backend (the embedded model); optional. */
  close?(): Promise<void>;
}

/** What the model did with one conflict region. */
export interface RegionResolution {
  region: ConflictRegion;
  accepted: boolean;
  rejectedReason?: string;
  /** The model's answer, bounded, for people. */
  answer?: string;
  latencyMs: number;
}
