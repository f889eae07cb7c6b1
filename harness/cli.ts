// coop-bench's command line. Problems the user can fix end in one line and a non-zero exit.
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand } from './commands/run.ts';
import { evalCommand } from './commands/eval.ts';
import { poolsCommand } from './commands/pools.ts';
import { cleanCommand } from './commands/clean.ts';
import { mergeCommand } from './commands/merge.ts';
import { mergeRunsCommand } from './commands/merge-runs.ts';
import { reportCommand } from './commands/report.ts';
import { UserError } from './errors.ts';
import { PROJECT_ROOT } from './paths.ts';

export function program(): Command {
  const { version } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
  return new Command('coop-bench')
    .description('Measure whether coding agents can work together (the CooperBench method)')
    .version(version)
    .showHelpAfterError('(run with --help for usage)')
    .addCommand(runCommand())
    .addCommand(evalCommand())
    .addCommand(poolsCommand())
    .addCommand(reportCommand())
    .addCommand(mergeCommand())
    .addCommand(mergeRunsCommand())
    .addCommand(cleanCommand());
}

export async function main(argv: string[]): Promise<void> {
  try {
    await program().exitOverride().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
    } else if (error instanceof UserError) {
      process.stderr.write(`coop-bench: ${error.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`coop-bench: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    }
  }
}
