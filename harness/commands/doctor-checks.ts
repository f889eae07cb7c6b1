// What `coop-bench doctor` checks: everything a run needs from the machine, each with what to do
// when it is missing. No check changes anything or calls a model API.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { execa } from 'execa';
import type { Pool } from '../../tasks/types.ts';
import { discoverPools } from '../../tasks/pools.ts';
import { createBackend, type BackendChoice } from '../sandbox/registry.ts';
import type { CheckResult, CheckStatus } from '../sandbox/types.ts';
import { diskCheck, freeBytes, result } from '../sandbox/disk-check.ts';
import { parseAgentSpec } from '../agents/registry.ts';
import { PLACEHOLDER_KEY, resolveModel } from '../models/resolve.ts';
import type { ModelOptions } from '../models/index.ts';
import { errorMessage } from '../errors.ts';

export type { CheckResult, CheckStatus };

export interface DoctorOptions {
  models: string[];
  poolsDir: string;
  runsDir: string;
  modelOptions: ModelOptions;
  /** The sandbox backend whose needs to check (its engine, its images). */
  backend: BackendChoice;
}

export function checkNode(version = process.versions.node): CheckResult {
  const major = Number(version.split('.')[0]);
  return major >= 20
    ? result('ok', 'node', version)
    : result('FAIL', 'node', `${version}: coop-bench needs Node 20 or later: install it (nodejs.org, or your distribution's nodejs package)`);
}

export async function checkHostTools(): Promise<CheckResult> {
  const found: string[] = [];
  const missing: string[] = [];
  for (const tool of ['git', 'tar']) {
    const run = await execa(tool, ['--version'], { reject: false });
    if (run.exitCode === 0) found.push(run.stdout.split('\n')[0]);
    else missing.push(tool);
  }
  if (missing.length)
    return result('FAIL', 'host tools', `${missing.join(' and ')} not found (merges and base repositories need them): apt-get install -y ${missing.join(' ')}`);
  return result('ok', 'host tools', found.join(', '));
}

/** Each model spec: the key it would use, or the one line that says what is missing. */
export function checkModels(specs: string[], options: ModelOptions): CheckResult[] {
  if (specs.length === 0) return [result('skip', 'models', 'pass --models <list> to check their API keys')];
  return specs.map((spec) => {
    const warnings: string[] = [];
    try {
      const agent = parseAgentSpec(spec);
      if (agent.kind === 'builtin') return result('ok', `model ${spec}`, 'built in, needs no key');
      const model = resolveModel(agent.model, { ...options, warn: (w) => warnings.push(w) });
      const key = model.apiKey === PLACEHOLDER_KEY ? 'no key needed' : `key from ${model.keyVariable} (not verified online)`;
      if (!model.price) return result('warn', `model ${spec}`, `${key}; no price for ${model.model}: its calls count as $0 (add it to a --prices file)`);
      return result('ok', `model ${spec}`, `${model.model} at ${new URL(model.baseURL).host}, ${key}`);
    } catch (error) {
      return result('FAIL', `model ${spec}`, errorMessage(error));
    }
  });
}

function nearestExisting(path: string): string {
  let dir = resolve(path);
  while (!existsSync(dir)) dir = dirname(dir);
  return dir;
}

export function checkRunsDir(runsDir: string): CheckResult[] {
  const dir = nearestExisting(runsDir);
  try {
    if (!statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`);
    accessSync(dir, constants.W_OK);
  } catch (error) {
    return [result('FAIL', 'runs dir', `${resolve(runsDir)} cannot be written (${errorMessage(error)}): choose a writable --runs-dir`)];
  }
  return [result('ok', 'runs dir', `${resolve(runsDir)} is writable`), diskCheck('disk (runs)', dir, freeBytes(dir))];
}

export async function runChecks(options: DoctorOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = [checkNode(), await checkHostTools()];
  let pools: Pool[] = [];
  try {
    pools = discoverPools(options.poolsDir);
  } catch (error) {
    results.push(result('FAIL', 'pools', errorMessage(error)));
  }
  try {
    const backend = await createBackend(options.backend.name, { ...options.backend, log: () => undefined });
    results.push(...((await backend.doctorChecks?.(pools)) ?? []));
  } catch (error) {
    results.push(result('FAIL', `${options.backend.name} backend`, errorMessage(error)));
  }
  results.push(...checkModels(options.models, options.modelOptions), ...checkRunsDir(options.runsDir));
  return results;
}
