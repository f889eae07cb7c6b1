// What a resolved model spec holds and the user's settings it was resolved with: the types the
// provider entries (providers/) and their adapters read, apart from the resolving itself (resolve.ts).
import type { CatalogueEntry, ReasoningEffort } from './catalogue.ts';
import type { ModelPrice } from './prices.ts';
import type { Lifecycle } from './retirements.ts';
import type { SettingsSource } from './settings.ts';

/** Which of its provider's endpoints a model is called on (`chat`, `responses`, `messages`): the provider's `api` chooses, its `create` reads it. */
export type ModelApi = string;
export type CacheTtl = '5m' | '1h';

export interface ModelOptions extends SettingsSource {
  /** JSON price file merged over the built-in table (default: $COOP_BENCH_PRICES, if set). */
  pricesFile?: string;
  /** Retries after the first attempt on 408/409/429/5xx, timeouts and connection errors. */
  maxRetries?: number;
  /** Timeout of one attempt, in milliseconds. */
  timeoutMs?: number;
  /** Output limit when a request gives none; default: the model's, at most DEFAULT_MAX_OUTPUT_TOKENS. */
  maxOutputTokens?: number;
  /** Context window of models the price table does not know (--context-window). */
  contextWindow?: number;
  /** --reasoning-effort: sent to the OpenAI models the catalogue lists with efforts, if the model takes it. */
  reasoningEffort?: ReasoningEffort;
  /** --openai-api: force Chat Completions or the Responses API for OpenAI specs. */
  openaiApi?: 'chat' | 'responses';
  /** Lifetime of Anthropic prompt cache entries (default 5m). */
  cacheTtl?: CacheTtl;
  /** Where the warnings about a model go (no price for it, its retirement; default: console.warn). */
  warn?: (message: string) => void;
}

export interface ResolvedModel {
  spec: string;
  /** The name of its provider's registry entry (providers/index.ts). */
  provider: string;
  model: string;
  baseURL: string;
  keyVariable: string;
  apiKey: string;
  maxRetries: number;
  timeoutMs: number;
  api: ModelApi;
  /** Output tokens asked for; undefined: none sent (an OpenAI-compatible server sizes it itself). */
  maxOutputTokens?: number;
  /** Undefined when the model is not in the price table: its calls cost 0. */
  price?: ModelPrice;
  /** Tokens a prompt may hold, the output budget set aside; undefined: unknown. */
  contextWindow?: number;
  /** Sent only to a model the catalogue says accepts it (others answer 400). */
  reasoningEffort?: ReasoningEffort;
  /** Why a --reasoning-effort the user gave is not sent to this model. */
  effortNotSent?: string;
  cacheTtl: CacheTtl;
  /** The model's catalogue entry; undefined for a model the catalogue does not list. */
  entry?: CatalogueEntry;
  /** Where the model stands on the run's date. */
  lifecycle: Lifecycle;
}
