// Reading a run's store and files the way a user checking results would.
import Database from 'better-sqlite3';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RunStore } from '../../harness/store/run-store.ts';
import { sqlOf } from '../../harness/store/database.ts';

/** Rows of a read-only query on runs/<run>/run.db. */
export function queryRun<T>(runsDir: string, run: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(join(runsDir, run, 'run.db'), { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/** Every file under a folder, recursively. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** A run name no other test process on this engine uses (labels are by run name). */
export function uniqueRun(prefix: string): string {
  return `${prefix}-${process.pid}-${Date.now().toString(36)}`;
}

/** The SQL handle of an open store, for tests that write rows no command writes (damaged, legacy) or check raw columns. */
export const storeDb = (store: RunStore): Database.Database => sqlOf(store);
