// The merge without tests (pool validation's matrix, the benchmark): the cascade's naive and union
// stages, as upstream's `git merge` runs them.
import { runCascade } from './cascade.ts';
import type { GitTrace } from './git.ts';
import type { MergeInput, MergeResult } from './types.ts';

export interface MergeOptions {
  /** Lines of context around each conflict region (default 5). */
  contextLines?: number;
  trace?: GitTrace;
}

/** Merges the agents' patches. Throws MergeSetupError for a bad repo or revision. */
export async function mergePatches(input: MergeInput, options: MergeOptions = {}): Promise<MergeResult> {
  return (await runCascade(input, { ...options, probes: false })).merge;
}
