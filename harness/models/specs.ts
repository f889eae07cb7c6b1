// Model specs on the command line (`gpt-5`, `claude`, `openai:<model>`, `anthropic:<model>`,
// `openai:<model>@<base-url>`) to a provider, a concrete model id and an optional server.
import { UserError } from '../errors.ts';
import { CATALOGUE, PROVIDERS, type Provider } from './catalogue.ts';

export type { Provider } from './catalogue.ts';

export interface ParsedModelSpec {
  spec: string;
  provider: Provider;
  /** Concrete model id sent to the provider. */
  model: string;
  /** Server given after `@` in the spec: a local or self-hosted OpenAI-compatible endpoint. */
  baseURL?: string;
}

/**
 * The aliases and the concrete models they stand for, from the catalogue (catalogue.json):
 * `gpt-5` is the CooperBench paper's model, `claude` the current Sonnet.
 */
export const MODEL_ALIASES: Readonly<Record<string, { provider: Provider; model: string }>> = Object.fromEntries(
  CATALOGUE.models.flatMap((entry) => entry.aliases.map((alias) => [alias, { provider: entry.provider, model: entry.id }])),
);

export const ACCEPTED_SPEC_FORMS = `${Object.keys(MODEL_ALIASES).join(', ')}, openai:<model>, anthropic:<model>, openai:<model>@<base-url>, oracle or noop`;

/** Throws a one-line UserError when the spec is not a model spec. */
export function parseModelSpec(spec: string): ParsedModelSpec {
  const alias = MODEL_ALIASES[spec];
  if (alias) return { spec, ...alias };

  const colon = spec.indexOf(':');
  const provider = spec.slice(0, colon) as Provider;
  const rest = spec.slice(colon + 1);
  if (colon < 0 || !(PROVIDERS as readonly string[]).includes(provider) || rest === '') {
    throw new UserError(`unknown model "${spec}": use ${ACCEPTED_SPEC_FORMS}`);
  }
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
