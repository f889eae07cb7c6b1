// What a task tells its agents, as the values of the prompt templates (the templates themselves are
// the agent configuration's: harness/agents/config/). The default Coop prompt follows the paper's
// appendix D in spirit; the Solo prompt never mentions a colleague.
import type { Feature } from './types.ts';

export const WORKSPACE = '/workspace/repo';

export interface PromptContext {
  agentId: string;
  features: Feature[];
  partners: string[];
  /** False in the no-messaging ablation: agents know about each other but cannot talk. */
  messaging: boolean;
  /** --git: partners' work can be fetched read-only from these remotes. */
  gitRemotes?: { self: string; partners: string[] };
  /**
   * `cli`: an agent CLI with its own tools (harness/agents/cli), which stops on its own and reaches
   * its colleagues through the MCP message server; default: the harness's agent loop.
   */
  tools?: 'harness' | 'cli';
  /** Tools a run condition gives for looking at partners' work (--visibility): their names. */
  partnerTools?: string[];
}

/** The names the task templates may use, and what each holds. */
export const PROMPT_VALUE_NAMES = [
  'agent_id', // agent1
  'workspace', // /workspace/repo
  'features', // the feature description(s); several under "### Feature N" headings
  'several_features', // more than one feature (Solo of a pair)
  'partners', // agent2, agent3
  'partner_count',
  'several_partners',
  'messaging', // the message tool is there
  'git', // --git: partners' branches can be fetched
  'git_self', // the agent's own remote
  'git_fetch', // `git fetch agent2`, `git fetch agent3`
  'git_first_partner',
  'cli', // an agent CLI (its own tools, stops on its own, messages through the MCP server)
  'partner_view', // --visibility: partners' work can be looked at
  'partner_tools', // `partner_diff`: the tools that show it
] as const;

export function promptValues({
  agentId,
  features,
  partners,
  messaging,
  gitRemotes,
  tools,
  partnerTools = [],
}: PromptContext): Record<(typeof PROMPT_VALUE_NAMES)[number], string | number | boolean> {
  return {
    agent_id: agentId,
    workspace: WORKSPACE,
    features: features.map((f, i) => (features.length > 1 ? `### Feature ${i + 1}\n\n${f.description.trim()}` : f.description.trim())).join('\n\n'),
    several_features: features.length > 1,
    partners: partners.join(', '),
    partner_count: partners.length,
    several_partners: partners.length > 1,
    messaging,
    git: gitRemotes !== undefined,
    git_self: gitRemotes?.self ?? '',
    git_fetch: (gitRemotes?.partners ?? []).map((r) => `\`git fetch ${r}\``).join(', '),
    git_first_partner: gitRemotes?.partners[0] ?? '',
    cli: tools === 'cli',
    partner_view: partnerTools.length > 0,
    partner_tools: partnerTools.map((t) => `\`${t}\``).join(', '),
  };
}
