import { vi } from 'vitest';
import { judgeCommand } from '../../../harness/commands/judge.ts';

/** Runs `coop-bench judge <args>` in the test process and returns what it printed. */
export async function runJudge(args: string[]): Promise<string> {
  const chunks: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    chunks.push(String(chunk));
    return true;
  });
  try {
    await judgeCommand().exitOverride().parseAsync(args, { from: 'user' });
  } finally {
    write.mockRestore();
  }
  return chunks.join('');
}
