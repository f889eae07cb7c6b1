// `coop-bench play` runs on the local Docker engine only: another backend is refused before
// anything starts, in one line that says why and what to use instead.
import { describe, expect, it } from 'vitest';
import { playCommand } from '../../../../harness/commands/play.ts';
import { UserError } from '../../../../harness/errors.ts';

describe('play on another backend', () => {
  it('is refused up front, naming the local Docker engine and `coop-bench run --backend kubernetes`', async () => {
    const parse = playCommand()
      .exitOverride()
      .parseAsync(['--task', '1', '--features', '1,2', '--partner', 'noop', '--backend', 'kubernetes', '--runs-dir', '/nonexistent'], { from: 'user' });
    await expect(parse).rejects.toThrow(UserError);
    await expect(parse).rejects.toThrow(
      "play runs on the local Docker engine only (the person's terminal attaches to their container through it); drop --backend kubernetes, or use `coop-bench run --backend kubernetes` for agent-only runs",
    );
  });
});
