// `coop-bench judge`: label a stored run (deterministic detectors; LLM judges with --judge-model),
// or with --calibrate score the judges on the calibration set.
import { Command, InvalidArgumentError } from 'commander';
import { caseFiles, casesOfSplit, loadCalibrationSet, SPLITS } from '../../judges/calibration/cases.ts';
import { scoreDetectors, scoreLlmJudges } from '../../judges/calibration/score.ts';
import { computeStoredScores, STORED_SCORES_FILE, writeStoredScores } from '../../judges/calibration/stored-scores.ts';
import { writeModelScores, type SplitScores } from '../../judges/calibration/model-scores.ts';
import {
  addOutcome,
  formatCaseFiles,
  formatDefinitions,
  formatDetectorScores,
  formatLlmScores,
  formatSummary,
  formatTaskJudgement,
  type RunTotals,
} from '../../judges/cli-output.ts';
import { NO_USAGE } from '../../judges/llm/ask.ts';
import { judgeRun } from '../run/judge-tasks.ts';
import { memoryCache } from '../../judges/run-judge.ts';
import { judgeNames as knownJudges } from '../../judges/llm/registry.ts';
import type { JudgeName } from '../../judges/types.ts';
import { UserError } from '../errors.ts';
import { createModel } from '../models/index.ts';
import type { Model } from '../models/types.ts';
import { RunStore } from '../store/run-store.ts';
import { list, numberList, positiveInt } from './options.ts';

function judgeNames(value: string): JudgeName[] {
  const names = list(value);
  for (const name of names) {
    if (!knownJudges().includes(name)) throw new InvalidArgumentError(`unknown judge "${name}": use ${knownJudges().join(', ')}`);
  }
  return names as JudgeName[];
}

interface JudgeCommandOptions {
  name?: string;
  runsDir: string;
  judgeModel?: string;
  task?: number[];
  only?: JudgeName[];
  concurrency: number;
  timeout: number;
  calibrate: boolean;
  writeScores: boolean;
}

const print = (lines: string[]) => process.stdout.write(`${lines.join('\n')}\n`);

function judgeModel(spec: string | undefined, timeoutMs: number): Model | undefined {
  return spec === undefined ? undefined : createModel(spec, { timeoutMs });
}

async function calibrate(o: JudgeCommandOptions): Promise<number> {
  const cases = loadCalibrationSet();
  print(formatDefinitions());
  print(['', ...formatCaseFiles(caseFiles(cases))]);
  for (const split of SPLITS) print(['', ...formatDetectorScores(split, await scoreDetectors(casesOfSplit(cases, split)))]);
  if (o.writeScores && !o.judgeModel) {
    writeStoredScores(await computeStoredScores(cases));
    print(['', `Wrote the detectors' calibration figures (shown in reports) to ${STORED_SCORES_FILE}`]);
  }
  const model = judgeModel(o.judgeModel, o.timeout * 1000);
  if (!model) return 0;
  const cache = memoryCache();
  let errors = 0;
  const measured = {} as SplitScores;
  for (const split of SPLITS) {
    const splitCases = casesOfSplit(cases, split);
    const scores = await scoreLlmJudges(splitCases, model, { timeoutMs: o.timeout * 1000, cache });
    print(['', ...formatLlmScores(model.spec, split, scores)]);
    errors += scores.errors.length;
    measured[split] = { cases: splitCases.length, labels: scores.labels };
  }
  if (o.writeScores) {
    // A question the model did not answer counts as no label: such figures would not describe the model.
    print([
      '',
      errors > 0
        ? `Not saved: ${errors} question(s) to ${model.spec} failed (listed above); run again to measure it whole.`
        : `Wrote ${model.spec}'s calibration figures (shown in reports of runs under ${o.runsDir} judged by it) to ${writeModelScores(o.runsDir, model.spec, measured)}`,
    ]);
  }
  return errors > 0 ? 1 : 0;
}

async function judgeStoredRun(o: JudgeCommandOptions): Promise<number> {
  if (!o.name) throw new UserError('say which run to judge with --name <run> (or score the judges with --calibrate)');
  const store = RunStore.open(o.runsDir, o.name, { create: false });
  try {
    const model = judgeModel(o.judgeModel, o.timeout * 1000);
    const titles = new Map(store.tasks().map((t) => [t.id, t.both_passed === 0 ? `${t.key} (tests failed)` : t.key]));
    const totals: RunTotals = { judged: 0, skipped: 0, labels: 0, undecided: 0, dropped: 0, errors: 0, cachedAnswers: 0, usage: NO_USAGE };
    await judgeRun(store, {
      model,
      judges: o.only,
      taskIds: o.task,
      concurrency: o.concurrency,
      timeoutMs: o.timeout * 1000,
      onTask: (judgement) => {
        print(formatTaskJudgement(titles.get(judgement.taskId) ?? '', judgement));
        if (judgement.skipped) totals.skipped++;
        else totals.judged++;
        for (const outcome of judgement.outcomes) addOutcome(totals, outcome);
      },
    });
    print(['', ...formatSummary(totals, model?.spec)]);
    return totals.errors > 0 ? 1 : 0;
  } finally {
    store.close();
  }
}

export function judgeCommand(): Command {
  return new Command('judge')
    .description(
      'label a stored run with the judges (communication errors, failure symptoms, speech acts, commitments read by the judge model, deterministic detectors), or score them with --calibrate',
    )
    .option('--name <run>', 'the run to judge')
    .option('--runs-dir <dir>', 'where runs are stored', 'runs')
    .option(
      '--judge-model <spec>',
      'model of the LLM judges (gpt-5, claude, openai:<model>, anthropic:<model>, openai:<model>@<base-url>); without it only the deterministic detectors run',
    )
    .option('--task <ids>', 'only these task ids', numberList)
    .option('--only <judges>', `only these judges (${knownJudges().join(', ')})`, judgeNames)
    .option('--concurrency <n>', 'tasks judged at the same time', positiveInt, 4)
    .option('--timeout <seconds>', "time limit of one judge's question to the model", positiveInt, 300)
    .option('--calibrate', 'print precision and recall on the calibration set, train and test split (detectors; with --judge-model, the LLM judges too)', false)
    .option(
      '--write-scores',
      "with --calibrate: save the figures reports show beside the labels: the detectors' (in the package), or with --judge-model that model's (in --runs-dir)",
      false,
    )
    .action(async (o: JudgeCommandOptions) => {
      process.exitCode = await (o.calibrate ? calibrate(o) : judgeStoredRun(o));
    });
}
