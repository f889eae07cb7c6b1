// Model specs on the command line (`gpt-5`, `claude`, `<provider>:<model>`,
// `<provider>:<model>@<base-url>`) to a provider, a concrete model id and an optional server.
import { UserError } from '../errors.ts';
import { CATALOGUE } from './catalogue.ts';
import { providerNames, type Provider } from './providers/index.ts';

/** A spec parsed once, at the CLI: everything downstream reads this value, never the spec again. */
export interface ParsedModelSpec {
  spec: string;
  provider: Provider;
  /** Concrete model id sent to the provider. */
  model: string;
  /** Server given after `@` in the spec: a local or self-hosted OpenAI-compatible endpoint. */
  baseURL?: string;
  /** The context window its server reported (context-window.ts), for a model the catalogue does not know. */
  contextWindow?: number;
}

/**
 * The aliases and the concrete models they stand for, from the catalogue (catalogue.json):
 * `gpt-5` is the CooperBench paper's model, `claude` the current Sonnet.
 */
export const MODEL_ALIASES: Readonly<Record<string, { provider: Provider; model: string }>> = Object.fromEntries(
  CATALOGUE.models.flatMap((entry) => entry.aliases.map((alias) => [alias, { provider: entry.provider, model: entry.id }])),
);

/** Every form a model spec may take, one per registered provider: the one list help texts and errors quote. */
export function modelSpecForms(): string[] {
  const providers = providerNames();
  return [
    ...Object.keys(MODEL_ALIASES),
    ...providers.map((provider) => `${provider}:<model>`),
    ...providers.map((provider) => `${provider}:<model>@<base-url>`),
  ];
}

/** A spec in none of the model forms; whoever accepts other specs too (agents/registry.ts) names them. */
export class UnknownModelSpec extends UserError {
  constructor(
    readonly spec: string,
    otherForms: readonly string[] = [],
  ) {
    super(`unknown model "${spec}": use ${[...modelSpecForms(), ...otherForms].join(', ')}`);
  }
}

/** Throws UnknownModelSpec when the spec has no model form, a one-line UserError when its server is bad. */
export function parseModelSpec(spec: string): ParsedModelSpec {
  const alias = MODEL_ALIASES[spec];
  if (alias) return { spec, ...alias };

  const colon = spec.indexOf(':');
  const provider: Provider = spec.slice(0, colon);
  const rest = spec.slice(colon + 1);
  if (colon < 0 || !providerNames().includes(provider) || rest === '') throw new UnknownModelSpec(spec);
  const at = rest.indexOf('@');
  if (at < 0) return { spec, provider, model: rest };

  const model = rest.slice(0, at);
  const baseURL = rest.slice(at + 1);
  if (model === '' || !isHttpURL(baseURL)) {
    throw new UserError(
      `bad model spec "${spec}": write ${provider}:<model>@<base-url> with a URL that starts with http:// or https:// (e.g. ${provider}:qwen2.5-coder@http://localhost:8000/v1)`,
    );
  }
  return { spec, provider, model, baseURL };
}

/** Whether `spec` is a valid LLM spec (as opposed to `oracle`, `noop` or a typo). */
export function isModelSpec(spec: string): boolean {
  try {
    parseModelSpec(spec);
    return true;
  } catch {
    return false;
  }
}

export function isHttpURL(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export { undatedModelId } from './model-ids.ts';
