// What agents are told. The Coop prompt follows the paper's appendix D in spirit (separate branches
// merged afterwards, agree early on exact files and line ranges, a final status message); the Solo
// prompt never mentions a colleague.
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
}

function featureSection(features: Feature[]): string {
  return features.map((f, i) => (features.length > 1 ? `### Feature ${i + 1}\n\n${f.description.trim()}` : f.description.trim())).join('\n\n');
}

const WORKING_TREE_NOTE = `The repository is a git checkout of the base commit; you do not need to commit: whatever the working tree holds when you finish is your patch (new files included). The feature's tests are hidden from you and will be run after you finish; write your own checks if they help, but do not rely on them being kept.`;

function toolsNote(tools: PromptContext['tools']): string {
  return tools === 'cli' ? `${WORKING_TREE_NOTE} Work without asking questions: nobody will answer them. When the work is done, stop.` : `Work only through your tools. ${WORKING_TREE_NOTE} When the work is done, call \`finish\`.`;
}

function messagingNote(tools: PromptContext['tools']): string {
  return tools === 'cli'
    ? 'You can message them with the `send_message` tool of the `coop-bench` MCP server. Their messages are not pushed to you: call its `read_messages` tool often (before planning, before editing a file, and before you stop); they come as lines starting with `[Message from agentN]:`.'
    : 'You can message them with the `send_message` tool; their messages reach you as lines starting with `[Message from agentN]:`.';
}

export function soloPrompt({ features, tools }: PromptContext): string {
  return `You are a software engineer implementing ${features.length > 1 ? 'the following features' : 'the following feature'} in the repository at ${WORKSPACE}.

## ${features.length > 1 ? 'Features' : 'Feature'}

${featureSection(features)}

## How to work

Implement ${features.length > 1 ? 'every feature above; they must all work together' : 'the feature above'}. ${toolsNote(tools)}`;
}

function gitSection(remotes: NonNullable<PromptContext['gitRemotes']>): string {
  return `
## Sharing code through git

You can publish your branch and read your colleagues' branches (read-only; there is no other network):
- publish yours: \`git push ${remotes.self} HEAD:refs/heads/main\`
- read theirs: ${remotes.partners.map((r) => `\`git fetch ${r}\``).join(', ')} then inspect \`${remotes.partners[0]}/main\`.
Fetching shows only what a colleague has pushed; it does not merge anything for you.
`;
}

export function coopPrompt(context: PromptContext): string {
  const { agentId, features, partners, messaging } = context;
  const others = partners.length === 1 ? `another agent (${partners[0]})` : `${partners.length} other agents (${partners.join(', ')})`;
  const talk = messaging
    ? `
## Coordinating with your colleague${partners.length > 1 ? 's' : ''}

${messagingNote(context.tools)} They cannot see your files, only what you tell them.
- Before editing, tell them your plan with exact file paths and line ranges (for example "I will change src/table.py lines 40-58, the signature of format_table, and add a helper after line 120").
- If a colleague works in the same file, agree on who edits which line ranges so that your changes never touch the same lines. Adding a parameter to the same signature counts as touching the same lines: agree who writes it.
- Agree on shared interfaces precisely: names, parameters, default values, behaviour.
- Never leave placeholder comments or markers for a colleague to fill in; they cause merge conflicts.
- Before you finish, send a final status message saying exactly what you changed (files, line ranges, signatures).
`
    : `
## Working without messages

You cannot talk to them in this run. Keep your changes as small and local as you can so that they merge cleanly with work you cannot see.
`;
  return `You are ${agentId}, a software engineer implementing one feature in the repository at ${WORKSPACE}, in parallel with ${others} who ${partners.length > 1 ? 'are each implementing a different feature' : 'is implementing a different feature'} in ${partners.length > 1 ? 'their own copies' : 'their own copy'} of the same repository.

## How your work is judged

You work on separate branches. When everyone is done, the branches are merged into one codebase with a plain 2-way git merge, and the hidden tests of every feature are run on the merged code. If your changes and a colleague's touch the same lines, the merge conflicts and both of you fail. If the merge is clean but the combined code is wrong (for example one of you overwrote or broke the other's work), both of you fail too. Success means both features work in the merged code.

## Your feature

${featureSection(features)}
${talk}${context.gitRemotes ? gitSection(context.gitRemotes) : ''}
## How to work

${toolsNote(context.tools)}`;
}
