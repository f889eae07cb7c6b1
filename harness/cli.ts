// coop-bench's command line. Problems the user can fix end in one line and a non-zero exit.
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand } from './commands/run.ts';
import { playCommand } from './commands/play.ts';
import { evalCommand } from './commands/eval.ts';
import { poolsCommand } from './commands/pools.ts';
import { cleanCommand } from './commands/clean.ts';
import { mergeCommand } from './commands/merge.ts';
import { mergeRunsCommand } from './commands/merge-runs.ts';
import { reportCommand } from './commands/report.ts';
import { doctorCommand } from './commands/doctor.ts';
import { judgeCommand } from './commands/judge.ts';
import { imagesCommand } from './commands/images.ts';
import { modelsCommand } from './commands/models.ts';
import { importCommand } from './import/command.ts';
import { isUserError } from './errors.ts';
import { storageFailure } from './store/storage-errors.ts';
import { PROJECT_ROOT } from './paths.ts';

export function program(): Command {
  const { version } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
  return oneLineErrors(
    new Command('coop-bench')
      .description('Measure whether coding agents can work together (the CooperBench method)')
      .version(version)
      .addCommand(runCommand())
      .addCommand(playCommand())
      .addCommand(evalCommand())
      .addCommand(poolsCommand())
      .addCommand(judgeCommand())
      .addCommand(reportCommand())
      .addCommand(mergeCommand())
      .addCommand(mergeRunsCommand())
      .addCommand(imagesCommand())
      .addCommand(modelsCommand())
      .addCommand(importCommand())
      .addCommand(cleanCommand())
      .addCommand(doctorCommand()),
  );
}

function commandPath(command: Command): string {
  return command.parent ? `${commandPath(command.parent)} ${command.name()}` : command.name();
}

/** Commander's own errors (unknown option, bad value) as one line too, with where to find usage. */
function oneLineErrors(command: Command): Command {
  const name = commandPath(command);
  command.configureOutput({
    outputError: (text, write) =>
      write(
        `${name}: ${text
          .replace(/^error: /, '')
          .replace(/\s*\n\s*/g, ' ')
          .trim()} (see ${name} --help)\n`,
      ),
  });
  command.commands.forEach(oneLineErrors);
  return command;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await program().exitOverride().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
    } else if (isUserError(error)) {
      process.stderr.write(`coop-bench: ${(error as Error).message}\n`);
      process.exitCode = 2;
    } else if (storageFailure(error)) {
      process.stderr.write(`coop-bench: ${storageFailure(error)!.message}: ${storageFailure(error)!.remedy} and run the command again\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`coop-bench: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    }
  }
}
