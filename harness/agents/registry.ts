// Model specs on the command line to agents: `oracle` and `noop` are built in, agent CLIs
// (`claude-code`, `codex`) run in the container (harness/agents/cli), every other spec is an LLM
// (harness/models) driving the agent loop.
import type { Agent } from './types.ts';
import { NoopAgent, OracleAgent } from './oracle.ts';
import { LlmAgent, type LlmAgentOptions } from './llm-agent.ts';
import { checkModelSpecs, createModel, lifecycleText, type ModelOptions, type ResolvedModel } from '../models/index.ts';
import { CLI_SPEC_FORMS, createCliAgent, degradedCliSpec, providerSpec } from './cli/index.ts';
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

/** What an agent spec runs, for the summary and the report: the model id beside the alias. */
export interface AgentModel {
  spec: string;
  /** Absent for oracle and noop, which call no model. */
  provider?: string;
  model?: string;
  /** The model's status on the run's date (`active`, `retiring in 12 days (2026-12-11)`, ...). */
  status?: string;
  /** It retires within RETIRING_SOON_DAYS of the run's date. */
  retiringSoon?: boolean;
  /** What its provider recommends instead. */
  replacement?: string;
  /** Why an agent CLI runs this model degraded (--allow-degraded-cli-model). */
  degraded?: string;
}

export interface AgentCheckOptions {
  /** Run an agent CLI on a model it does not run fully (`CliDefinition.degradedOn`), marked degraded. */
  allowDegradedCliModel?: boolean;
}

/**
 * Throws a one-line UserError for a spec that cannot run (unknown form, missing API key, bad price
 * file, a retired model, a model an agent CLI does not run fully); called for every spec before anything
 * is built. Makes no network call. Returns what each spec runs.
 */
export function checkAgentSpecs(specs: string[], model: ModelOptions = {}, options: AgentCheckOptions = {}): AgentModel[] {
  const degraded = new Map(specs.flatMap((spec) => (degradedCliSpec(spec) ? [[spec, degradedCliSpec(spec)!]] : [])));
  const [first] = degraded;
  if (first && !options.allowDegradedCliModel) {
    throw new UserError(`${first[0]}: ${first[1]}, or pass --allow-degraded-cli-model to run it anyway, marked degraded`);
  }
  const llmSpecs = specs.filter((spec) => !isBuiltinAgent(spec));
  let resolved: ResolvedModel[];
  try {
    resolved = checkModelSpecs(llmSpecs.map(modelSpecOf), model);
  } catch (error) {
    if (error instanceof UserError && error.message.startsWith('unknown model')) throw new UserError(`${error.message}; agent CLIs: ${CLI_SPEC_FORMS}`);
    throw error;
  }
  return specs.map((spec) => {
    const found = resolved[llmSpecs.indexOf(spec)];
    if (!found) return { spec };
    return {
      spec,
      provider: found.provider,
      model: found.model,
      status: lifecycleText(found.lifecycle),
      ...(found.lifecycle.state === 'retiring' ? { retiringSoon: true } : {}),
      ...(found.lifecycle.replacement ? { replacement: found.lifecycle.replacement } : {}),
      ...(degraded.has(spec) ? { degraded: degraded.get(spec) } : {}),
    };
  });
}

export function createAgent(spec: string, settings: AgentSettings): Agent {
  const builtin = builtins[spec];
  if (builtin) return builtin();
  return createCliAgent(spec, settings) ?? new LlmAgent(spec, createModel(spec, settings.model), settings);
}
