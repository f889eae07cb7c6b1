import { Command } from 'commander';
import { execa } from 'execa';
import pLimit from 'p-limit';
import { discoverPools, scanPools } from '../../tasks/pools.ts';
import { combinations } from '../../tasks/plan.ts';
import { poolKey, type Feature, type Pool } from '../../tasks/types.ts';
import { validatePool, type PoolChecks, type TestVerdict, type UnionOutcome } from '../../tasks/validate.ts';
import { attemptOf, dropTestFiles, runCascade } from '../../resolver/index.ts';
import { runFeatureTests } from '../evaluation/run-tests.ts';
import type { TestRun } from '../evaluation/test-run.ts';
import type { TestCache } from '../evaluation/test-cache.ts';
import { createBackend } from '../sandbox/registry.ts';
import type { BackendSlot } from '../sandbox/types.ts';
import { SHIPPED_POOLS } from '../paths.ts';
import { addBackendOptions, addContainerOptions, backendChoice, containerLimits } from './options.ts';
import { errorMessage } from '../errors.ts';

const VALIDATE_RUN = 'pools-validate';

async function sandboxChecks(
  slot: BackendSlot,
  pool: Pool,
  o: { memory: number; cpus: number; pids: number; disk: number; testTimeout: number },
  log: (line: string) => void,
): Promise<PoolChecks> {
  const image = await slot.prepareImage(pool, VALIDATE_RUN, log);
  const base = await slot.baseRepo(image, VALIDATE_RUN);
  const limit = pLimit(4);
  // The same code is tested once (the two union orders often give the same code).
  const results = new Map<string, TestRun>();
  const cache: TestCache = { get: (key) => results.get(JSON.stringify(key)), put: (key, run) => results.set(JSON.stringify(key), run) };
  const options = { slot, image, run: VALIDATE_RUN, limits: containerLimits(o), timeoutMs: o.testTimeout * 1000, cache };
  const test = (feature: Feature, patch: string) => limit(() => runFeatureTests(feature, patch, options));
  const verdict = (run: TestRun): TestVerdict => {
    const counts = run.counts ? `${run.counts.passed} passed, ${run.counts.failed} failed` : `exit ${run.exitCode}`;
    return { passed: run.passed, summary: run.cause ? `${counts}: ${run.cause}` : counts, output: run.output, testsPassed: run.counts?.passed };
  };
  return {
    async applyError(patch) {
      const result = await execa('git', ['-c', 'safe.directory=*', 'apply', '--check', '-'], { cwd: base.dir, input: patch, reject: false });
      return result.exitCode === 0 ? undefined : result.stderr.trim().split('\n')[0];
    },
    runTests: async (feature, patch) => verdict(await test(feature, patch)),
    async goldMerge(features, patches) {
      const { attempts } = await runCascade<TestRun[]>(
        { repoDir: base.dir, baseRev: base.rev, patches },
        {
          test: async (patch) => {
            const runs = await Promise.all(features.map((feature) => test(feature, patch)));
            return { passed: runs.every((run) => run.passed), verdict: runs };
          },
        },
      );
      const outcome = (stage: string): UnionOutcome | undefined => {
        const attempt = attemptOf(attempts, stage);
        if (!attempt) return undefined;
        return attempt.tested ? { verdicts: attempt.tested.verdict.map(verdict) } : { conflict: attempt.reason ?? attempt.outcome };
      };
      return {
        naiveClean: attemptOf(attempts, 'naive')?.outcome === 'merged',
        union: outcome('union'),
        unionReversed: outcome('union-reversed'),
        structural: outcome('structural'),
      };
    },
    codeOf: (patch) => dropTestFiles(patch).patch,
  };
}

function listCommand(): Command {
  return new Command('list')
    .description('list the pools of a dataset folder and their pairs')
    .argument('[dir]', 'dataset folder in the CooperBench layout', SHIPPED_POOLS)
    .action((dir: string) => {
      const pools = discoverPools(dir);
      let pairs = 0;
      for (const pool of pools) {
        const n = combinations(
          pool.features.map((f) => f.id),
          2,
        ).length;
        pairs += n;
        const build = pool.dockerfilePath ? 'Dockerfile' : `no Dockerfile (needs image ${pool.publishedImage})`;
        process.stdout.write(`${poolKey(pool)}  ${pool.features.length} features  ${n} pairs  ${build}\n`);
      }
      process.stdout.write(`${pools.length} pools, ${pairs} pairs\n`);
    });
}

function validateCommand(): Command {
  const command = new Command('validate')
    .description(
      "check that a pool measures what it should: gold patches apply and pass, tests fail on the base, combined passes all; print the conflict matrix and how each pair's gold patches merge",
    )
    .argument('<dirs...>', 'pool folders (a dataset, a repo folder or one task<id> folder)');
  return addContainerOptions(addBackendOptions(command)).action(async (dirs: string[], o) => {
    const scans = dirs.map((dir) => scanPools(dir));
    const pools = scans.flatMap((scan) => scan.pools);
    // Unusable files (links out of the pool, oversized or special files): invalid without a sandbox.
    const invalid = scans.flatMap((scan) => scan.invalid);
    for (const { pool, dir, problems } of invalid) {
      process.stdout.write(
        `${pool} (${dir})\n${problems.map((p) => `  FAIL: ${p}\n`).join('')}  ${pool}: INVALID (${problems.length} problem${problems.length > 1 ? 's' : ''})\n`,
      );
    }
    const { name, ...where } = backendChoice(o);
    const backend = await createBackend(name, { ...where, log: (line) => process.stderr.write(`${line}\n`) });
    if (pools.length > 0) await backend.prepareRun(VALIDATE_RUN, pools);
    const slot = backend.acquire();
    let failed = invalid.length;
    for (const pool of pools) {
      const log = (line: string) => process.stderr.write(`  ${line}\n`);
      process.stdout.write(`${poolKey(pool)} (${pool.dir})\n`);
      let failures: string[];
      try {
        const report = await validatePool(pool, await sandboxChecks(slot, pool, o, log), log);
        report.lines.forEach((line) => process.stdout.write(`  ${line}\n`));
        report.warnings.forEach((w) => process.stdout.write(`  warning: ${w}\n`));
        failures = report.failures;
      } catch (error) {
        failures = [errorMessage(error)];
      }
      failures.forEach((f) => process.stdout.write(`  FAIL: ${f}\n`));
      process.stdout.write(
        failures.length ? `  ${poolKey(pool)}: INVALID (${failures.length} problem${failures.length > 1 ? 's' : ''})\n` : `  ${poolKey(pool)}: valid\n`,
      );
      if (failures.length) failed++;
    }
    process.exitCode = failed > 0 ? 1 : 0;
  });
}

export function poolsCommand(): Command {
  return new Command('pools').description('inspect and validate feature pools').addCommand(listCommand()).addCommand(validateCommand());
}
