// coop-bench's command line. Problems the user can fix end in one line and a non-zero exit.
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isUserError } from './errors.ts';
import { storageFailure } from './store/storage-errors.ts';
import { PROJECT_ROOT } from './paths.ts';
import { mark } from './timeline.ts';

/**
 * The commands in the order help lists them, each loaded only when it is needed: what a command
 * imports is most of the time a process takes to start, and `run` is on the way to an agent's first step.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./commands/run.ts')).runCommand(),
  play: async () => (await import('./commands/play.ts')).playCommand(),
  eval: async () => (await import('./commands/eval.ts')).evalCommand(),
  pools: async () => (await import('./commands/pools.ts')).poolsCommand(),
  judge: async () => (await import('./commands/judge.ts')).judgeCommand(),
  report: async () => (await import('./commands/report.ts')).reportCommand(),
  merge: async () => (await import('./commands/merge.ts')).mergeCommand(),
  'merge-runs': async () => (await import('./commands/merge-runs.ts')).mergeRunsCommand(),
  images: async () => (await import('./commands/images.ts')).imagesCommand(),
  models: async () => (await import('./commands/models.ts')).modelsCommand(),
  import: async () => (await import('./import/command.ts')).importCommand(),
  clean: async () => (await import('./commands/clean.ts')).cleanCommand(),
  doctor: async () => (await import('./commands/doctor.ts')).doctorCommand(),
};

/** The command line; given `argv`, only the command it names (all of them when it names none: help, --version, a typo). */
export async function program(argv: string[] = []): Promise<Command> {
  const { version } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
  const named = argv[2];
  const names = named !== undefined && Object.hasOwn(COMMANDS, named) ? [named] : Object.keys(COMMANDS);
  const root = new Command('coop-bench').description('Measure whether coding agents can work together (the CooperBench method)').version(version);
  for (const command of await Promise.all(names.map((name) => COMMANDS[name]!()))) root.addCommand(command);
  return oneLineErrors(root);
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
  mark('command line loaded');
  try {
    await (await program(argv)).exitOverride().parseAsync(argv);
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
