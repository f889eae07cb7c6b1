// A run store that cannot be written or read (a full disk, an exhausted quota, a read-only or
// failing device, a damaged file) is no task's failure: every later access fails the same way. It
// is one line naming the cause and what to do, and the run stops where it can be resumed once the
// cause is fixed.
import { RunStopError, errorMessage } from '../errors.ts';

const FIX_DEVICE = 'free space (or fix the device)';
const RESTORE = 'restore run.db from a copy, or move the run folder away and start the run afresh';

interface Cause {
  /** Error codes of Node (fs) and of SQLite (better-sqlite3; extended codes by their prefix). */
  codes: RegExp;
  verb: string;
  cause: string;
  remedy: string;
}

const CAUSES: Cause[] = [
  { codes: /^(ENOSPC|SQLITE_FULL)$/, verb: 'cannot write', cause: 'the disk is full', remedy: FIX_DEVICE },
  { codes: /^EDQUOT$/, verb: 'cannot write', cause: 'the disk quota is exhausted', remedy: FIX_DEVICE },
  { codes: /^(EROFS|SQLITE_READONLY(_\w+)?)$/, verb: 'cannot write', cause: 'the file system is read-only', remedy: FIX_DEVICE },
  { codes: /^SQLITE_IOERR(_\w+)?$/, verb: 'cannot write', cause: 'the disk failed a read or write', remedy: FIX_DEVICE },
  {
    codes: /^(EACCES|EPERM|SQLITE_PERM|SQLITE_AUTH)$/,
    verb: 'cannot access',
    cause: 'permission denied',
    remedy: 'give this user read and write access to the run folder and its files',
  },
  { codes: /^(SQLITE_CORRUPT(_\w+)?|SQLITE_NOTADB)$/, verb: 'cannot read', cause: 'run.db is damaged', remedy: RESTORE },
  {
    codes: /^SQLITE_CANTOPEN(_\w+)?$/,
    verb: 'cannot open',
    cause: 'run.db cannot be opened',
    remedy: 'check that the run folder and run.db exist and this user can read and write them',
  },
];

export class StorageError extends RunStopError {
  constructor(
    message: string,
    readonly code: string,
    remedy: string,
  ) {
    super(message, remedy);
  }
}

/** The storage failure behind `error`, as one line naming the cause; undefined when it is something else. */
export function storageFailure(error: unknown, dir?: string): StorageError | undefined {
  if (error instanceof StorageError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  const found = CAUSES.find((c) => c.codes.test(code));
  if (!found) return undefined;
  const where = dir ? ` in ${dir}` : '';
  // Node's messages start with their code already ("ENOSPC: no space left on device, write").
  const detail = errorMessage(error).split('\n')[0];
  return new StorageError(`${found.verb}${where}: ${found.cause} (${detail.startsWith(code) ? detail : `${code}: ${detail}`})`, code, found.remedy);
}
