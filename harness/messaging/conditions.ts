// Controlled conditions of a Coop run (after CollabSim's communication and awareness conditions):
// how much agents may say, how late it arrives, and what of a partner's work they can see. Each is
// one entry of CONDITIONS: its run option, how it reads that option, the label it adds to the
// task's variant (so every condition is a task, and a row of the report, of its own), and what it
// changes in an agent's end of the bus or in the tools it gets about its partners. The agent loop
// and the MCP server only ever see the result: a mailbox and a list of extra tools.
import { z } from 'zod';
import type { ExtraTool } from '../agents/types.ts';
import { DEFAULT_MESSAGE_LIMITS, type ChannelSettings as Channel } from './bus.ts';

export const OPEN_CHANNEL: Channel = { limits: DEFAULT_MESSAGE_LIMITS, latencyMs: 0, reportBudget: false };

/** What the harness offers a condition to read of a partner's work (harness/run/partner-view.ts). */
export interface PartnerReader {
  /** The partner's current `git diff` against the base, new files included. */
  diff(partner: string, signal: AbortSignal): Promise<string>;
  /** A file of the partner's working tree (its text) or a folder (its entries), path relative to the repository. */
  read(partner: string, path: string, signal: AbortSignal): Promise<string>;
}

export type Visibility = 'files' | 'diff' | 'none';

/** The conditions of a run as given on the command line (absent: today's Coop). */
export interface RunConditions {
  bandwidth?: { messages: number; chars: number };
  latency?: number;
  visibility?: Visibility;
}

interface Condition<K extends keyof RunConditions> {
  key: K;
  /** `--<key> <usage>` */
  usage: string;
  help: string;
  parse(text: string): NonNullable<RunConditions[K]>;
  /** Its part of the task's variant (and of the report's condition names); undefined: no change. */
  label(value: NonNullable<RunConditions[K]>): string | undefined;
  channel?(value: NonNullable<RunConditions[K]>, channel: Channel): Channel;
  /** The tools it gives an agent about its partners. */
  tools?(value: NonNullable<RunConditions[K]>, partners: readonly string[], reader: PartnerReader): ExtraTool[];
}

/** A bad condition value; its text says what to write instead. */
export class ConditionError extends Error {
  override name = 'ConditionError';
}

function positiveInteger(text: string, what: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1) throw new ConditionError(`${what} must be a whole number of at least 1, not "${text}"`);
  return Number(text);
}

const bandwidth: Condition<'bandwidth'> = {
  key: 'bandwidth',
  usage: 'messages=N,chars=M',
  help: 'Coop: each agent may send at most N messages of at most M characters each; the message tool says what is left',
  parse(text) {
    const fields = new Map(
      text.split(',').map((part) => {
        const [name, value = ''] = part.split('=').map((s) => s.trim());
        if (name !== 'messages' && name !== 'chars') throw new ConditionError(`--bandwidth takes messages=N,chars=M, not "${part}"`);
        return [name, value] as const;
      }),
    );
    if (!fields.has('messages') || !fields.has('chars'))
      throw new ConditionError(`--bandwidth needs both messages=N and chars=M (e.g. messages=5,chars=300), not "${text}"`);
    return { messages: positiveInteger(fields.get('messages')!, 'messages'), chars: positiveInteger(fields.get('chars')!, 'chars') };
  },
  label: ({ messages, chars }) => `bandwidth-${messages}x${chars}`,
  channel: ({ messages, chars }, channel) => ({ ...channel, limits: { maxMessagesPerAgent: messages, maxBodyChars: chars }, reportBudget: true }),
};

const latency: Condition<'latency'> = {
  key: 'latency',
  usage: 'S',
  help: 'Coop: messages are delivered S seconds after they are sent',
  parse(text) {
    const seconds = Number(text);
    if (text.trim() === '' || !Number.isFinite(seconds) || seconds < 0 || seconds > 3600)
      throw new ConditionError(`--latency takes seconds from 0 to 3600, not "${text}"`);
    return seconds;
  },
  label: (seconds) => (seconds > 0 ? `latency-${seconds}s` : undefined),
  channel: (seconds, channel) => ({ ...channel, latencyMs: seconds * 1000 }),
};

const partnerArg = (partners: readonly string[]) =>
  z
    .string()
    .optional()
    .describe(`whose work: ${partners.map((p) => `"${p}"`).join(', ')} (default ${partners[0] ?? 'your partner'})`);

/** The partner a call names, or an error text the agent can act on. */
function choosePartner(partners: readonly string[], asked: string | undefined): { partner: string } | { error: string } {
  const partner = asked?.trim() || partners[0];
  if (partner && partners.includes(partner)) return { partner };
  return { error: `${JSON.stringify((asked ?? '').slice(0, 64))} is not one of your partners: use ${partners.join(', ')}` };
}

const visibility: Condition<'visibility'> = {
  key: 'visibility',
  usage: 'files|diff|none',
  help: "Coop: files: each agent can read its partners' working trees (read-only); diff: it can ask for a partner's current git diff; none: neither",
  parse(text) {
    if (text === 'files' || text === 'diff' || text === 'none') return text;
    throw new ConditionError(`--visibility takes files, diff or none, not "${text}"`);
  },
  label: (value) => (value === 'none' ? undefined : `visibility-${value}`),
  tools(value, partners, reader) {
    if (value === 'diff') {
      return [
        {
          name: 'partner_diff',
          description: "Show a partner's current changes: `git diff` of their working tree against the base commit (new files included), as it is now.",
          schema: z.object({ partner: partnerArg(partners) }),
          async run(args, signal) {
            const chosen = choosePartner(partners, (args as { partner?: string }).partner);
            if ('error' in chosen) return { output: `Error: ${chosen.error}`, isError: true };
            const diff = await reader.diff(chosen.partner, signal);
            return { output: diff.trim() === '' ? `${chosen.partner} has not changed anything yet.` : diff };
          },
        },
      ];
    }
    if (value === 'files') {
      return [
        {
          name: 'read_partner_file',
          description:
            "Read a file of a partner's working tree as it is now (read-only), or list a folder; path relative to the repository root ('.' for the root).",
          schema: z.object({ path: z.string().min(1).max(4096), partner: partnerArg(partners) }),
          async run(args, signal) {
            const { path, partner } = args as { path: string; partner?: string };
            const chosen = choosePartner(partners, partner);
            if ('error' in chosen) return { output: `Error: ${chosen.error}`, isError: true };
            return { output: await reader.read(chosen.partner, path, signal) };
          },
        },
      ];
    }
    return [];
  },
};

/** Every condition, in the order their labels join into a variant. */
export const CONDITIONS = [bandwidth, latency, visibility] as const;

/** A condition the run sets, bound to its value. */
interface SetCondition {
  key: keyof RunConditions;
  value: unknown;
  label: string | undefined;
  channel(channel: Channel): Channel;
  tools(partners: readonly string[], reader: PartnerReader): ExtraTool[];
}

function bind<K extends keyof RunConditions>(c: Condition<K>, value: NonNullable<RunConditions[K]>): SetCondition {
  return {
    key: c.key,
    value,
    label: c.label(value),
    channel: (channel) => c.channel?.(value, channel) ?? channel,
    tools: (partners, reader) => c.tools?.(value, partners, reader) ?? [],
  };
}

/** The conditions `conditions` sets, in registry order. */
function setConditions(conditions: RunConditions): SetCondition[] {
  // Each entry is read with the value of its own key: the cast only joins the entries' types.
  return CONDITIONS.flatMap((c) => (conditions[c.key] === undefined ? [] : [bind(c as Condition<keyof RunConditions>, conditions[c.key] as never)]));
}

/** `bandwidth-5x300+latency-10s`: the conditions' part of a task's variant ('' for none). */
export function conditionsLabel(conditions: RunConditions): string {
  return setConditions(conditions)
    .flatMap((c) => c.label ?? [])
    .join('+');
}

/** The channel of a task under these conditions. */
export function channelOf(conditions: RunConditions): Channel {
  return setConditions(conditions).reduce((channel, c) => c.channel(channel), OPEN_CHANNEL);
}

/** The extra tools an agent gets under these conditions. */
export function conditionTools(conditions: RunConditions, partners: readonly string[], reader: PartnerReader): ExtraTool[] {
  if (partners.length === 0) return [];
  return setConditions(conditions).flatMap((c) => c.tools(partners, reader));
}

/** Only the conditions that change something (a zero latency, `none` visibility are today's Coop). */
export function activeConditions(conditions: RunConditions): RunConditions {
  return Object.fromEntries(setConditions(conditions).flatMap((c) => (c.label === undefined ? [] : [[c.key, c.value]]))) as RunConditions;
}
