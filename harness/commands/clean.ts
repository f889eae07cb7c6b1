import { Command } from 'commander';
import { enginesAt, requireEngine } from '../docker/engine.ts';
import { removeLabelledContainers } from '../docker/containers.ts';
import { addEngineOptions, dockerHosts } from './options.ts';

export function cleanCommand(): Command {
  const command = new Command('clean')
    .description('remove containers left behind by coop-bench runs (found by label)')
    .option('--name <run>', 'only the containers of this run');
  return addEngineOptions(command).action(async (o) => {
    const engines = await Promise.all(enginesAt(dockerHosts(o)).map((engine) => requireEngine(engine)));
    const removed = await removeLabelledContainers(engines, o.name);
    process.stdout.write(`removed ${removed} container${removed === 1 ? '' : 's'}\n`);
  });
}
