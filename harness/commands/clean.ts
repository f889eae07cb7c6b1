import { Command } from 'commander';
import { createBackend } from '../sandbox/registry.ts';
import { addBackendOptions, backendChoice } from './options.ts';

export function cleanCommand(): Command {
  const command = new Command('clean')
    .description('remove sandboxes (containers, pods) left behind by coop-bench runs (found by label)')
    .option('--name <run>', 'only the sandboxes of this run');
  return addBackendOptions(command).action(async (o) => {
    const { name, ...where } = backendChoice(o);
    const backend = await createBackend(name, { ...where, log: (line) => process.stderr.write(`${line}\n`) });
    const removed = await backend.removeLeftovers(o.name);
    process.stdout.write(`removed ${removed} sandbox${removed === 1 ? '' : 'es'}\n`);
  });
}
