// The message tool as an MCP server, for external agents (Claude Code, Codex CLI, OpenHands...):
// the same bus and the same rules as the built-in agent loop's send_message.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ALL, formatIncoming } from './bus.ts';
import type { ExtraTool } from '../agents/types.ts';

/** Longest wait read_messages accepts: below MCP clients' usual 60 s request timeout. */
export const MAX_READ_WAIT_SECONDS = 30;

/** What the server needs of one agent's end of the bus (a bus Mailbox, or an agent's view of it). */
export interface McpMailbox {
  readonly agentId: string;
  readonly partners: readonly string[];
  send(to: readonly string[], body: string): { to: string[]; note?: string };
  take(): { from: string; body: string }[];
  wait(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
}

/** Names an MCP client shows for this server (`mcp__coop-bench__send_message` in Claude Code). */
export const SERVER_NAME = 'coop-bench';

/**
 * One server per client connection (an McpServer serves one transport). `closing` aborts
 * waits in progress when the endpoint shuts down. `extraTools`: a run condition's tools about the
 * partners (conditions.ts), served beside the message tools.
 */
export function createMessageServer(mailbox: McpMailbox, closing: AbortSignal, extraTools: readonly ExtraTool[] = []): McpServer {
  const partners = mailbox.partners.join(', ');
  const server = new McpServer(
    { name: SERVER_NAME, version: '1.0.0' },
    {
      instructions:
        `You are ${mailbox.agentId}. Your partners (${partners}) work on other features of the same repository, ` +
        'on separate branches that will be merged with yours. Their messages are NOT pushed to you: call read_messages ' +
        'often (before planning, before editing a file, before you stop), and use send_message to agree on who changes which lines.',
      // Agents' arguments are untrusted: a send has two strings, a read one number.
      maxToolInputElements: 8,
    },
  );

  server.registerTool(
    'send_message',
    {
      description: `Send a message to your partners (${partners}). It reaches them at once; it does not wait for a reply (call read_messages for that).`,
      inputSchema: {
        to: z
          .string()
          .max(200)
          .describe(`Recipient: ${mailbox.partners.map((p) => `"${p}"`).join(', ')}, several separated by commas, or "${ALL}"`),
        message: z.string().describe('The message text'),
      },
    },
    // A MessageRejected thrown here reaches the agent as a tool error (isError) with its text.
    ({ to, message }) => {
      const sent = mailbox.send(
        to.split(',').filter((r) => r.trim() !== ''),
        message,
      );
      return { content: [{ type: 'text', text: `Sent to ${sent.to.join(', ')}.${sent.note ? ` ${sent.note[0]!.toUpperCase()}${sent.note.slice(1)}.` : ''}` }] };
    },
  );

  server.registerTool(
    'read_messages',
    {
      description: `Read the messages your partners sent you since your last read, oldest first. With wait_seconds (at most ${MAX_READ_WAIT_SECONDS}), wait that long for one if none is there yet.`,
      inputSchema: {
        wait_seconds: z.number().min(0).max(MAX_READ_WAIT_SECONDS).optional().describe('How long to wait for a message when none is waiting (default 0)'),
      },
    },
    async ({ wait_seconds }, extra) => {
      if (wait_seconds) {
        try {
          await mailbox.wait(wait_seconds * 1000, AbortSignal.any([extra.signal, closing]));
        } catch {
          // Cancelled by the client or the end of the task: report what is there.
        }
      }
      const messages = mailbox.take();
      const text = messages.length === 0 ? 'No new messages.' : messages.map(formatIncoming).join('\n\n');
      return { content: [{ type: 'text', text }] };
    },
  );

  for (const tool of extraTools) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.schema.shape }, async (args, extra) => {
      const { output, isError } = await tool.run(args, AbortSignal.any([extra.signal, closing]));
      return { content: [{ type: 'text', text: output }], ...(isError ? { isError: true } : {}) };
    });
  }
  return server;
}
