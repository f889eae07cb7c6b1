import { z } from 'zod';
import { defineTool } from './tool.ts';
import { WORKSPACE } from '../../../tasks/prompts.ts';

/** What the model sees of a command's output: head and tail, like a terminal scrolled both ways. */
export const MAX_TOOL_OUTPUT = 12_000;
const DEFAULT_TIMEOUT_S = 120;
const MAX_TIMEOUT_S = 600;

export function clip(text: string, max = MAX_TOOL_OUTPUT): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[... ${text.length - 2 * half} characters of output omitted ...]\n${text.slice(-half)}`;
}

export const bashTool = defineTool({
  name: 'bash',
  description: `Run a bash command in the repository (${WORKSPACE}) and get its exit code and output. No network. Each call is a fresh shell: cd and variables do not persist, and processes it leaves in the background are stopped when it returns. Long outputs are cut in the middle.`,
  schema: z.object({
    command: z.string().min(1).describe('the command to run'),
    timeout: z.number().int().positive().max(MAX_TIMEOUT_S).optional().describe(`seconds before the command is killed (default ${DEFAULT_TIMEOUT_S})`),
  }),
  async run({ command, timeout }, { sandbox, signal }) {
    const seconds = timeout ?? DEFAULT_TIMEOUT_S;
    const result = await sandbox.exec(['bash', '-c', command], { cwd: WORKSPACE, timeoutMs: seconds * 1000, maxOutputBytes: 256 * 1024, signal });
    const streams = [result.stdout, result.stderr ? `[stderr]\n${result.stderr}` : ''].filter(Boolean).join('\n');
    const status = result.timedOut ? `killed after ${seconds} s (timeout)` : `exit code ${result.exitCode}`;
    return { output: clip(`${status}\n${streams}`), exitCode: result.exitCode };
  },
});
