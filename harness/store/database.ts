// Opening run.db: the only place a Database object is made; modules of harness/store reach it
// through `sqlOf`, nothing outside this folder does (eslint's no-restricted-imports says so).
//
// Write-ahead log: run.db is in WAL mode, so during a run the latest results sit in run.db-wal
// until a checkpoint copies them into run.db. A writer sets the open marker (store_state) and
// checkpoints it into run.db before writing anything else, and clears it when it closes cleanly
// (SQLite then checkpoints and deletes the WAL). A crash (kill -9) leaves the WAL, which SQLite
// replays on the next open. A marker set with no WAL beside run.db (or an empty one, which a
// read-only open leaves) means a writer did not close and its WAL is gone; gone where is told by
// writes_in_wal: the writer checkpoints only itself (no automatic checkpoints), writing 0 just
// before each checkpoint and 1 just after, so the 1 is the first thing its WAL holds. run.db
// holding 1 means another client checkpointed that WAL into it (any SQLite client that opens the
// store read-write and closes it last does): nothing is lost. run.db holding 0 means the WAL was
// deleted: the store is refused, never read as an older run nor rewritten. Readers open read-only
// and never write a schema.
import Database from 'better-sqlite3';
import { accessSync, constants, existsSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { UserError } from '../errors.ts';
import { migrations } from './schema.ts';
import { storageFailure } from './storage-errors.ts';
import { probeRunLock } from './run-lock.ts';

/** read: report and other readers; write: commands that add to an existing run; create: `run` and `import`. */
export type Access = 'read' | 'write' | 'create';

/** A WAL file starts with a 32-byte header; a shorter one holds no transaction. */
const WAL_HEADER_BYTES = 32;
/** The writer checkpoints once its WAL is this large (SQLite's automatic checkpoint: 1000 pages of 4 KiB). */
const CHECKPOINT_WAL_BYTES = 4 * 1024 * 1024;

const handles = new WeakMap<object, Database.Database>();
/** Writers not closed yet: a process that ends without closing one (an error after opening) closes it on exit. */
const openWriters = new Set<Database.Database>();
// Otherwise better-sqlite3's own teardown closes it without clearing the open marker: SQLite then
// removes the WAL after copying it into run.db, and the next open takes the store for one whose WAL was lost.
process.on('exit', () => {
  for (const db of openWriters) {
    try {
      closeDatabase(db);
    } catch {
      // Nothing more can be done while exiting; the WAL it leaves is replayed by the next open.
    }
  }
});

/** Read-only handles that found no run.db-wal and run.db-shm, by the folder they are in. */
const readersThatMadeWal = new WeakMap<Database.Database, string>();

/** The database of a store (for harness/store's own modules). */
export function sqlOf(store: object): Database.Database {
  const db = handles.get(store);
  if (!db) throw new Error('this run store is closed');
  return db;
}

export function attachDatabase(store: object, db: Database.Database): void {
  handles.set(store, db);
}

function walHoldsNothing(path: string): boolean {
  const wal = `${path}-wal`;
  return !existsSync(wal) || statSync(wal).size < WAL_HEADER_BYTES;
}

/**
 * When the last writer opened the store, if it did not close it and run.db lacks what it wrote after
 * its last checkpoint (undefined for a store older than the marker, and when run.db has it all).
 */
function openedWithWritesLost(db: Database.Database): string | undefined {
  const columns = (db.prepare(`SELECT name FROM pragma_table_info('store_state')`).all() as { name: string }[]).map((c) => c.name);
  if (!columns.includes('writer_opened_at')) return undefined;
  const state = db.prepare(`SELECT * FROM store_state`).get() as { writer_opened_at: string | null; writes_in_wal?: number } | undefined;
  if (state?.writes_in_wal === 1) return undefined;
  return state?.writer_opened_at ?? undefined;
}

/**
 * Copies the writer's WAL into run.db, between the two writes of writes_in_wal (see the top of this
 * file). PASSIVE: it never waits for a reader (a `report` of the live run); what a reader holds back
 * is copied at a later checkpoint.
 */
function checkpoint(db: Database.Database, mode: 'FULL' | 'PASSIVE'): void {
  db.prepare('UPDATE store_state SET writes_in_wal = 0').run();
  db.pragma(`wal_checkpoint(${mode})`);
  db.prepare('UPDATE store_state SET writes_in_wal = 1').run();
}

/** Checkpoints a writer's WAL once it has grown large (the writer's stand-in for SQLite's automatic checkpoint). */
export function checkpointWhenLarge(db: Database.Database): void {
  const wal = `${db.name}-wal`;
  if (!db.readonly && existsSync(wal) && statSync(wal).size >= CHECKPOINT_WAL_BYTES) checkpoint(db, 'PASSIVE');
}

function migrate(db: Database.Database): void {
  // Used by migrations that hash stored patches as the harness does.
  db.function('sha256_hex', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? createHash('sha256').update(text).digest('hex') : null));
  for (let v = db.pragma('user_version', { simple: true }) as number; v < migrations.length; v++) {
    db.transaction(() => {
      db.exec(migrations[v]);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

/** Why nothing can be written in a folder or file (EROFS, EACCES), or undefined when it can. */
function notAccessible(path: string, mode: number): string | undefined {
  try {
    accessSync(path, mode);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** One line saying why run.db cannot be opened and what to do. */
function openFailure(error: unknown, path: string, dir: string, access: Access): Error {
  const code = (error as { code?: string }).code ?? '';
  const message = (error as Error).message;
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new UserError(`${path} is not a readable run store (${message}): move it away to start the run afresh, or choose another --name`);
  }
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY')) {
    // SQLite only says it cannot open or write the file; the file and its folder say why.
    const unreadable = notAccessible(path, constants.R_OK | (access === 'read' ? 0 : constants.W_OK));
    if (unreadable)
      return new UserError(`cannot open ${path}: ${unreadable} (give this user read and write access to it, or copy the run to a --runs-dir you own)`);
    const unwritable = notAccessible(dir, constants.W_OK);
    if (unwritable)
      return new UserError(`cannot write the run store in ${dir}: ${unwritable} (a run store needs a writable folder: copy the run to a writable --runs-dir)`);
  }
  const failure = storageFailure(error);
  return failure ? new UserError(`${path}: ${failure.message}: ${failure.remedy}`) : (error as Error);
}

/** Opens run.db at `path` (in folder `dir`) for `access`; one line (a UserError) when it cannot. */
export function openDatabase(path: string, dir: string, access: Access): Database.Database {
  const walLost = walHoldsNothing(path);
  const walAbsent = !existsSync(`${path}-wal`) && !existsSync(`${path}-shm`);
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: access === 'read', fileMustExist: access !== 'create' });
  } catch (error) {
    throw openFailure(error, path, dir, access);
  }
  try {
    db.pragma('busy_timeout = 5000');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version === 0 && access !== 'create') {
      throw new UserError(`${path} holds no run (its tables were never written): start the run with coop-bench run, or choose another --name`);
    }
    const since = walLost ? openedWithWritesLost(db) : undefined;
    if (since) {
      throw new UserError(
        `${path} was left open by a coop-bench process (since ${since}) and its write-ahead log ${path}-wal is gone: the results it held are lost, and the store is refused rather than read as an older run. Put run.db-wal back if you have it, or move the run folder away and run again`,
      );
    }
    if (version > migrations.length) {
      throw new UserError(`run.db was written by a newer coop-bench (schema ${version}, this one knows ${migrations.length}): upgrade coop-bench`);
    }
    // A reader of a store written by an older coop-bench brings its schema up to date first.
    if (access === 'read') {
      if (version === migrations.length) {
        if (walAbsent) readersThatMadeWal.set(db, dir);
        return db;
      }
      db.close();
      return openDatabase(path, dir, 'write');
    }
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    // Off while migrating (better-sqlite3 turns them on by default): a migration that rebuilds a
    // table must not delete the rows pointing at it.
    db.pragma('foreign_keys = OFF');
    migrate(db);
    db.pragma('foreign_keys = ON');
    db.prepare('UPDATE store_state SET writer_opened_at = ?').run(new Date().toISOString());
    // In run.db itself before anything else is written: a lost WAL is then told from a clean close.
    checkpoint(db, 'FULL');
    openWriters.add(db);
    return db;
  } catch (error) {
    db.close();
    throw error instanceof UserError ? error : openFailure(error, path, dir, access);
  }
}

/** Clears the open marker of a writer (the close then checkpoints and removes the WAL) and closes. */
export function closeDatabase(db: Database.Database): void {
  openWriters.delete(db);
  if (!db.open) return;
  try {
    if (!db.readonly) {
      // Emptying the WAL first frees its space: on a full disk the marker's clearing then still fits.
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.prepare('UPDATE store_state SET writer_opened_at = NULL').run();
    }
  } finally {
    const name = db.name;
    db.close();
    const dir = readersThatMadeWal.get(db);
    if (dir !== undefined) removeReaderFiles(name, dir);
  }
}

/**
 * A read-only open of a WAL database makes an empty run.db-wal and run.db-shm (SQLite needs them to
 * read) and, being read-only, cannot remove them on close as a writer's close does. A reader that
 * found neither removes them again while no run can be using them (the run's lock is free, or the
 * store has none), so `report` leaves a run folder as it found it.
 */
function removeReaderFiles(path: string, dir: string): void {
  if (!walHoldsNothing(path)) return;
  const lock = probeRunLock(dir);
  if (lock.state === 'held' || lock.state === 'unreadable') return;
  try {
    rmSync(`${path}-wal`, { force: true });
    rmSync(`${path}-shm`, { force: true });
  } finally {
    if (lock.state === 'free') lock.lock.release();
  }
}
