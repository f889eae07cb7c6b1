// One coop-bench process per run at a time: a second `run` or `eval` of the same run would redo
// the first one's tasks and take them for stale. The lock is an open exclusive transaction on
// runs/<name>/run.lock, an empty SQLite file: the operating system releases it when the process
// ends, however it ends (kill -9 included), so a crash never leaves a run locked.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
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

/** What another command (`clean`) can learn of a run's lock without waiting. */
export type LockProbe =
  | { state: 'held' }
  /** Nobody holds it: it is taken now, and kept until released, so no run starts meanwhile. */
  | { state: 'free'; lock: RunLock }
  | { state: 'absent' }
  | { state: 'unreadable'; reason: string };

/** Tries the lock of the run in `dir` once; never creates a lock file. */
export function probeRunLock(dir: string): LockProbe {
  const path = join(dir, 'run.lock');
  if (!existsSync(path)) return { state: 'absent' };
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { timeout: 0, fileMustExist: true });
    db.exec('BEGIN EXCLUSIVE');
    const taken = db;
    return { state: 'free', lock: { release: () => taken.close() } };
  } catch (error) {
    db?.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return { state: 'held' };
    return { state: 'unreadable', reason: (error as Error).message };
  }
}
