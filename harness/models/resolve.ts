// From a spec and the user's settings to everything a call needs: provider, model id,
// server, key, limits and price. Every user-fixable problem is a one-line UserError here,
// so `checkModelSpecs` can report it before any container starts.
import path from 'node:path';
import { UserError } from '../errors.ts';
import { DEFAULT_CONTEXT_WINDOW, loadPriceTable, priceFor, type ModelPrice } from './prices.ts';
import { settingsReader, type SettingsSource } from './settings.ts';
import { isHttpURL, parseModelSpec, type Provider } from './specs.ts';

export const DEFAULT_MAX_RETRIES = 6;
/** Per attempt: long agent turns with large outputs take minutes. */
export const DEFAULT_TIMEOUT_MS = 10 * 60_000;

export interface ModelOptions extends SettingsSource {
  /** JSON price file merged over the built-in table (default: $COOP_BENCH_PRICES, if set). */
  pricesFile?: string;
  /** Retries after the first attempt on 408/409/429/5xx, timeouts and connection errors. */
  maxRetries?: number;
  /** Timeout of one attempt, in milliseconds. */
  timeoutMs?: number;
  /** Output limit when a request gives none (Anthropic needs one: 8192 if unset; OpenAI: the model's own). */
  maxOutputTokens?: number;
  /** Where the "no price for this model" warning goes (default: console.warn). */
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
  maxOutputTokens?: number;
  /** Undefined when the model is not in the price table: its calls cost 0. */
  price?: ModelPrice;
  contextWindow: number;
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

export function resolveModel(spec: string, options: ModelOptions = {}): ResolvedModel {
  const parsed = parseModelSpec(spec);
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
  return {
    spec,
    provider: parsed.provider,
    model: parsed.model,
    baseURL,
    keyVariable,
    apiKey,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxOutputTokens: options.maxOutputTokens,
    price,
    contextWindow: price?.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
  };
}
