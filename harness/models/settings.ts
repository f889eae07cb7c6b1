// Keys, endpoints and the price file come from the environment first, then from `./.env`.
// The .env values are looked up by name and never copied into process.env: whatever
// process.env holds may reach containers, logs and trajectories, and keys must not.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { UserError } from '../errors.ts';

export interface SettingsSource {
  /** Variables to read first (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Directory whose `.env` is read next (default: the current directory). */
  cwd?: string;
  /** The run's date, YYYY-MM-DD, against which model retirements are checked (default: $COOP_BENCH_TODAY, else today). */
  today?: string;
}

export const TODAY_VARIABLE = 'COOP_BENCH_TODAY';

export type ReadSetting = (name: string) => string | undefined;

/** A lookup by variable name; `.env` is read once, on the first name the environment lacks. */
export function settingsReader(source: SettingsSource = {}): ReadSetting {
  const env = source.env ?? process.env;
  const cwd = source.cwd ?? process.cwd();
  let dotEnv: Record<string, string | undefined> | undefined;
  return (name) => {
    if (env[name]) return env[name];
    dotEnv ??= readDotEnv(cwd);
    return dotEnv[name] || undefined;
  };
}

function readDotEnv(dir: string): Record<string, string | undefined> {
  const file = path.join(dir, '.env');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    throw new UserError(`cannot read ${file} (${code ?? 'unknown error'}): fix its permissions or remove it`);
  }
  return parseEnv(text);
}

/**
 * The run's date: `today`, else COOP_BENCH_TODAY, else the clock. Set it to see how a run would
 * fare on another day (a model that retires in between is refused).
 */
export function runDate(source: SettingsSource = {}, readSetting: ReadSetting = settingsReader(source)): Date {
  // Not a secret, and it holds for the whole process: read from process.env too when `env` is given.
  const given = source.today ?? readSetting(TODAY_VARIABLE) ?? (process.env[TODAY_VARIABLE] || undefined);
  if (given === undefined) return new Date();
  const date = new Date(`${given}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(given) || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== given) {
    throw new UserError(`${TODAY_VARIABLE} is not a day ("${given}"): write it as YYYY-MM-DD, or unset it to use today`);
  }
  return date;
}
