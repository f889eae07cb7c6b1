// Docker lives in its backend's folder: no other module of coop-bench imports dockerode or a file of
// harness/sandbox/docker/, except the registry's one registration line (a lazy import). The
// pipeline reaches Docker only through the SandboxBackend interface.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { PROJECT_ROOT } from '../../../../harness/paths.ts';

/** The product's code: what `coop-bench` runs (tests and benchmarks may drive a backend directly). */
const PRODUCT = ['harness', 'tasks', 'resolver', 'judges', 'reports', 'bin'];
const DOCKER_DIR = 'harness/sandbox/docker/';
const REGISTRY = 'harness/sandbox/registry.ts';

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourcesUnder(path);
    return /\.(ts|mts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Every module a file imports (static, dynamic, re-exports, require), relative ones as project paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]);
  return specifiers.map((spec) => (spec.startsWith('.') ? relative(PROJECT_ROOT, resolve(PROJECT_ROOT, dirname(file), spec)) : spec));
}

const isDocker = (target: string) =>
  target === 'dockerode' || target.startsWith('dockerode/') || target.startsWith(DOCKER_DIR) || target.startsWith('harness/docker/');

describe('import graph', () => {
  const files = PRODUCT.flatMap((dir) => {
    try {
      return sourcesUnder(dir);
    } catch {
      return [];
    }
  });

  it('reads the whole product (sanity check of the walk)', () => {
    expect(files).toContain('harness/run/execute-task.ts');
    expect(files).toContain('harness/agents/llm-agent.ts');
    expect(files.filter((f) => f.startsWith(DOCKER_DIR)).length).toBeGreaterThan(3);
    expect(importsOf('harness/sandbox/docker/engine.ts')).toContain('dockerode');
  });

  it("no module outside the Docker backend's folder imports dockerode or that folder", () => {
    const offenders = files
      .filter((file) => !file.startsWith(DOCKER_DIR))
      .flatMap((file) =>
        importsOf(file)
          .filter(isDocker)
          .map((target) => `${file} -> ${target}`),
      )
      .filter((edge) => edge !== `${REGISTRY} -> ${DOCKER_DIR}backend.ts`);
    expect(offenders).toEqual([]);
  });

  it('the registry reaches the Docker backend through one lazy registration line', () => {
    const lines = readFileSync(join(PROJECT_ROOT, REGISTRY), 'utf8')
      .split('\n')
      .filter((line) => line.includes('./docker/'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/await import\('\.\/docker\/backend\.ts'\)/);
  });
});
