// From a spec and the user's settings to everything a call needs: provider, model id,
// server, key, limits and price. Every user-fixable problem is a one-line UserError here,
// so `checkModelSpecs` can report it before any container starts.
import path from 'node:path';
import { UserError } from '../errors.ts';
import { CATALOGUE, type CatalogueEntry, type ReasoningEffort } from './catalogue.ts';
import { loadPriceTable, priceFor, type ModelPrice } from './prices.ts';
import { providerFor, type ModelProvider } from './providers/index.ts';
import type { ModelOptions, ResolvedModel } from './resolved.ts';
import { lifecycleOf } from './retirements.ts';
import { runDate, settingsReader } from './settings.ts';
import { isHttpURL, parseModelSpec, type ParsedModelSpec } from './specs.ts';

export { REASONING_EFFORTS, type ReasoningEffort } from './catalogue.ts';
export type { CacheTtl, ModelApi, ModelOptions, ResolvedModel } from './resolved.ts';

export const DEFAULT_MAX_RETRIES = 6;
/** Per attempt: long agent turns with large outputs take minutes. */
export const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/**
 * Output tokens asked for when the user gives no --max-output-tokens: the model's own limit, at most
 * this (room for a large file in one tool call, or long reasoning, within the per-attempt timeout).
 */
export const DEFAULT_MAX_OUTPUT_TOKENS = 32_000;
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
  const provider = providerFor(parsed.provider);
  const { baseURLVariable, defaultBaseURL } = provider;
  const keyVariable = parsed.baseURL ? ENDPOINT_KEY_VARIABLE : provider.keyVariable;
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
  const effort = reasoningEffort(parsed, provider, entry, options.reasoningEffort);
  const maxOutputTokens = outputBudget(spec, provider, parsed.model, price, options.maxOutputTokens);
  return {
    spec,
    provider: parsed.provider,
    model: parsed.model,
    baseURL,
    keyVariable,
    apiKey,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    api: provider.api({ model: parsed.model, baseURL: parsed.baseURL, entry }, options),
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
 * The effort to send: only to a model of a provider that takes one (OpenAI) that the catalogue lists
 * with efforts, and only one of them. Other providers' adapters send none; a server named in the spec, or a model the catalogue does
 * not list, may refuse the parameter (OpenAI: 400 "Unsupported parameter: 'reasoning_effort' is not
 * supported with this model"), so it is not sent there.
 */
function reasoningEffort(
  parsed: ParsedModelSpec,
  provider: ModelProvider,
  entry: CatalogueEntry | undefined,
  asked: ReasoningEffort | undefined,
): Pick<ResolvedModel, 'reasoningEffort' | 'effortNotSent'> {
  if (asked === undefined) return {};
  const { spec, model } = parsed;
  if (!provider.takesReasoningEffort) return { effortNotSent: `--reasoning-effort is not sent to ${model} (${spec}): provider ${provider.name} takes none` };
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

function outputBudget(spec: string, provider: ModelProvider, model: string, price: ModelPrice | undefined, asked: number | undefined): number | undefined {
  const limit = price?.maxOutputTokens;
  if (asked !== undefined) {
    if (limit !== undefined && asked > limit) {
      throw new UserError(`--max-output-tokens ${asked} is more than model ${model} (${spec}) can write (${limit}): give at most ${limit}`);
    }
    return asked;
  }
  if (limit !== undefined) return Math.min(limit, DEFAULT_MAX_OUTPUT_TOKENS);
  return provider.unknownModelMaxOutputTokens;
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
