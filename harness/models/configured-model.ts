// What every adapter exposes of its resolved configuration; each adds its provider's call.
import { toModelError, type SdkErrors } from './errors.ts';
import type { ResolvedModel } from './resolved.ts';
import type { CompletionRequest, Model, ModelResponse } from './types.ts';

export abstract class ConfiguredModel implements Model {
  readonly spec: string;
  readonly id: string;
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;

  constructor(
    protected readonly config: ResolvedModel,
    /** How requests reach the server (default: the global fetch); the preflight goes through a CLI agent's model proxy with it. */
    protected readonly fetch?: typeof globalThis.fetch,
  ) {
    this.spec = config.spec;
    this.id = config.model;
    this.contextWindow = config.contextWindow;
    this.maxOutputTokens = config.maxOutputTokens;
  }

  abstract complete(request: CompletionRequest): Promise<ModelResponse>;

  /** The provider's answer and how long it took (retries included); its failure (of `sdk`'s classes) as a ModelError. */
  protected async timed<T>(sdk: SdkErrors, call: () => Promise<T>): Promise<{ answer: T; latencyMs: number }> {
    const started = performance.now();
    try {
      const answer = await call();
      return { answer, latencyMs: Math.round(performance.now() - started) };
    } catch (error) {
      throw toModelError(error, this.config, sdk);
    }
  }
}
