// Agent CLIs as model specs: `<cli>` or `<cli>:<model>`. Adding a CLI is one file in this folder
// (a CliDefinition) and one entry below.
import { UserError } from '../../errors.ts';
import { resolveModel } from '../../models/resolve.ts';
import type { ModelOptions } from '../../models/index.ts';
import type { Agent, AgentContext, AgentHostSetup, AgentOutcome } from '../types.ts';
import type { CliDefinition } from './cli.ts';
import type { CliAgent, CliAgentOptions } from './cli-agent.ts';
import { claudeCode } from './claude-code.ts';
import { codex } from './codex.ts';

export const AGENT_CLIS: readonly CliDefinition[] = [claudeCode, codex];

export const CLI_SPEC_FORMS = AGENT_CLIS.map((cli) => `${cli.name}[:<model>]`).join(', ');

/** The CLI a spec names and the model it runs, or undefined when the spec is not a CLI's. */
export function parseCliSpec(spec: string): { cli: CliDefinition; model: string } | undefined {
  const colon = spec.indexOf(':');
  const name = colon < 0 ? spec : spec.slice(0, colon);
  const cli = AGENT_CLIS.find((c) => c.name === name);
  if (!cli) return undefined;
  const model = colon < 0 ? cli.defaultModel : spec.slice(colon + 1);
  if (!/^[\w.\-/]+$/.test(model))
    throw new UserError(`bad agent spec "${spec}": write ${cli.name} or ${cli.name}:<model> (e.g. ${cli.name}:${cli.defaultModel})`);
  return { cli, model };
}

/** Why a CLI spec would run degraded (`CliDefinition.degradedOn`); undefined when it runs fully. */
export function degradedCliSpec(spec: string): string | undefined {
  const parsed = parseCliSpec(spec);
  return parsed?.cli.degradedOn?.(parsed.model);
}

/** The provider model spec whose key, server and price a CLI spec uses (`anthropic:<model>`). */
export function providerSpec(spec: string): string | undefined {
  const parsed = parseCliSpec(spec);
  return parsed && `${parsed.cli.provider}:${parsed.model}`;
}

export interface CliAgentSettings extends Omit<CliAgentOptions, 'upstream'> {
  model: ModelOptions;
}

export function createCliAgent(spec: string, settings: CliAgentSettings): Agent | undefined {
  const parsed = parseCliSpec(spec);
  if (!parsed) return undefined;
  const { cli, model } = parsed;
  // The proxy's one upstream, fixed here from the user's spec: nothing the CLI sends can change it.
  const upstream = resolveModel(`${cli.provider}:${model}`, settings.model);
  return new LazyCliAgent(spec, async () => new (await import('./cli-agent.ts')).CliAgent(spec, cli, model, { ...settings, upstream }));
}

/**
 * The agent CLI's machinery (model proxy, message server, binaries) is loaded when the agent first
 * prepares: a run without agent CLIs never loads it, and one with them starts as soon.
 */
class LazyCliAgent implements Agent {
  private agent?: Promise<CliAgent>;

  constructor(
    readonly model: string,
    private readonly load: () => Promise<CliAgent>,
  ) {}

  private loaded(): Promise<CliAgent> {
    return (this.agent ??= this.load());
  }

  async prepare(context: Omit<AgentContext, 'sandbox' | 'trajectory'>): Promise<AgentHostSetup> {
    return (await this.loaded()).prepare(context);
  }

  async run(context: AgentContext): Promise<AgentOutcome> {
    return (await this.loaded()).run(context);
  }
}
