import { Command } from 'commander';
import { reEvaluate } from '../run/re-evaluate.ts';
import { addContainerOptions, addBackendOptions, containerLimits, backendChoice, positiveInt } from './options.ts';
import { addMergeStageOptions, mergeStageOptions } from './merge.ts';

export function evalCommand(): Command {
  const command = new Command('eval')
    .description("merge and test a run's stored patches again, without running agents")
    .requiredOption('--name <run>', 'the run to evaluate')
    .option('--runs-dir <dir>', 'where runs are stored', 'runs')
    .option('--concurrency <n>', 'tasks evaluated at the same time', positiveInt, 2)
    .option('--image <name>', 'use this image for every pool instead of building')
    .option('--pools <dir>', "an imported run's dataset folder in the CooperBench layout (its logs do not say where its pools are)")
    .option('--no-cache', 'run every test again instead of reusing results for unchanged image, tests and code');
  return addMergeStageOptions(addContainerOptions(addBackendOptions(command))).action(async (o) => {
    process.exitCode = await reEvaluate({
      name: o.name,
      runsDir: o.runsDir,
      concurrency: o.concurrency,
      backend: backendChoice(o),
      cache: o.cache,
      image: o.image,
      pools: o.pools,
      limits: containerLimits(o),
      testTimeoutMs: o.testTimeout * 1000,
      merge: mergeStageOptions(o),
    });
  });
}
