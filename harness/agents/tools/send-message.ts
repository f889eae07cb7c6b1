import { z } from 'zod';
import { defineTool } from './tool.ts';
import { MessageRejected, formatIncoming } from '../../messaging/bus.ts';

const DEFAULT_WAIT_S = 120;

export const sendMessageTool = defineTool({
  name: 'send_message',
  description:
    'Send a message to a colleague (their id, e.g. "agent2") or to everyone ("all"). With wait_for_reply, wait (up to wait_seconds) for the next message to you and get it as the result.',
  schema: z.object({
    to: z.string().min(1).describe('"agent2", or "all"'),
    message: z.string().min(1),
    wait_for_reply: z.boolean().optional(),
    wait_seconds: z.number().int().positive().max(600).optional().describe(`default ${DEFAULT_WAIT_S}`),
  }),
  async run({ to, message, wait_for_reply, wait_seconds }, { mailbox, signal }) {
    if (!mailbox) return { output: 'Error: messaging is not available in this setting', exitCode: 1 };
    let recipients: string;
    try {
      const sent = mailbox.send(to, message);
      recipients = sent.to.join(', ') + (sent.note ? ` (${sent.note})` : '');
    } catch (error) {
      if (error instanceof MessageRejected) return { output: `Error: not sent: ${error.message}`, exitCode: 1 };
      throw error;
    }
    if (!wait_for_reply) return { output: `sent to ${recipients}` };
    const seconds = wait_seconds ?? DEFAULT_WAIT_S;
    if (!(await mailbox.wait(seconds * 1000, signal))) return { output: `sent to ${recipients}; no reply within ${seconds} s` };
    return { output: `sent to ${recipients}; replies:\n${mailbox.take().map(formatIncoming).join('\n\n')}` };
  },
});
