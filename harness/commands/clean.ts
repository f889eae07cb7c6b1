import { Command } from 'commander';
import { requireEngine } from '../docker/engine.ts';
import { removeLabelledContainers } from '../docker/containers.ts';

export function cleanCommand(): Command {
  return new Command('clean')
    .description('remove containers left behind by coop-bench runs (found by label)')
    .option('--name <run>', 'only the containers of this run')
    .action(async (o) => {
      await requireEngine();
      const removed = await removeLabelledContainers(o.name);
      process.stdout.write(`removed ${removed} container${removed === 1 ? '' : 's'}\n`);
    });
}
