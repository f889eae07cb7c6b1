// From a spec and the user's settings to everything a call needs: provider, model id,
// server, key, limits and price. Every user-fixable problem is a one-line UserError here,
// so `checkModelSpecs` can report it before any container starts.
import path from 'node:path';
import { UserError } from '../errors.ts';
import { CATALOGUE, type CatalogueEntry, type ReasoningEffort } from './catalogue.ts';
import { loadPriceTable, priceFor, type ModelPrice } from './prices.ts';
import { lifecycleOf, type Lifecycle } from './retirements.ts';
import { runDate, settingsReader, type SettingsSource } from './settings.ts';
import { isHttpURL, parseModelSpec, type ParsedModelSpec, type Provider } from './specs.ts';

export { REASONING_EFFORTS, type ReasoningEffort } from './catalogue.ts';

export const DEFAULT_MAX_RETRIES = 6;
/** Per attempt: long agent turns with large outputs take minutes. */
export const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/**
 * Output tokens asked for when the user gives no --max-output-tokens: the model's own limit, at most
 * this (room for a large file in one tool call, or long reasoning, within the per-attempt timeout).
 */
export const DEFAULT_MAX_OUTPUT_TOKENS = 32_000;
/** Anthropic requires max_tokens: what a Claude model missing from the table is asked for. */
export const UNKNOWN_ANTHROPIC_MAX_OUTPUT_TOKENS = 8192;

/** Which of the provider's endpoints a model is called on. */
export type ModelApi = 'chat' | 'responses' | 'messages';
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
  provider: Provider;
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

const PROVIDER_SETTINGS: Record<Provider, { keyVariable: string; baseURLVariable: string; defaultBaseURL: string }> = {
  openai: { keyVariable: 'OPENAI_API_KEY', baseURLVariable: 'OPENAI_BASE_URL', defaultBaseURL: 'https://api.openai.com/v1' },
  anthropic: { keyVariable: 'ANTHROPIC_API_KEY', baseURLVariable: 'ANTHROPIC_BASE_URL', defaultBaseURL: 'https://api.anthropic.com' },
};

/** Sent to servers named in the spec when no key is set: vLLM, Ollama and llama.cpp ignore it. */
export const PLACEHOLDER_KEY = 'no-key-needed';
/**
 * The key for a server named in the spec (`openai:<model>@<url>`). Never the provider's own key:
 * a self-hosted or third-party endpoint must not receive the user's OpenAI or Anthropic key.
 */
export const ENDPOINT_KEY_VARIABLE = 'COOP_BENCH_ENDPOINT_API_KEY';

/** `model`: a spec parsed at the CLI (parseModelSpec), or a spec to parse now (a judge's, a test's). */
export function resolveModel(model: string | ParsedModelSpec, options: ModelOptions = {}): ResolvedModel {
  const parsed = typeof model === 'string' ? parseModelSpec(model) : model;
  const { spec } = parsed;
  const readSetting = settingsReader(options);
  const cwd = options.cwd ?? process.cwd();
  const pricesFile = options.pricesFile ?? readSetting('COOP_BENCH_PRICES');
  const prices = loadPriceTable(pricesFile && path.resolve(cwd, pricesFile));
  const settings = PROVIDER_SETTINGS[parsed.provider];
  const { baseURLVariable, defaultBaseURL } = settings;
  const keyVariable = parsed.baseURL ? ENDPOINT_KEY_VARIABLE : settings.keyVariable;
  const apiKey = readSetting(keyVariable) ?? (parsed.baseURL ? PLACEHOLDER_KEY : undefined);
  if (!apiKey) {
    throw new UserError(`no API key for model "${spec}": set ${keyVariable} in the environment or in ./.env`);
  }
  const baseURL = parsed.baseURL ?? readSetting(baseURLVariable) ?? defaultBaseURL;
  if (!isHttpURL(baseURL)) {
    throw new UserError(`${baseURLVariable} is not an http(s) URL ("${baseURL}"): fix it in the environment or in ./.env`);
  }
  const price = priceFor(prices, parsed.model);
  const entry = parsed.baseURL === undefined ? CATALOGUE.entry(parsed.model) : undefined;
  const effort = reasoningEffort(parsed, entry, options.reasoningEffort);
  const maxOutputTokens = outputBudget(spec, parsed.provider, parsed.model, price, options.maxOutputTokens);
  return {
    spec,
    provider: parsed.provider,
    model: parsed.model,
    baseURL,
    keyVariable,
    apiKey,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    api:
      parsed.provider === 'anthropic'
        ? 'messages'
        : (options.openaiApi ?? (parsed.baseURL === undefined && isOpenAIReasoningModel(parsed.model, entry) ? 'responses' : 'chat')),
    maxOutputTokens,
    price,
    contextWindow: promptBudget(spec, price, options.contextWindow ?? parsed.contextWindow, maxOutputTokens),
    ...effort,
    cacheTtl: options.cacheTtl ?? '5m',
    entry,
    lifecycle: lifecycleOf(entry, runDate(options, readSetting)),
  };
}

/**
 * The effort to send: only to an OpenAI model the catalogue lists with efforts, and only one of
 * them. Anthropic's adapter sends none; a server named in the spec, or a model the catalogue does
 * not list, may refuse the parameter (OpenAI: 400 "Unsupported parameter: 'reasoning_effort' is not
 * supported with this model"), so it is not sent there.
 */
function reasoningEffort(
  parsed: ParsedModelSpec,
  entry: CatalogueEntry | undefined,
  asked: ReasoningEffort | undefined,
): Pick<ResolvedModel, 'reasoningEffort' | 'effortNotSent'> {
  if (asked === undefined) return {};
  const { spec, model } = parsed;
  if (parsed.provider !== 'openai') return { effortNotSent: `--reasoning-effort is for OpenAI models: not sent to ${model} (${spec})` };
  if (parsed.baseURL !== undefined)
    return { effortNotSent: `--reasoning-effort is not sent to a server named in the spec (${spec}): such servers may refuse it` };
  if (!entry) return { effortNotSent: `--reasoning-effort is not sent to ${model} (${spec}): the model catalogue does not say it takes one` };
  const accepted = entry.reasoningEfforts;
  if (!accepted) return { effortNotSent: `--reasoning-effort is not sent to ${model} (${spec}): it takes no reasoning effort` };
  if (!accepted.includes(asked)) {
    throw new UserError(`--reasoning-effort ${asked} is not accepted by model ${model} (${spec}): use ${accepted.join(', ')}`);
  }
  return { reasoningEffort: asked };
}

/**
 * OpenAI's reasoning models, which keep their reasoning between turns only on the Responses API
 * (OpenAI's reasoning guide): those the catalogue lists with efforts, else by name. A server named
 * in the spec keeps Chat Completions: vLLM, Ollama and llama.cpp speak it, and few of them the
 * Responses API.
 */
export function isOpenAIReasoningModel(model: string, entry = CATALOGUE.entry(model)): boolean {
  return entry ? entry.reasoningEfforts !== undefined : /^(gpt-[5-9]|o1|o3|o4)([-.]|$)/.test(model);
}

function outputBudget(spec: string, provider: Provider, model: string, price: ModelPrice | undefined, asked: number | undefined): number | undefined {
  const limit = price?.maxOutputTokens;
  if (asked !== undefined) {
    if (limit !== undefined && asked > limit) {
      throw new UserError(`--max-output-tokens ${asked} is more than model ${model} (${spec}) can write (${limit}): give at most ${limit}`);
    }
    return asked;
  }
  if (limit !== undefined) return Math.min(limit, DEFAULT_MAX_OUTPUT_TOKENS);
  return provider === 'anthropic' ? UNKNOWN_ANTHROPIC_MAX_OUTPUT_TOKENS : undefined;
}

/** The window less the output set aside, within the provider's input limit if it has one. */
function promptBudget(spec: string, price: ModelPrice | undefined, givenWindow: number | undefined, maxOutputTokens: number | undefined): number | undefined {
  const window = price?.contextWindow ?? givenWindow;
  const fromWindow = window === undefined ? undefined : window - (maxOutputTokens ?? 0);
  const budget = fromWindow === undefined ? price?.inputLimit : Math.min(fromWindow, price?.inputLimit ?? fromWindow);
  if (budget !== undefined && budget <= 0) {
    throw new UserError(
      `the output budget of ${maxOutputTokens} tokens leaves no room for a prompt in the ${window}-token context window of ${spec}: lower --max-output-tokens`,
    );
  }
  return budget;
}
