// Model specs on the command line to agents: `oracle` and `noop` are built in, agent CLIs
// (`claude-code`, `codex`) run in the container (harness/agents/cli), every other spec is an LLM
// (harness/models) driving the agent loop.
import type { Agent } from './types.ts';
import { NoopAgent, OracleAgent } from './oracle.ts';
import { LlmAgent, type LlmAgentOptions } from './llm-agent.ts';
import { checkModelSpecs, createModel, type ModelOptions } from '../models/index.ts';
import { CLI_SPEC_FORMS, createCliAgent, providerSpec } from './cli/index.ts';
import { UserError } from '../errors.ts';

const builtins: Record<string, () => Agent> = {
  oracle: () => new OracleAgent(),
  noop: () => new NoopAgent(),
};

export function isBuiltinAgent(spec: string): boolean {
  return spec in builtins;
}

/** A spec the harness's own agent loop runs (it compacts ahead of its model's window); agent CLIs keep their own context. */
export function isLoopAgent(spec: string): boolean {
  return !isBuiltinAgent(spec) && providerSpec(spec) === undefined;
}

/** An agent CLI (claude-code, codex): it runs in the sandbox and reaches its model through a folder mounted from this machine. */
export function isCliAgent(spec: string): boolean {
  return providerSpec(spec) !== undefined;
}

export interface AgentSettings extends LlmAgentOptions {
  model: ModelOptions;
  /** Progress lines of agents that install something on first use (agent CLIs). */
  log?: (line: string) => void;
}

/** The LLM spec whose key, server and price an agent spec uses: itself, or an agent CLI's provider model. */
export function modelSpecOf(spec: string): string {
  return providerSpec(spec) ?? spec;
}

/**
 * Throws a one-line UserError for a spec that cannot run (unknown form, missing API key, bad price
 * file); called for every spec before any container starts. Makes no network call.
 */
export function checkAgentSpecs(specs: string[], model: ModelOptions = {}): void {
  try {
    checkModelSpecs(specs.filter((spec) => !isBuiltinAgent(spec)).map(modelSpecOf), model);
  } catch (error) {
    if (error instanceof UserError && error.message.startsWith('unknown model')) throw new UserError(`${error.message}; agent CLIs: ${CLI_SPEC_FORMS}`);
    throw error;
  }
}

export function createAgent(spec: string, settings: AgentSettings): Agent {
  const builtin = builtins[spec];
  if (builtin) return builtin();
  return createCliAgent(spec, settings) ?? new LlmAgent(spec, createModel(spec, settings.model), settings);
}
