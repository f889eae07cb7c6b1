// Reads CooperBench subset files: {"name", "tasks": [{"repo", "task_id", "pairs": [[i, j], ...]}]}.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Subset } from './types.ts';
import { TaskInputError } from './errors.ts';

const subsetSchema = z.object({
  name: z.string(),
  tasks: z.array(
    z.object({
      repo: z.string().min(1),
      task_id: z.number().int().nonnegative(),
      pairs: z.array(z.array(z.number().int().positive()).min(2)),
    }),
  ),
});

/** A subset by path, or by name from `<poolsRoot>/subsets/<name>.json`. */
export function loadSubset(nameOrPath: string, poolsRoot: string): Subset {
  const candidates = [nameOrPath, join(poolsRoot, 'subsets', `${nameOrPath}.json`)];
  const path = candidates.find((p) => existsSync(p) && p.endsWith('.json'));
  if (!path) {
    throw new TaskInputError(
      `subset "${nameOrPath}" not found (looked for ${candidates.join(' and ')}): pass a subset JSON file or a name under <pools>/subsets/`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new TaskInputError(`subset ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = subsetSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TaskInputError(
      `subset ${path} is malformed at ${issue.path.join('.') || '(top)'}: ${issue.message} (expected {"name", "tasks": [{"repo", "task_id", "pairs": [[i, j]]}]})`,
    );
  }
  return parsed.data;
}
