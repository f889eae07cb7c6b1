// A pool shaped like CooperBench's Python pools, generated at bench time from the shipped tabulite
// pool: the same features and runner (pytest), grown to a repository of a few MB (generated data
// modules), and a suite whose every run does about a second of pure-Python work (a session fixture
// in the repository's conftest.py), as the pytest suites of real pools do. The content is fixed, so
// its image is built once per version of this file.
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHIPPED_POOLS } from '../harness/paths.ts';

/** Generated data: modules of this many bytes each. */
const MODULE_BYTES = 256 * 1024;
const MODULES = 16;
/**
 * Loop iterations of the fixture: a suite that collects runs ~1.1 s alone on this machine, the mean
 * of real CooperBench pools' feature runs (557 s for 250 pairs' 500). Shorter suites would weigh
 * the harness's fixed cost per pair more than real pools do.
 */
const WORK = 12_000_000;

const CONFTEST = `# The workload of a realistic suite: CPU-bound Python for about a second per run.
import pytest


@pytest.fixture(scope="session", autouse=True)
def suite_workload():
    total = 0
    for i in range(${WORK}):
        total = (total + i * i) % 1000003
    yield total
`;

/** Deterministic data: a module of hex constants (what vendored tables, fixtures, generated code weigh). */
function dataModule(index: number): string {
  let state = 0x9e3779b9 ^ index;
  const lines = [`# Generated table ${index} (bench data).`, 'TABLE = ['];
  let size = 0;
  while (size < MODULE_BYTES) {
    const words: string[] = [];
    for (let w = 0; w < 6; w++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      words.push(`0x${state.toString(16).padStart(8, '0')}`);
    }
    const line = `    ${words.join(', ')},`;
    lines.push(line);
    size += line.length + 1;
  }
  lines.push(']', '');
  return lines.join('\n');
}

/** Writes the pool (again: it is small to write, and a leftover of another version must not stay); returns its task folder. */
export function realisticPool(): string {
  const root = join(tmpdir(), 'coop-bench-bench-realistic');
  const task = join(root, 'tabulite_large_task', 'task1');
  if (existsSync(root)) rmSync(root, { recursive: true, force: true });
  mkdirSync(task, { recursive: true });
  // Every feature (15 pairs): fewer pairs would weigh a run's fixed costs more than a real pool does.
  cpSync(join(SHIPPED_POOLS, 'tabulite_task', 'task1'), task, { recursive: true });
  const data = join(task, 'repo', 'tabulite', 'data');
  mkdirSync(data, { recursive: true });
  writeFileSync(join(data, '__init__.py'), '');
  for (let i = 0; i < MODULES; i++) writeFileSync(join(data, `table_${String(i).padStart(2, '0')}.py`), dataModule(i));
  writeFileSync(join(task, 'repo', 'conftest.py'), CONFTEST);
  return task;
}

export const REALISTIC_REPO_MB = (MODULES * MODULE_BYTES) / 1024 ** 2;
