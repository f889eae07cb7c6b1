// The labels of conflict markers. (The name stays while resolver/llm-prompt.ts imports the type from
// here; the merge itself is `git merge-tree`, see merge-tree.ts.)
export type { MergeLabels } from './types.ts';
