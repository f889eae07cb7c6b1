// The merge stage's public entry points.
export type * from './types.ts';
export { mergePatches, type MergeOptions } from './merge.ts';
export { runCascade, patchHash, type CascadeOptions, type CascadeResult, type Tester } from './cascade.ts';
export { MERGE_STAGES, MERGE_STATUSES, NO_CODE_STATUSES, stageNamed, cascadeRoles, CASCADE_STAGES, DEFAULT_CASCADE } from './stages/index.ts';
export { passesAfterStructural, type StructuralFile } from './stages/structural.ts';
export { ATTEMPT_OUTCOMES, REPAIRED_PATCH_ATTEMPT, attemptOf, type AttemptOutcome, type MergeAttempt, type MergeStage } from './stages/stage.ts';
export { NO_RESOLVER } from './stages/llm.ts';
export { orderEffect } from './stages/union-reversed.ts';
export { MergeSetupError, type GitTrace, type GitCommand } from './git.ts';
export { isTestPath, dropTestFiles } from './test-files.ts';
export { applyToBase, type BaseApply } from './apply-to-base.ts';
export { DEFAULT_CONTEXT_LINES } from './conflict-regions.ts';
export {
  resolverModelFromOptions,
  createOpenAIResolverModel,
  createLlamaCppResolverModel,
  ResolverModelError,
  DEFAULT_RESOLVER_MODEL,
  type ResolverCliOptions,
} from './models/index.ts';
