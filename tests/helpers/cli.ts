// Runs the real coop-bench command line, as a user would.
import { execa, type ResultPromise } from 'execa';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import Database from 'better-sqlite3';
import { PROJECT_ROOT } from '../../harness/paths.ts';

export const CLI = join(PROJECT_ROOT, 'bin', 'coop-bench.js');

export function coopBench(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}) {
  return execa('node', [CLI, ...args], { reject: false, all: true, cwd: options.cwd ?? PROJECT_ROOT, env: options.env, timeout: 1_800_000 });
}

export type CliProcess = ResultPromise<{ reject: false; all: true }>;

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `coop-bench-${prefix}-`));
}

/**
 * Makes a copy of a pool this test process's own: a file in its build context gives its image a name
 * no other process builds, so the afterAll that removes the image never removes one another test
 * run on the same engine still uses.
 */
export function ownPoolCopy(poolDir: string): void {
  writeFileSync(join(poolDir, 'test-process.txt'), `${process.pid} ${Date.now()}\n`);
}

/** Containers of one run (any state). */
export async function containersOf(run: string): Promise<Docker.ContainerInfo[]> {
  return new Docker().listContainers({ all: true, filters: { label: [`coop-bench.run=${run}`] } });
}

/** Rows of a query on a run's run.db, opened read-only as a user inspecting results would. */
export function queryRun<T>(runsDir: string, run: string, sql: string): T[] {
  const db = new Database(join(runsDir, run, 'run.db'), { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}
