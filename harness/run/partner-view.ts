// What an agent can see of its partners' work under --visibility (harness/messaging/conditions.ts):
// each partner's repository while it works, read through the harness (never a path of the
// agent's own sandbox into the partner's), and its final patch once it has stopped.
import type { PartnerReader } from '../messaging/conditions.ts';
import type { Sandbox } from '../sandbox/types.ts';
import { liveDiff, peekFile } from './workspace.ts';

type Member = { state: 'working'; sandbox: Sandbox; base: string } | { state: 'stopped'; patch: Promise<string> };

/** The members of one task, as the team's agents start and stop. */
export class TeamView implements PartnerReader {
  private readonly members = new Map<string, Member>();

  working(agentId: string, sandbox: Sandbox, base: string): void {
    this.members.set(agentId, { state: 'working', sandbox, base });
  }

  /** The agent has stopped; `patch` resolves to what it left (empty if it left nothing). */
  stopped(agentId: string, patch: Promise<string>): void {
    patch.catch(() => {});
    this.members.set(agentId, { state: 'stopped', patch });
  }

  async diff(partner: string, signal: AbortSignal): Promise<string> {
    const member = this.members.get(partner);
    if (!member) return notReady(partner);
    if (member.state === 'stopped') return finalPatch(partner, member.patch);
    return liveDiff(member.sandbox, member.base, signal);
  }

  /** The partner's changes as a patch, live or final ('' before it starts and when it left none). */
  async patch(partner: string, signal: AbortSignal): Promise<string> {
    const member = this.members.get(partner);
    if (!member) return '';
    if (member.state === 'stopped') return member.patch.catch(() => '');
    return liveDiff(member.sandbox, member.base, signal);
  }

  async read(partner: string, path: string, signal: AbortSignal): Promise<string> {
    const member = this.members.get(partner);
    if (!member) return notReady(partner);
    if (member.state === 'stopped') return `${partner} has stopped and its working tree is gone. ${await finalPatch(partner, member.patch)}`;
    return peekFile(member.sandbox, path, signal);
  }
}

const notReady = (partner: string) => `${partner}'s repository is not ready yet: try again in a moment.`;

/** As much of a final patch as a live diff shows at most. */
const MAX_PATCH_CHARS = 64 * 1024;

async function finalPatch(partner: string, patch: Promise<string>): Promise<string> {
  const text = await patch.catch(() => '');
  if (text.trim() === '') return `${partner} has stopped without changing anything.`;
  const shown = text.length > MAX_PATCH_CHARS ? `${text.slice(0, MAX_PATCH_CHARS)}\n[... cut at ${MAX_PATCH_CHARS / 1024} K characters ...]` : text;
  return `${partner} has stopped; its final changes:\n${shown}`;
}
