// A run store whose write-ahead log (run.db-wal) is lost while its run is unfinished: during a run
// the latest results sit in the WAL, so run.db alone reads as an older (often empty) run. It is
// refused in one line by every command, and left as it is; a crash that keeps the WAL (kill -9),
// a WAL another SQLite client checkpointed into run.db, and a clean close, open as before. The states are the files as a killed process leaves them:
// copied while the writer has the store open.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../../../../harness/store/run-store.ts';
import { storageFailure } from '../../../../harness/store/storage-errors.ts';
import { coopBench, tempDir } from '../../../helpers/cli.ts';
import { addTasks } from '../../reports/helpers/fixture-run.ts';

const runs = tempDir('lost-wal');
const tasks = [1, 2, 3].map((f) => ({ models: ['m'], setting: 'coop' as const, features: [f, 4], passed: true }));

/** Copies of the run's files as they are now, under other run names. */
function snapshot(from: string, to: string, files: string[]): void {
  mkdirSync(join(runs, to));
  for (const file of files) copyFileSync(join(runs, from, file), join(runs, to, file));
}

const live = RunStore.open(runs, 'live', { create: true, exclusive: true });
addTasks(live, tasks);
snapshot('live', 'killed', ['run.db', 'run.db-wal']);
snapshot('live', 'wal-lost', ['run.db']);
snapshot('live', 'wal-emptied', ['run.db']);
for (const client of ['by-node', 'by-cli']) snapshot('live', `checkpointed-${client}`, ['run.db', 'run.db-wal']);
writeFileSync(join(runs, 'wal-emptied', 'run.db-wal'), '');
live.close();

// A run long enough for the writer to checkpoint its WAL itself (over 4 MiB of steps), then more tasks.
const long = RunStore.open(runs, 'long', { create: true, exclusive: true });
addTasks(long, tasks);
const [first] = long.tasks();
for (let i = 0; i < 80; i++)
  long.recordStep(first!.id, 'agent1', { index: i, at: new Date().toISOString(), kind: 'tool', name: 'bash', output: 'x'.repeat(64 * 1024) });
long.ensureTask({
  ...long.tasks()[0]!,
  pool: { repo: 'late_task', taskId: 9, dir: '/pools/late', features: [], publishedImage: 'none' },
  features: [1, 2],
  setting: 'coop',
  models: ['m', 'm'],
  variant: '',
});
snapshot('long', 'long-wal-lost', ['run.db']);
snapshot('long', 'long-checkpointed', ['run.db', 'run.db-wal']);
long.close();

/** What any SQLite client does that opens run.db read-write and closes it last: copies the WAL into run.db and deletes it. */
const readWith = {
  node: (name: string) =>
    execa('node', [
      '-e',
      `const db = new (require('better-sqlite3'))(process.argv[1]); db.prepare('SELECT COUNT(*) FROM tasks').get(); db.close();`,
      join(runs, name, 'run.db'),
    ]),
  cli: (name: string) => execa('sqlite3', [join(runs, name, 'run.db'), 'SELECT COUNT(*) FROM tasks']),
};
const sqlite3Cli = (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, 'sqlite3')));

const refusal = (name: string) =>
  new RegExp(
    `^coop-bench: ${join(runs, name, 'run.db').replace(/[.]/g, '\\.')} was left open by a coop-bench process \\(since [^)]+\\) and its write-ahead log .*run\\.db-wal is gone: the results it held are lost, and the store is refused rather than read as an older run\\. Put run\\.db-wal back if you have it, or move the run folder away and run again$`,
  );

describe('a run store whose WAL is lost while its run is unfinished', { timeout: 300_000 }, () => {
  it('report, judge and eval refuse it in one line and leave run.db as it was', async () => {
    const before = readFileSync(join(runs, 'wal-lost', 'run.db'));
    for (const args of [['report'], ['judge'], ['eval', '--backend', 'docker']]) {
      const result = await coopBench([...args, '--name', 'wal-lost', '--runs-dir', runs]);
      expect(result.exitCode, result.all).toBe(2);
      expect(result.stderr).toMatch(refusal('wal-lost'));
    }
    expect(readFileSync(join(runs, 'wal-lost', 'run.db'))).toEqual(before);
  });

  it('run refuses it instead of running finished tasks again', () => {
    expect(() => RunStore.open(runs, 'wal-lost', { create: true, exclusive: true })).toThrow(/write-ahead log .* is gone/);
  });

  it('an empty WAL (as a read-only open leaves in place of the lost one) is refused the same way', async () => {
    const result = await coopBench(['report', '--name', 'wal-emptied', '--runs-dir', runs]);
    expect(result.stderr).toMatch(refusal('wal-emptied'));
  });

  it('a crash that keeps the WAL (kill -9) reads every stored task, and resumes', async () => {
    const result = await coopBench(['report', '--name', 'killed', '--runs-dir', runs, '--format', 'json']);
    expect(result.exitCode, result.all).toBe(0);
    const report = JSON.parse(readFileSync(join(runs, 'killed', 'report.json'), 'utf8')) as { tasks: { status: string }[] };
    expect(report.tasks.map((t) => t.status)).toEqual(['done', 'done', 'done']);
    const resumed = RunStore.open(runs, 'killed', { create: true, exclusive: true });
    expect(resumed.tasks().filter((t) => t.status === 'done')).toHaveLength(3);
    resumed.close();
  });

  it('a clean close leaves no WAL, and the store opens again (also after a read-only open left an empty WAL)', async () => {
    expect(existsSync(join(runs, 'live', 'run.db-wal'))).toBe(false);
    for (let i = 0; i < 2; i++) {
      const result = await coopBench(['report', '--name', 'live', '--runs-dir', runs]);
      expect(result.exitCode, result.all).toBe(0);
    }
    const reopened = RunStore.open(runs, 'live', { create: true, exclusive: true });
    expect(reopened.tasks()).toHaveLength(3);
    reopened.close();
  });

  it('a WAL that another SQLite process checkpointed into run.db (and deleted, as SQLite does) resumes with every task', async () => {
    await readWith.node('checkpointed-by-node');
    await readWith.node('long-checkpointed');
    for (const name of ['checkpointed-by-node', 'long-checkpointed']) {
      expect(existsSync(join(runs, name, 'run.db-wal'))).toBe(false);
      const report = await coopBench(['report', '--name', name, '--runs-dir', runs]);
      expect(report.exitCode, report.all).toBe(0);
      const resumed = RunStore.open(runs, name, { create: true, exclusive: true });
      expect(resumed.tasks().length).toBe(name === 'long-checkpointed' ? 4 : 3);
      resumed.close();
    }
  });

  it.skipIf(!sqlite3Cli)('the same after a read with the sqlite3 command-line client', async () => {
    await readWith.cli('checkpointed-by-cli');
    expect(existsSync(join(runs, 'checkpointed-by-cli', 'run.db-wal'))).toBe(false);
    const resumed = RunStore.open(runs, 'checkpointed-by-cli', { create: true, exclusive: true });
    expect(resumed.tasks().filter((t) => t.status === 'done')).toHaveLength(3);
    resumed.close();
  });

  it('a WAL deleted after the writer checkpointed it itself (a long run) is still refused', () => {
    expect(() => RunStore.open(runs, 'long-wal-lost', { create: true, exclusive: true })).toThrow(/write-ahead log .* is gone/);
  });

  it('a file that holds no run store is not given one by a reader', async () => {
    mkdirSync(join(runs, 'empty'));
    writeFileSync(join(runs, 'empty', 'run.db'), '');
    const result = await coopBench(['report', '--name', 'empty', '--runs-dir', runs]);
    expect(result.stderr).toMatch(/run\.db holds no run \(its tables were never written\)/);
    expect(readFileSync(join(runs, 'empty', 'run.db'))).toHaveLength(0);
  });
});

describe('a run store that cannot be read', { timeout: 120_000 }, () => {
  it.skipIf(process.getuid?.() === 0)('names the permission problem in one line', async () => {
    snapshot('live', 'no-access', ['run.db']);
    chmodSync(join(runs, 'no-access', 'run.db'), 0o000);
    const result = await coopBench(['report', '--name', 'no-access', '--runs-dir', runs]);
    expect(result.exitCode, result.all).toBe(2);
    expect(result.stderr).toMatch(
      /^coop-bench: cannot open .*run\.db: EACCES: permission denied, access .* \(give this user read and write access to it, or copy the run to a --runs-dir you own\)$/,
    );
  });
});

describe('store failures met after the store opened', () => {
  it('are one line naming the cause and what to do, whatever SQLite or the file system says', () => {
    const failure = (code: string, message: string) => {
      const found = storageFailure(Object.assign(new Error(message), { code }), '/runs/r');
      return found && `${found.message}: ${found.remedy}`;
    };
    expect(failure('SQLITE_CORRUPT', 'database disk image is malformed')).toBe(
      'cannot read in /runs/r: run.db is damaged (SQLITE_CORRUPT: database disk image is malformed): restore run.db from a copy, or move the run folder away and start the run afresh',
    );
    expect(failure('EACCES', 'EACCES: permission denied, open run.db')).toBe(
      'cannot access in /runs/r: permission denied (EACCES: permission denied, open run.db): give this user read and write access to the run folder and its files',
    );
    expect(failure('SQLITE_CANTOPEN', 'unable to open database file')).toMatch(/^cannot open in \/runs\/r: run\.db cannot be opened \(SQLITE_CANTOPEN: /);
    expect(failure('SQLITE_CONSTRAINT', 'x')).toBeUndefined();
  });
});
