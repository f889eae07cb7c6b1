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
}

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
