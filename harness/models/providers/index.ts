// The model providers, one entry each: specs, keys, the preflight, `doctor`, context windows and
// the agent CLIs' model proxy read this list. Adding a provider is one file (a ModelProvider,
// provider.ts) and one line here.
import { CATALOGUE } from '../catalogue.ts';
import { anthropic } from './anthropic.ts';
import { openai } from './openai.ts';
import type { ModelProvider, ProxyApi } from './provider.ts';

export type { CallReading, CallTokens, ModelProvider, Provider, ProxyApi, StreamFailure, UsageReader } from './provider.ts';

const providers: ModelProvider[] = [openai, anthropic];

/** A proxy route outside its base path would be sent upstream cut short: an entry is checked when it is added. */
function checkEntry(provider: ModelProvider): void {
  const { proxy } = provider;
  const outside = proxy && Object.keys(proxy.routes).find((route) => !route.startsWith(`${proxy.basePath}/`));
  if (outside) throw new Error(`model provider ${provider.name}: proxy route ${outside} does not start with its basePath ${proxy.basePath}/`);
}
providers.forEach(checkEntry);

// The catalogue names its models' providers: each must be one of the list.
for (const entry of CATALOGUE.models) {
  if (!providers.some((p) => p.name === entry.provider)) {
    throw new Error(`bad harness/models/catalogue.json: ${entry.id}: provider: "${entry.provider}" is none of ${providerNames().join(', ')}`);
  }
}

/** Every provider, in the order help texts list them. */
export function modelProviders(): readonly ModelProvider[] {
  return providers;
}

export function providerNames(): string[] {
  return providers.map((p) => p.name);
}

/** The entry of a provider name a parsed spec holds (parseModelSpec accepts no other). */
export function providerFor(name: string): ModelProvider {
  const found = providers.find((p) => p.name === name);
  if (!found) throw new Error(`no model provider named ${name}: one of ${providerNames().join(', ')}`);
  return found;
}

/** The API an agent CLI of provider `name` speaks through its model proxy; throws for a provider no CLI speaks. */
export function proxyApi(name: string): ProxyApi {
  const api = providerFor(name).proxy;
  if (!api) throw new Error(`model provider ${name} has no API an agent CLI speaks (no proxy in its entry)`);
  return api;
}

/** Adds a provider at run time, as a line in the list above would (a test's provider). */
export function registerProvider(provider: ModelProvider): void {
  if (providers.some((p) => p.name === provider.name)) throw new Error(`a model provider named ${provider.name} is registered already`);
  checkEntry(provider);
  providers.push(provider);
}

/** Takes back a provider registerProvider added. */
export function unregisterProvider(name: string): void {
  const index = providers.findIndex((p) => p.name === name);
  if (index >= 0) providers.splice(index, 1);
}
