// What coop-bench knows of one model provider: an entry of the registry (index.ts). Everything
// provider-specific outside the adapters (its key, its server, the endpoint a model is called on,
// output and context-window defaults, what an agent CLI's model proxy forwards and how it reads
// an answer's usage) is read from here.
import type { CatalogueEntry } from '../catalogue.ts';
import type { ModelApi, ModelOptions, ResolvedModel } from '../resolved.ts';
import type { Model } from '../types.ts';

/** A provider's name: the spec prefix, the catalogue's and the run's `provider`. */
export type Provider = ModelProvider['name'];

export interface ModelProvider {
  /** The spec prefix (`<name>:<model>`, `<name>:<model>@<base-url>`) and the catalogue's `provider`. */
  name: string;
  /** The provider's own key; never sent to a server named in a spec (that one gets COOP_BENCH_ENDPOINT_API_KEY). */
  keyVariable: string;
  /** Where to send its calls instead of `defaultBaseURL` (a gateway, a compatible server). */
  baseURLVariable: string;
  defaultBaseURL: string;
  /**
   * The endpoint a model is called on (what `create` builds an adapter for). `entry`: the model's
   * catalogue entry, undefined for a model it does not list or a server named in the spec (`baseURL`).
   */
  api(model: { model: string; baseURL?: string; entry?: CatalogueEntry }, options: ModelOptions): ModelApi;
  /** Output tokens asked for by each call of a model the catalogue does not know; undefined: none (the server sizes it). */
  unknownModelMaxOutputTokens?: number;
  /** It takes --reasoning-effort (sent to the models the catalogue lists with efforts). */
  takesReasoningEffort: boolean;
  /** The context window its server reports for a model the catalogue does not know; absent: it reports none. */
  serverContextWindow?(model: ResolvedModel): Promise<number | undefined>;
  /** The Model of a resolved spec; `fetch`: how its requests travel (default: the global fetch). */
  create(model: ResolvedModel, fetch?: typeof globalThis.fetch): Model;
  /** What an agent CLI's model proxy forwards to it; absent: no agent CLI speaks this provider's API. */
  proxy?: ProxyApi;
}

/** The provider's API as an agent CLI's model proxy (harness/agents/cli/model-proxy.ts) forwards it. */
export interface ProxyApi {
  /** POST routes forwarded: `model` calls are counted as steps and costed, `free` ones are not. Nothing else is. */
  routes: Readonly<Record<string, 'model' | 'free'>>;
  /** The part of every route its base URLs hold (OpenAI's end in /v1, Anthropic's do not): each route starts with it, and goes upstream without it. */
  basePath: '' | '/v1';
  /** The endpoint (`api`) the CLIs call through the proxy: the preflight calls it so too. */
  api: ModelApi;
  /** The headers that carry the user's key upstream. */
  keyHeaders(apiKey: string): Record<string, string>;
  /** An error in the provider's own format, so that a CLI reports the proxy's refusals as it would the provider's. */
  errorBody(type: string, message: string): string;
  /** The error type of a 503 the proxy answers when it holds too much at once. */
  busyErrorType: string;
  /** Reads one answer's usage, whole (JSON) or event by event. */
  usage: UsageReader;
}

export interface CallTokens {
  /** All input tokens, including those read from or written to the prompt cache. */
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  /** The part of inputTokens written to the prompt cache for 5 minutes. */
  cacheWriteTokens: number;
  /** The part of inputTokens written to the prompt cache for 1 hour. */
  cacheWrite1hTokens: number;
  reasoningTokens: number;
}

/** An error event inside a stream whose HTTP status was 200, as the HTTP status it stands for. */
export interface StreamFailure {
  status: number;
  message: string;
}

/** What one answer says, filled in as it is read. */
export interface CallReading {
  readonly tokens: CallTokens;
  /** The stream's first error event. */
  failure: StreamFailure | undefined;
  /** The model declined on its provider's safety policy. */
  declined: boolean;
}

export type Json = Record<string, unknown>;

/** Counted the way the provider's adapter counts a call, so the built-in agent's and the CLIs' costs compare. */
export interface UsageReader {
  /** A whole JSON answer (undefined when it is none). */
  answer(body: Json | undefined, into: CallReading): void;
  /** One server-sent event's data. */
  event(event: Json, into: CallReading): void;
}

export function object(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/** A token count, or 0 for anything that is not one. */
export function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** `<code>: <message>` of an error event, each part bounded, either left out when absent. */
export function said(code: unknown, message: unknown): string {
  return [code, message]
    .filter((part): part is string => typeof part === 'string' && part !== '')
    .map((part) => part.slice(0, 300))
    .join(': ');
}
