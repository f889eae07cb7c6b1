// Agent CLIs as model specs: `<cli>` or `<cli>:<model>`. Adding a CLI is one file in this folder
// (a CliDefinition) and one entry below.
import { UserError } from '../../errors.ts';
import { resolveModel } from '../../models/resolve.ts';
import type { ModelOptions, ParsedModelSpec } from '../../models/index.ts';
import type { Agent, AgentContext, AgentHostSetup, AgentOutcome } from '../types.ts';
import type { CliDefinition } from './cli.ts';
import type { CliAgent, CliAgentOptions } from './cli-agent.ts';
import { claudeCode } from './claude-code.ts';
import { codex } from './codex.ts';

export const AGENT_CLIS: readonly CliDefinition[] = [claudeCode, codex];

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

export interface CliAgentSettings extends Omit<CliAgentOptions, 'upstream'> {
  model: ModelOptions;
}

/** `agent`: a parsed CLI spec, its provider's model (`model`: `<provider>:<cliModel>`) parsed with it. */
export function createCliAgent(agent: { spec: string; cli: CliDefinition; cliModel: string; model: ParsedModelSpec }, settings: CliAgentSettings): Agent {
  // The proxy's one upstream, fixed here from the user's spec: nothing the CLI sends can change it.
  const upstream = resolveModel(agent.model, settings.model);
  return new LazyCliAgent(
    agent.spec,
    async () => new (await import('./cli-agent.ts')).CliAgent(agent.spec, agent.cli, agent.cliModel, { ...settings, upstream }),
  );
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
