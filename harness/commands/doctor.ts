// `coop-bench doctor`: is this machine ready to run the benchmark, and if not, what to do.
import { Command } from 'commander';
import { SHIPPED_POOLS } from '../paths.ts';
import { addBackendOptions, addModelOptions, backendChoice, list, modelOptions } from './options.ts';
import { runChecks } from './doctor-checks.ts';
import { runPreflight } from '../run/preflight.ts';
import { checkAgentSpecs, parseAgentSpec } from '../agents/registry.ts';
import { UserError } from '../errors.ts';
import { modelProviders } from '../models/index.ts';

export function doctorCommand(): Command {
  const command = new Command('doctor')
    .description(
      'check the sandbox backend (the Docker engine, base and pool images), API keys for the given models, disk space and the runs folder; print what to fix',
    )
    .option(
      '--models <list>',
      `model specs whose API keys to check, comma-separated (keys: ${modelProviders()
        .map((p) => `${p.keyVariable} for ${p.name}:<model>`)
        .join(', ')}; environment or ./.env)`,
      list,
      [],
    )
    .option('--pools <dir>', 'dataset folder whose images to check', SHIPPED_POOLS)
    .option('--runs-dir <dir>', 'where runs will be stored', 'runs')
    .option(
      '--live',
      'only the live preflight `run` starts with: send each of --models a tool call, its result and a second turn, and print what passed and what it cost (well under $0.01 a model)',
      false,
    );
  return addModelOptions(addBackendOptions(command)).action(async (o) => {
    if (o.live) {
      if (o.models.length === 0) throw new UserError('doctor --live needs the models to check: --models gpt-5,claude (any spec run takes)');
      const agents = o.models.map(parseAgentSpec);
      checkAgentSpecs(agents, modelOptions(o));
      const log = (line: string) => process.stdout.write(`${line}\n`);
      await runPreflight(agents, modelOptions(o), log);
      log('ready: every model took the exchange a task makes');
      return;
    }
    const results = await runChecks({ models: o.models, poolsDir: o.pools, runsDir: o.runsDir, modelOptions: modelOptions(o), backend: backendChoice(o) });
    for (const r of results) process.stdout.write(`${r.status.padEnd(5)} ${r.name}: ${r.detail}\n`);
    const failed = results.filter((r) => r.status === 'FAIL').length;
    const warned = results.filter((r) => r.status === 'warn').length;
    process.stdout.write(
      failed
        ? `${failed} problem${failed > 1 ? 's' : ''} to fix: see the FAIL lines above, then run coop-bench doctor again\n`
        : `ready${warned ? ` (${warned} warning${warned > 1 ? 's' : ''})` : ''}\n`,
    );
    process.exitCode = failed ? 1 : 0;
  });
}
