import { Command } from 'commander';
import { mergeRuns } from '../store/merge-runs.ts';

export function mergeRunsCommand(): Command {
  return new Command('merge-runs')
    .description('combine the shards of a run (run --shard i/n on several machines) into one run')
    .argument('<out>', 'name of the merged run (created under --runs-dir)')
    .argument('<runs...>', 'the shard runs: names under --runs-dir, or folders holding run.db')
    .option('--runs-dir <dir>', 'where runs are stored', 'runs')
    .action((out: string, runs: string[], o: { runsDir: string }) => {
      const result = mergeRuns(o.runsDir, out, runs);
      process.stdout.write(`merged ${runs.length} run${runs.length === 1 ? '' : 's'} into ${result.dir}: ${result.tasks} tasks\n`);
      if (result.missingShards.length)
        process.stdout.write(
          `warning: shard${result.missingShards.length > 1 ? 's' : ''} ${result.missingShards.join(', ')} of the plan ${result.missingShards.length > 1 ? 'are' : 'is'} missing: their tasks are not in the merged run\n`,
        );
    });
}
