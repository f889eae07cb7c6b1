// `run --dry-run` through the injected IO: the count comes first (so `--dry-run | head` shows it),
// then the listing; a subset's warning goes to the IO's log, not to the process's stderr.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBenchmark, type RunOptions } from '../../../../harness/run/run-benchmark.ts';
import { SHIPPED_POOLS } from '../../../../harness/paths.ts';
import { parseShard } from '../../../../tasks/plan.ts';
import { tempDir } from '../../../helpers/cli.ts';
import { recordingIO, runOptions } from '../../../helpers/run-options.ts';

const runs = tempDir('dry-runs');
afterAll(() => rmSync(runs, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const options = (extra: Partial<RunOptions> = {}): RunOptions => runOptions({ name: 'dry', runsDir: runs, dryRun: true, ...extra });

/** What a dry run printed through the IO, and that nothing went around it. */
async function dryRun(extra: Partial<RunOptions> = {}) {
  const { io, out, lines: logged } = recordingIO();
  const stdout = vi.spyOn(process.stdout, 'write');
  const stderr = vi.spyOn(process.stderr, 'write');
  const exitCode = await runBenchmark(options(extra), { createBackend: () => Promise.reject(new Error('a dry run starts no backend')), io });
  expect(stdout).not.toHaveBeenCalled();
  expect(stderr).not.toHaveBeenCalled();
  return { exitCode, lines: out.join('').split('\n').slice(0, -1), logged };
}

describe('run --dry-run', () => {
  it('prints how many tasks first, then one line per task', async () => {
    const { exitCode, lines } = await dryRun();
    expect(exitCode).toBe(0);
    expect(lines[0]).toBe('60 tasks');
    expect(lines).toHaveLength(61);
    expect(lines[1]).toBe('coop oracle argkit_task/task1 f1_f2');
    expect(lines.filter((l) => l.startsWith('solo '))).toHaveLength(30);
  });

  it('counts a shard before listing it', async () => {
    const { lines } = await dryRun({ shard: parseShard('1/4') });
    expect(lines[0]).toBe('15 tasks (shard 1/4)');
    expect(lines).toHaveLength(16);
  });

  it("warns through the run's log about subset pools that are not there", async () => {
    const subset = join(runs, 'partial.json');
    writeFileSync(
      subset,
      JSON.stringify({
        name: 'partial',
        tasks: [
          { repo: 'argkit_task', task_id: 1, pairs: [[1, 2]] },
          { repo: 'missing_task', task_id: 7, pairs: [[1, 2]] },
        ],
      }),
    );
    const { lines, logged } = await dryRun({ subset, settings: ['coop'] });
    expect(logged).toEqual([`warning: subset partial names 1 pool(s) not under ${SHIPPED_POOLS}, skipped: missing_task/task7`]);
    expect(lines).toEqual(['1 task', 'coop oracle argkit_task/task1 f1_f2']);
  });
});
