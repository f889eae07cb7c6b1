// A run folder that cannot be written (a full disk, an exhausted quota, a read-only or failing
// device) is no task's failure: every later write fails the same way. It is one line naming the
// cause, and the run stops where it can be resumed once the cause is fixed.
import { UserError, errorMessage } from '../errors.ts';

/** Error codes of Node (fs) and of SQLite (better-sqlite3, extended codes by their prefix) that mean the folder cannot take writes. */
const CAUSES: [RegExp, string][] = [
  [/^(ENOSPC|SQLITE_FULL)$/, 'the disk is full'],
  [/^EDQUOT$/, 'the disk quota is exhausted'],
  [/^(EROFS|SQLITE_READONLY(_\w+)?)$/, 'the file system is read-only'],
  [/^SQLITE_IOERR(_\w+)?$/, 'the disk failed a read or write'],
];

export class StorageError extends UserError {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** The storage failure behind `error`, as one line naming the cause; undefined when it is something else. */
export function storageFailure(error: unknown, dir?: string): StorageError | undefined {
  if (error instanceof StorageError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  const cause = CAUSES.find(([pattern]) => pattern.test(code))?.[1];
  if (!cause) return undefined;
  const where = dir ? ` in ${dir}` : '';
  // Node's messages start with their code already ("ENOSPC: no space left on device, write").
  const detail = errorMessage(error).split('\n')[0];
  return new StorageError(`cannot write${where}: ${cause} (${detail.startsWith(code) ? detail : `${code}: ${detail}`})`, code);
}
