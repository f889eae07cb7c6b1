// Reading a logs folder someone else wrote: folders are entered only as real folders (never
// through a link, so nothing outside the folder is read), files are opened without following
// links and without waiting (a named pipe would block a plain open forever), only regular files
// are read, and every file has a size limit. Problems are returned as text, for the task's report;
// a file that is not a regular file refuses the whole import.
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { UserError } from '../errors.ts';

export const LIMITS = {
  /** result.json, conversation.json, config.json. */
  smallJson: 8 * 1024 * 1024,
  /** eval.json holds test output; trajectories hold whole model conversations. */
  largeJson: 64 * 1024 * 1024,
  patch: 16 * 1024 * 1024,
  /** Task folders in one import. */
  taskFolders: 100_000,
  /** Trajectory entries kept per agent. */
  steps: 5_000,
  /** Messages kept per task. */
  messages: 2_000,
} as const;

export type Read<T> = { ok: true; value: T } | { ok: false; missing: boolean; problem: string };

/** The real sub-folders of `dir` (links and files left out), sorted by name. */
export function subfolders(dir: string): { name: string; path: string }[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({ name: entry.name, path: join(dir, entry.name) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Names of links in `dir`: reported, never followed. */
export function linksIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isSymbolicLink())
    .map((entry) => entry.name)
    .sort();
}

function kindOf(stat: Stats): string {
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return stat.isDirectory() ? 'a folder' : 'not a regular file';
}

export function readText(dir: string, name: string, maxBytes: number): Read<string> {
  let fd: number;
  try {
    fd = openSync(join(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, missing: true, problem: `no ${name}` };
    if (code === 'ELOOP') return { ok: false, missing: true, problem: `${name} is a link: not followed` };
    return { ok: false, missing: true, problem: `${name} cannot be read (${code ?? (error as Error).message})` };
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) return { ok: false, missing: true, problem: `${name} is a folder, not a file` };
    if (!stat.isFile())
      throw new UserError(`${join(dir, name)} is ${kindOf(stat)}, not a regular file: import refused (remove it, or import a copy of the logs)`);
    if (stat.size > maxBytes) return { ok: false, missing: false, problem: `${name} is ${stat.size} bytes, over the limit of ${maxBytes}: not read` };
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return { ok: true, value: buffer.subarray(0, read).toString('utf8') };
  } finally {
    closeSync(fd);
  }
}

/** A JSON file checked against its schema; the problem names the first wrong field. */
export function readJson<S extends z.ZodType>(dir: string, name: string, schema: S, maxBytes: number): Read<z.infer<S>> {
  const text = readText(dir, name, maxBytes);
  if (!text.ok) return text;
  let value: unknown;
  try {
    value = JSON.parse(text.value);
  } catch (error) {
    return { ok: false, missing: false, problem: `${name} is not JSON (${(error as Error).message.slice(0, 200)})` };
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'the top level';
    return { ok: false, missing: false, problem: `${name} does not have the expected fields: ${where}: ${issue?.message ?? 'invalid'}` };
  }
  return { ok: true, value: parsed.data };
}

/** A JSON-lines file (Claude Code's logs): the objects on its lines, lines that are not JSON skipped. */
export function readJsonLines(dir: string, name: string, maxBytes: number): Read<Record<string, unknown>[]> {
  const text = readText(dir, name, maxBytes);
  if (!text.ok) return text;
  const objects: Record<string, unknown>[] = [];
  for (const line of text.value.split('\n')) {
    if (!line.trimStart().startsWith('{')) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (value && typeof value === 'object' && !Array.isArray(value)) objects.push(value as Record<string, unknown>);
    } catch {
      // As the reference harness's parsers do: a line that is not JSON is skipped.
    }
  }
  return { ok: true, value: objects };
}

/**
 * Times as the logs hold them: ISO text (Python's isoformat has no zone and six fraction digits:
 * read as UTC, to the millisecond) or seconds since 1970 (time.time()). Undefined when unreadable.
 */
export function isoTime(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
    const ms = value > 1e12 ? value : value * 1000;
    const date = new Date(ms);
    return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
  }
  if (typeof value !== 'string') return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/.exec(value.trim());
  if (!m) return undefined;
  const fraction = m[3] ? m[3].slice(0, 4) : '';
  const date = new Date(`${m[1]}T${m[2]}${fraction}${m[4] ?? 'Z'}`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
