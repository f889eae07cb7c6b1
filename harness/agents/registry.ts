// Model specs on the command line to agents: `oracle` and `noop` are built in, every other spec is
// an LLM (harness/models) driving the agent loop.
import type { Agent } from './types.ts';
import { NoopAgent, OracleAgent } from './oracle.ts';
import { LlmAgent, type LlmAgentOptions } from './llm-agent.ts';
import { checkModelSpecs, createModel, type ModelOptions } from '../models/index.ts';

const builtins: Record<string, () => Agent> = {
  oracle: () => new OracleAgent(),
  noop: () => new NoopAgent(),
};

export function isBuiltinAgent(spec: string): boolean {
  return spec in builtins;
}

export interface AgentSettings extends LlmAgentOptions {
  model: ModelOptions;
}

/**
 * Throws a one-line UserError for a spec that cannot run (unknown form, missing API key, bad price
 * file); called for every spec before any container starts. Makes no network call.
 */
export function checkAgentSpecs(specs: string[], model: ModelOptions = {}): void {
  checkModelSpecs(specs.filter((spec) => !isBuiltinAgent(spec)), model);
}

export function createAgent(spec: string, settings: AgentSettings): Agent {
  const builtin = builtins[spec];
  if (builtin) return builtin();
  return new LlmAgent(spec, createModel(spec, settings.model), settings);
}
