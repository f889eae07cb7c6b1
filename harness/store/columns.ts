// Rows of run.db are parsed once, where they are read, with zod schemas built from the stages' own
// types (merge statuses, agent endings, judge names). A damaged row (invalid JSON, a wrong shape, an
// unknown status) is one line naming its table, column and task, and it costs that task, not the
// command reading the run.
import { z } from 'zod';
import { UserError } from '../errors.ts';

export class DamagedRowError extends UserError {}

/** Where a row is: `{ table: 'tasks', of: 'task <key>' }`. */
export interface RowPlace {
  table: string;
  of: string;
}

export const NUMBER_LIST = z.array(z.number());
export const STRING_LIST = z.array(z.string());
export const NUMBER_RECORD = z.record(z.string(), z.number());
export const ANY_JSON = z.unknown();

/** A TEXT column holding JSON of `schema`'s shape. */
export function json<T extends z.ZodType>(schema: T) {
  return z
    .string({ error: (issue) => `is ${issue.input === null ? 'NULL' : typeof issue.input}, not JSON text` })
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `is not valid JSON (${(error as Error).message})` });
        return z.NEVER;
      }
    })
    .pipe(schema);
}

/** 0/1 INTEGER column as a boolean. */
export const flag = z.union([z.literal(0), z.literal(1)]).transform((v) => v === 1);

/** A TEXT column holding one of `values`. */
export const oneOf = (values: readonly string[]) => z.string().refine((v) => values.includes(v), { error: `is not one of ${values.join(', ')}` });

function damaged(error: z.ZodError, place: RowPlace, column?: string): DamagedRowError {
  const issue = error.issues[0]!;
  const path = [...(column ? [column] : []), ...issue.path.map(String)];
  const why = issue.code === 'custom' || issue.message.startsWith('is ') ? issue.message : `is not valid (${issue.message})`;
  return new DamagedRowError(`run.db has a damaged row: ${place.table}.${path.join('.')} of ${place.of} ${why}`);
}

/** `row` parsed by `schema`; a DamagedRowError naming the row's first bad column otherwise. */
export function parseRow<T extends z.ZodType>(schema: T, row: unknown, place: RowPlace): z.output<T> {
  const result = schema.safeParse(row);
  if (!result.success) throw damaged(result.error, place);
  return result.data;
}

/** One JSON column parsed and checked; a DamagedRowError naming `table.column` and its row otherwise. */
export function jsonColumn<T extends z.ZodType>(raw: unknown, schema: T, where: RowPlace & { column: string }): z.output<T> {
  const result = json(schema).safeParse(raw);
  if (!result.success) throw damaged(result.error, where, where.column);
  return result.data;
}

/** `read()`, or `fallback` with the damage named in `damaged` (for readers that carry on past a damaged row). */
export function orDamaged<T>(read: () => T, fallback: T, damagedRows: string[], consequence: string): { value: T; damage?: string } {
  try {
    return { value: read() };
  } catch (error) {
    if (!(error instanceof DamagedRowError)) throw error;
    damagedRows.push(`${error.message}: ${consequence}`);
    return { value: fallback, damage: error.message };
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
