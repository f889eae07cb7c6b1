// Model specs on the command line to agents: `oracle` and `noop` are built in, agent CLIs
// (`claude-code`, `codex`) run in the container (harness/agents/cli), every other spec is an LLM
// (harness/models) driving the agent loop.
import type { Agent } from './types.ts';
import { NoopAgent, OracleAgent } from './oracle.ts';
import { LlmAgent, type LlmAgentOptions } from './llm-agent.ts';
import {
  checkModelSpecs,
  createModel,
  lifecycleText,
  modelSpecForms,
  parseModelSpec,
  UnknownModelSpec,
  type ModelOptions,
  type ParsedModelSpec,
} from '../models/index.ts';
import { AGENT_CLIS, createCliAgent, parseCliSpec } from './cli/index.ts';
import type { CliDefinition } from './cli/cli.ts';
import { UserError } from '../errors.ts';

const builtins: Record<string, () => Agent> = {
  oracle: () => new OracleAgent(),
  noop: () => new NoopAgent(),
};

/**
 * An agent spec parsed once, at the CLI. `builtin`: oracle or noop, no model. `cli`: an agent CLI
 * (claude-code, codex), which runs in the sandbox and reaches its provider's model (`model`) through
 * a folder mounted from this machine. `loop`: the harness's own agent loop driving `model` (it
 * compacts ahead of the model's window; agent CLIs keep their own context).
 */
export type AgentSpec =
  | { kind: 'builtin'; spec: string }
  | { kind: 'cli'; spec: string; cli: CliDefinition; cliModel: string; model: ParsedModelSpec }
  | { kind: 'loop'; spec: string; model: ParsedModelSpec };

/** The forms of agent specs that are not model specs. */
const OTHER_FORMS: readonly string[] = [...Object.keys(builtins), ...AGENT_CLIS.map((cli) => `${cli.name}[:<model>]`)];

/** Every form an agent spec may take (one per registered provider), for help texts and errors. */
export function agentSpecForms(): string[] {
  return [...modelSpecForms(), ...OTHER_FORMS];
}

/** Throws a one-line UserError naming every accepted form for a spec in none of them. */
export function parseAgentSpec(spec: string): AgentSpec {
  if (spec in builtins) return { kind: 'builtin', spec };
  const cli = parseCliSpec(spec);
  if (cli) return { kind: 'cli', spec, cli: cli.cli, cliModel: cli.model, model: parseModelSpec(`${cli.cli.provider}:${cli.model}`) };
  try {
    return { kind: 'loop', spec, model: parseModelSpec(spec) };
  } catch (error) {
    if (error instanceof UnknownModelSpec) throw new UnknownModelSpec(spec, OTHER_FORMS);
    throw error;
  }
}

export interface AgentSettings extends LlmAgentOptions {
  model: ModelOptions;
  /** Progress lines of agents that install something on first use (agent CLIs). */
  log?: (line: string) => void;
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
export function checkAgentSpecs(agents: readonly AgentSpec[], model: ModelOptions = {}, options: AgentCheckOptions = {}): AgentModel[] {
  const degraded = new Map(
    agents.flatMap((agent) => {
      const why = agent.kind === 'cli' ? agent.cli.degradedOn?.(agent.cliModel) : undefined;
      return why ? [[agent.spec, why] as const] : [];
    }),
  );
  const [first] = degraded;
  if (first && !options.allowDegradedCliModel) {
    throw new UserError(`${first[0]}: ${first[1]}, or pass --allow-degraded-cli-model to run it anyway, marked degraded`);
  }
  const withModel = agents.flatMap((agent) => (agent.kind === 'builtin' ? [] : [agent]));
  const resolved = checkModelSpecs(
    withModel.map((agent) => agent.model),
    model,
  );
  return agents.map(({ spec }) => {
    const found = resolved[withModel.findIndex((agent) => agent.spec === spec)];
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

export function createAgent(agent: AgentSpec, settings: AgentSettings): Agent {
  if (agent.kind === 'builtin') return builtins[agent.spec]!();
  if (agent.kind === 'cli') return createCliAgent(agent, settings);
  return new LlmAgent(agent.spec, createModel(agent.model, settings.model), settings);
}
