// `coop-bench judge`: label a stored run (deterministic detectors; LLM judges with --judge-model),
// or with --calibrate score the judges on the calibration set.
import { Command, InvalidArgumentError } from 'commander';
import { caseFiles, casesOfSplit, loadCalibrationSet, SPLITS, type CalibrationCase, type Split } from '../../judges/calibration/cases.ts';
import { exportPrompts, importAnswers } from '../../judges/calibration/prompt-files.ts';
import { calibrationQuestions } from '../../judges/calibration/questions.ts';
import { checkReader, loadReadings, missingReadings, READINGS_DIR, readingsCache, saveReadings } from '../../judges/calibration/readings.ts';
import { scoreDetectors, scoreLlmJudges } from '../../judges/calibration/score.ts';
import { computeStoredScores, STORED_SCORES_FILE, writeStoredScores } from '../../judges/calibration/stored-scores.ts';
import { withMeasurements, type SplitScores } from '../../judges/calibration/model-scores.ts';
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
import { judgeNames as knownJudges } from '../../judges/llm/registry.ts';
import type { JudgeName } from '../../judges/types.ts';
import { UserError } from '../errors.ts';
import { createModel, isModelSpec } from '../models/index.ts';
import type { Model } from '../models/types.ts';
import type { Model as JudgeModel } from '../../judges/model.ts';
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
  record: boolean;
  readingsDir: string;
  split?: Split;
  caseFiles?: string[];
  exportPrompts?: string;
  importReadings?: string;
  reader?: string;
}

const print = (lines: string[]) => process.stdout.write(`${lines.join('\n')}\n`);

function splitName(value: string): Split {
  if (!SPLITS.includes(value as Split)) throw new InvalidArgumentError(`unknown split "${value}": use ${SPLITS.join(' or ')}`);
  return value as Split;
}

function judgeModel(spec: string | undefined, timeoutMs: number): Model | undefined {
  return spec === undefined ? undefined : createModel(spec, { timeoutMs });
}

/** The calibration cases --split and --case-files select (all by default). */
function selectedCases(o: JudgeCommandOptions): CalibrationCase[] {
  const cases = loadCalibrationSet();
  const files = new Set(cases.map((c) => c.file));
  const unknown = o.caseFiles?.find((f) => !files.has(f));
  if (unknown) throw new UserError(`no calibration case file "${unknown}": use the names judge --calibrate lists (${[...files].slice(0, 3).join(', ')}, ...)`);
  return cases.filter((c) => (!o.split || c.split === o.split) && (!o.caseFiles || o.caseFiles.includes(c.file)));
}

function exportCalibrationPrompts(o: JudgeCommandOptions): number {
  const questions = calibrationQuestions(selectedCases(o), o.only);
  const files = exportPrompts(o.exportPrompts!, questions);
  print([`Wrote ${files} prompt(s) to ${o.exportPrompts} (<hash>.prompt.txt; README.txt says how to answer them and import the answers).`]);
  return 0;
}

function importReadings(o: JudgeCommandOptions): number {
  if (!o.reader) throw new UserError('say whose answers these are with --reader <id> (the id --judge-model then replays them under)');
  const questions = calibrationQuestions(selectedCases(o), o.only);
  const readings = loadReadings(o.readingsDir, checkReader(o.reader));
  const counts = importAnswers(o.importReadings!, readings, questions);
  saveReadings(readings);
  const missing = missingReadings(readings, questions).length;
  print([
    `Imported ${counts.added + counts.replaced + counts.unchanged} answer(s) of ${o.reader} into ${readings.file}: ${counts.added} new, ${counts.replaced} replaced, ${counts.unchanged} unchanged; ${missing} of the ${questions.length} selected question(s) still have no reading.`,
  ]);
  return 0;
}

async function calibrate(o: JudgeCommandOptions): Promise<number> {
  const cases = selectedCases(o);
  const splits = SPLITS.filter((s) => casesOfSplit(cases, s).length > 0);
  print(formatDefinitions());
  print(['', ...formatCaseFiles(caseFiles(cases))]);
  if (!o.only || o.only.includes('detectors')) {
    for (const split of splits) print(['', ...formatDetectorScores(split, await scoreDetectors(casesOfSplit(cases, split)))]);
  }
  if (o.writeScores && !o.judgeModel) {
    if (o.split || o.caseFiles || o.only)
      throw new UserError('--write-scores stores the figures of the whole calibration set: leave out --split, --case-files and --only');
    writeStoredScores(await computeStoredScores(cases));
    print(['', `Wrote the detectors' calibration figures (shown in reports) to ${STORED_SCORES_FILE}`]);
  }
  if (!o.judgeModel) return 0;
  const spec = o.judgeModel;
  const readings = loadReadings(o.readingsDir, spec);
  const questions = calibrationQuestions(cases, o.only);
  const missing = missingReadings(readings, questions).length;
  if (missing > 0 && !isModelSpec(spec))
    throw new UserError(
      `${missing} of the ${questions.length} answers needed are not in ${readings.file}, and "${spec}" is no model spec to ask them of: import them (--import-readings) or give a model spec`,
    );
  // Every answer stored: the model is never created, so replaying needs no key.
  const model: JudgeModel =
    missing > 0 ? createModel(spec, { timeoutMs: o.timeout * 1000 }) : { spec, complete: () => Promise.reject(new Error('every answer is stored')) };
  const cache = readingsCache(readings, questions);
  let errors = 0;
  const measured = {} as SplitScores;
  for (const split of splits) {
    const splitCases = casesOfSplit(cases, split);
    const scores = await scoreLlmJudges(splitCases, model, { timeoutMs: o.timeout * 1000, cache, only: o.only });
    print(['', ...formatLlmScores(model.spec, split, scores)]);
    errors += scores.errors.length;
    measured[split] = { cases: splitCases.length, labels: scores.labels };
  }
  const { stored, called } = cache.counts();
  const recorded = o.record && called > 0;
  let save = recorded;
  print([
    '',
    `Readings of ${spec}: ${stored} answer(s) from ${readings.file}, ${called} asked of the model${called === 0 ? '' : recorded ? ' (recorded there)' : ' (not recorded: add --record to store them)'}.`,
  ]);
  if (o.writeScores) {
    // A question the model did not answer counts as no label: such figures would not describe the model.
    const notSaved =
      errors > 0
        ? `${errors} question(s) to ${model.spec} failed (listed above); run again to measure it whole.`
        : splits.length < SPLITS.length
          ? `the figures of ${model.spec} are stored for both splits; leave out --split and --case-files.`
          : called > 0 && !o.record
            ? `the figures are stored with the readings they come from; add --record.`
            : undefined;
    if (!notSaved) {
      readings.scores = withMeasurements(readings.scores, spec, measured);
      save = true;
    }
    print([
      '',
      notSaved
        ? `Not saved: ${notSaved}`
        : `Wrote ${model.spec}'s calibration figures, scored from its readings (shown in reports beside the labels it gave), to ${readings.file}`,
    ]);
  }
  if (save) saveReadings(readings);
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
      "with --calibrate: save the figures reports show beside the labels: the detectors' (in the package), or with --judge-model that model's (in its readings file, with --record)",
      false,
    )
    .option('--record', 'with --calibrate --judge-model: store the answers the model gave in its readings file', false)
    .option('--readings-dir <dir>', "where judge models' readings of the calibration prompts are stored", READINGS_DIR)
    .option('--split <split>', `calibration, prompt export and import: only this split (${SPLITS.join(', ')})`, splitName)
    .option('--case-files <names>', 'calibration, prompt export and import: only the cases of these files (e.g. independent-test.json)', list)
    .option(
      '--export-prompts <dir>',
      'write each calibration question of the selected judges (--only) and cases to <dir>/<hash>.prompt.txt, to be answered by hand',
    )
    .option('--import-readings <dir>', 'store the <hash>.answer.json files of <dir> as the readings of --reader')
    .option('--reader <id>', 'with --import-readings: whose answers they are (replayed with --calibrate --judge-model <id>)')
    .action(async (o: JudgeCommandOptions) => {
      process.exitCode = o.exportPrompts
        ? exportCalibrationPrompts(o)
        : o.importReadings
          ? importReadings(o)
          : await (o.calibrate ? calibrate(o) : judgeStoredRun(o));
    });
}
