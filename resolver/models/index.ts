// Turns the resolver CLI options into a model (shared by `coop-bench merge` and `coop-bench run`).
import type { ResolverModel } from '../types.ts';
import { createLlamaCppResolverModel } from './llama-cpp-model.ts';
import { ResolverModelError } from './model-error.ts';
import { createOpenAIResolverModel } from './openai-model.ts';
import { loadPromptTemplate } from '../llm-prompt.ts';

export { ResolverModelError } from './model-error.ts';
export { createOpenAIResolverModel, type OpenAIResolverOptions } from './openai-model.ts';
export { createLlamaCppResolverModel, type LlamaCppResolverOptions } from './llama-cpp-model.ts';

/** The resolver the paper released (appendix B). */
export const DEFAULT_RESOLVER_MODEL = 'Qwen2.5-Coder-0.5B-Merge-Resolver';

export interface ResolverCliOptions {
  resolverUrl?: string;
  resolverModel?: string;
  resolverGguf?: string;
  /** Per request, in ms. */
  resolverTimeout?: number;
  /** A prompt template file (llm-prompt.ts); default: the shipped one. */
  resolverPrompt?: string;
}

/** undefined when no resolver is configured (the LLM stage is then skipped). Throws ResolverModelError. */
export function resolverModelFromOptions(options: ResolverCliOptions): ResolverModel | undefined {
  if (options.resolverUrl && options.resolverGguf) {
    throw new ResolverModelError('use either --resolver-url or --resolver-gguf, not both');
  }
  const promptTemplate = loadPromptTemplate(options.resolverPrompt);
  if (options.resolverUrl) {
    const model = createOpenAIResolverModel({
      baseURL: options.resolverUrl,
      model: options.resolverModel ?? DEFAULT_RESOLVER_MODEL,
      timeoutMs: options.resolverTimeout,
    });
    return { ...model, promptTemplate };
  }
  if (options.resolverGguf) return { ...createLlamaCppResolverModel({ modelPath: options.resolverGguf }), promptTemplate };
  return undefined;
}
