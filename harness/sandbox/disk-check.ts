// The doctor's verdict on free disk space, shared by the runs folder and a backend's image store.
import { statfsSync } from 'node:fs';
import type { CheckResult, CheckStatus } from './types.ts';

const GIB = 1024 ** 3;
/** Below this a run fails to build images or store results; below WARN_FREE_BYTES it may. */
const MIN_FREE_BYTES = 2 * GIB;
const WARN_FREE_BYTES = 10 * GIB;

export const result = (status: CheckStatus, name: string, detail: string): CheckResult => ({ status, name, detail });

export function diskCheck(name: string, path: string, freeBytes: number): CheckResult {
  const free = `${(freeBytes / GIB).toFixed(1)} GiB free at ${path}`;
  if (freeBytes < MIN_FREE_BYTES)
    return result('FAIL', name, `${free}: images and results need more; free some space (docker image prune, old runs) or use another --runs-dir`);
  if (freeBytes < WARN_FREE_BYTES) return result('warn', name, `${free}: pool images take about 0.5-3 GiB each; a large run may fill it`);
  return result('ok', name, free);
}

export function freeBytes(path: string): number {
  const stats = statfsSync(path);
  return stats.bavail * stats.bsize;
}
