// The merge stage's public entry points.
export type * from './types.ts';
export { mergePatches, type MergeOptions } from './merge.ts';
export { resolveWithModel, NO_RESOLVER, type LlmStageOptions } from './llm-stage.ts';
export { MergeSetupError } from './git.ts';
export { isTestPath, dropTestFiles } from './test-files.ts';
export { DEFAULT_CONTEXT_LINES } from './conflict-regions.ts';
export {
  resolverModelFromOptions, createOpenAIResolverModel, createLlamaCppResolverModel,
  ResolverModelError, DEFAULT_RESOLVER_MODEL, type ResolverCliOptions,
} from './models/index.ts';
