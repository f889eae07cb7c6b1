// The merge stage's interface: two agents' patches in, one merged patch out.

/** Which stage produced the tested code (paper, table 6). */
export type MergeStrategy = 'naive' | 'union' | 'llm';

/**
 * clean: naive merge had no conflict. union/llm: naive conflicted and that stage produced the code.
 * conflict: no stage produced conflict-free code. missing_input: a patch did not apply to the base.
 */
export type MergeStatus = 'clean' | 'union' | 'llm' | 'conflict' | 'missing_input';

export interface MergeInput {
  /** A git repository on the host holding the base commit. */
  repoDir: string;
  /** Revision of the base (commit id or ref). */
  baseRev: string;
  /** Agents' patches (unified diffs against the base), in agent order. */
  patches: string[];
}

export interface FileMerge {
  path: string;
  /** Indices of the patches that touch this file. */
  touchedBy: number[];
  /** Conflict regions left by the naive merge (0 when clean or touched by one patch). */
  naiveConflicts: number;
  /** How this file's merged content was obtained. */
  outcome?: FileOutcome;
  /** Why this file could not be merged (outcome 'conflict'), for people; bounded. */
  conflictReason?: string;
}

/**
 * one_side: only one patch touched the file. identical: both made the same change.
 * merged: `git merge-file` merged it without conflict. union/llm: that stage resolved its conflicts.
 * conflict: no stage can merge it (delete vs modify, binary, mode or file/directory clash).
 */
export type FileOutcome = 'one_side' | 'identical' | 'merged' | 'union' | 'llm' | 'conflict';

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
  /** Strategy that produced `patch`; undefined for conflict and missing_input. */
  strategy?: MergeStrategy;
  /** Unified diff of the merged tree against the base; '' when there is nothing to test. */
  patch: string;
  files: FileMerge[];
  conflictRegions: ConflictRegion[];
  /** Test files removed from each input patch (agents cannot edit the hidden tests). */
  droppedTestFiles: string[][];
  /** Why the merge is conflict/missing_input, for people. */
  reason?: string;
  timingsMs: { naive: number; union?: number; llm?: number; apply?: number; total?: number };
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

/** Outcome of the LLM stage (paper appendix B). */
export interface LlmStageResult {
  /** The merge with every conflict region resolved by the model; undefined: keep the union result. */
  resolved?: MergeResult;
  accepted: boolean;
  /** The stage did not run: no model configured, or nothing for it to resolve. */
  skippedReason?: string;
  /** The first region whose answer was rejected, and why. */
  rejectedReason?: string;
  regions: RegionResolution[];
  latencyMs: number;
  model?: string;
}
