// One coop-bench process per run at a time: a second `run` or `eval` of the same run would redo
// the first one's tasks and take them for stale. The lock is an open exclusive transaction on
// runs/<name>/run.lock, an empty SQLite file: the operating system releases it when the process
// ends, however it ends (kill -9 included), so a crash never leaves a run locked.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { UserError } from '../errors.ts';

export interface RunLock {
  release(): void;
}

export function lockRun(dir: string, name: string): RunLock {
  const path = join(dir, 'run.lock');
  const db = new Database(path, { timeout: 0 });
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    throw new UserError(`run ${name} is in use by another coop-bench process (it holds ${path}): wait for it to finish or stop it, or choose another --name`);
  }
  return {
    release: () => db.close(),
  };
}
