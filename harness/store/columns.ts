// The JSON columns of run.db are read through here and checked for the shape the code expects: a
// damaged row (invalid JSON, a wrong shape) is one line naming its table, column and task, and it
// costs that task, not the command reading the run.
import { UserError } from '../errors.ts';

export class DamagedRowError extends UserError {}

export interface Shape<T> {
  what: string;
  test: (value: unknown) => value is T;
}

export const NUMBER_LIST: Shape<number[]> = {
  what: 'a list of numbers',
  test: (v): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number'),
};
export const STRING_LIST: Shape<string[]> = {
  what: 'a list of strings',
  test: (v): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string'),
};
export const NUMBER_RECORD: Shape<Record<string, number>> = {
  what: 'an object of numbers',
  test: (v): v is Record<string, number> => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'number'),
};
export const ANY_JSON: Shape<unknown> = { what: 'JSON', test: (_value): _value is unknown => true };

/** `raw` parsed and checked; a DamagedRowError naming `table.column` and its row (`task <key>`) otherwise. */
export function jsonColumn<T>(raw: unknown, shape: Shape<T>, where: { table: string; column: string; of: string }): T {
  const damaged = (why: string) => new DamagedRowError(`run.db has a damaged row: ${where.table}.${where.column} of ${where.of} ${why}`);
  if (typeof raw !== 'string') throw damaged(`is ${raw === null ? 'NULL' : typeof raw}, not JSON text`);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw damaged(`is not valid JSON (${(error as Error).message})`);
  }
  if (!shape.test(value)) throw damaged(`is not ${shape.what}`);
  return value;
}

/** `raw` parsed and checked, or `fallback` when damaged (for a reader that names the damage elsewhere). */
export function jsonOr<T>(raw: unknown, shape: Shape<T>, fallback: T): T {
  try {
    return jsonColumn(raw, shape, { table: '', column: '', of: '' });
  } catch (error) {
    if (error instanceof DamagedRowError) return fallback;
    throw error;
  }
}

/**
 * A task's models and features as its key spells them (`gpt-5+claude|coop|repo/task1|f1_f2`):
 * what readers show of a task whose own columns are damaged.
 */
export function fromTaskKey(key: string): { models: string[]; features: number[] } {
  const parts = key.split('|');
  return { models: parts[0] ? parts[0].split('+') : [], features: [...(parts.at(-1) ?? '').matchAll(/f(\d+)/g)].map((m) => Number(m[1])) };
}
