import { Command, Option } from 'commander';
import { UserError } from '../errors.ts';
import { FORMATS } from '../../reports/render-report.ts';
import { writeComparison, writeReport } from '../run/write-report.ts';
import { list } from './options.ts';

export function reportCommand(): Command {
  return new Command('report')
    .description("write a run's report: one self-contained HTML file (or JSON/CSV exports), or compare two runs")
    .argument('[run]', 'the run (same as --name)')
    .option('--name <run>', 'the run to report on')
    .option('--compare <run1,run2>', 'compare two runs instead', list)
    .option('--runs-dir <dir>', 'where runs are stored', 'runs')
    .addOption(new Option('--format <format>', 'output format').choices(FORMATS).default('html'))
    .option('--out <file>', 'output file (default: report.<format> in the run folder; compare-<run1>.<format> in run2\u2019s)')
    .action((run: string | undefined, o) => {
      const options = { runsDir: o.runsDir, format: o.format, out: o.out };
      if (o.compare && (o.name || run)) throw new UserError('give either a run or --compare <run1>,<run2>, not both');
      if (o.compare) {
        process.stdout.write(`comparison: ${writeComparison({ ...options, names: o.compare })}\n`);
        return;
      }
      const name = o.name ?? run;
      if (!name) throw new UserError('which run? coop-bench report --name <run> (or --compare <run1>,<run2>)');
      if (o.name && run && o.name !== run) throw new UserError(`two different runs given: ${run} and --name ${o.name}`);
      const { path, damaged } = writeReport({ ...options, name });
      for (const line of damaged) process.stderr.write(`coop-bench: ${line}\n`);
      process.stdout.write(`report: ${path}\n`);
      if (damaged.length > 0) {
        // Scripts notice: the report is written, but not from everything the run stored.
        process.stderr.write(`coop-bench: the report is written, but run.db has ${damaged.length} damaged row(s) (above): exit code 1\n`);
        process.exitCode = 1;
      }
    });
}
