// `coop-bench report`: reads a run's store and writes its report (HTML, JSON or CSV), or the
// comparison of two runs; the report itself is the reports stage's (reports/render-report.ts).
import { dirname, join, resolve } from 'node:path';
import { RunStore, runDir } from '../store/run-store.ts';
import { loadTaskRecord } from '../store/records.ts';
import { readRunLog } from '../store/run-log.ts';
import { DamagedRowError } from '../store/columns.ts';
import { UserError } from '../errors.ts';
import { labelView, pairName, type RunData, type TaskOutcome } from '../../reports/run-data.ts';
import { summarizeRun, type RunSummary } from '../../reports/summary.ts';
import { taskDetail, type TaskDetail } from '../../reports/task-detail.ts';
import { comparisonContent, reportContent, writeReportFile, type ReportFormat } from '../../reports/render-report.ts';
import { READINGS_DIR, readMeasurements, RUN_READINGS } from '../../judges/calibration/readings.ts';
import { teamName } from '../../tasks/types.ts';
import { initiativeRecordOf, processRecordOf } from '../store/process-records.ts';
import { taskProcess } from '../../reports/analysis/process.ts';
import { taskInitiative } from '../../reports/analysis/initiative.ts';
import { scoreProbes } from '../../reports/analysis/probes.ts';
import { storedProbes } from '../store/probes.ts';

/** What the report's statistics need of every task, from the store's log of the run. */
export function loadRunData(store: RunStore): RunData {
  const log = readRunLog(store);
  const tasks = log.tasks.map((t): TaskOutcome => ({
    id: t.id,
    key: t.key,
    team: teamName(t.models),
    setting: t.setting,
    variant: t.variant,
    repo: t.repo,
    taskId: t.taskId,
    features: t.features,
    pair: pairName(t.repo, t.taskId, t.features),
    status: t.status,
    error: t.error,
    errorKind: t.errorKind,
    agentConfig: t.agentConfig,
    agentEndings: t.agentEndings,
    passed: t.status === 'done' ? t.bothPassed === true : null,
    mergeStatus: t.mergeStatus,
    naiveClean: t.naiveClean,
    mergeAttempts: t.attempts.map(({ stage, outcome, passed, final }) => ({ stage, outcome, passed, final })),
    steps: t.steps,
    messages: t.messages,
    modelCalls: t.usage.calls,
    inputTokens: t.usage.inputTokens,
    cacheReadTokens: t.usage.cacheReadTokens,
    cacheWriteTokens: t.usage.cacheWriteTokens,
    outputTokens: t.usage.outputTokens,
    costUsd: t.usage.costUsd,
    labels: t.labels.map(labelView),
    testRuns: t.testRuns,
  }));
  return { run: log.run, tasks, damaged: log.damaged, judgeCalibration: readMeasurements([READINGS_DIR, join(dirname(store.dir), RUN_READINGS)]) };
}

/** Each task's page data; a task with a damaged row has no page (its row in the report names the damage). */
function* details(store: RunStore, tasks: TaskOutcome[], damaged: string[]): Generator<TaskDetail> {
  for (const t of tasks) {
    let record;
    try {
      record = loadTaskRecord(store, t.id);
    } catch (error) {
      if (!(error instanceof DamagedRowError)) throw error;
      // A task's own damaged row was named already, as an error.
      if (!damaged.some((line) => line.startsWith(error.message))) damaged.push(`${error.message}: its page is left out of the report`);
      continue;
    }
    yield taskDetail(record, t.labels, t.pair);
  }
}

/**
 * Each finished Coop task's process measures, initiative balance and scored belief probes; a task
 * whose rows are damaged has none (its damage is reported with its page).
 */
function withProcess(store: RunStore, data: RunData): RunData {
  const tasks = data.tasks.map((t) => {
    if (t.status !== 'done' || t.setting !== 'coop') return t;
    try {
      const record = loadTaskRecord(store, t.id);
      const probes = storedProbes(store, t.id);
      // Whether git's plain merge of the final patches conflicted; unknown without a merge of both.
      const conflicted = t.naiveClean === null || t.mergeStatus === 'missing_input' ? null : !t.naiveClean;
      return {
        ...t,
        process: taskProcess(processRecordOf(record)),
        initiative: taskInitiative(initiativeRecordOf(record), t.labels),
        ...(probes.length > 0 ? { probes: scoreProbes({ agents: record.agents.map((a) => ({ agentId: a.agent, patch: a.patch })), conflicted, probes }) } : {}),
      };
    } catch (error) {
      if (error instanceof DamagedRowError) return t;
      throw error;
    }
  });
  return { ...data, tasks };
}

/** Writes the report of run `name`; returns the file written and the damaged rows it found (one line each). */
export function writeReport(o: { runsDir: string; name: string; format: ReportFormat; out?: string }): { path: string; damaged: string[] } {
  const store = RunStore.open(o.runsDir, o.name, { create: false, readonly: true });
  try {
    const data = withProcess(store, loadRunData(store));
    const damaged = [...data.damaged];
    const summary = summarizeRun(data);
    const path = resolve(o.out ?? join(store.dir, `report.${o.format}`));
    const content = reportContent(o.format, summary, data.tasks, details(store, data.tasks, damaged));
    return { path: writeReportFile(path, content), damaged };
  } finally {
    store.close();
  }
}

function summaryOf(runsDir: string, name: string): RunSummary {
  const store = RunStore.open(runsDir, name, { create: false, readonly: true });
  try {
    return summarizeRun(loadRunData(store));
  } finally {
    store.close();
  }
}

/** Writes the comparison of runs `a` and `b`; returns the file written. */
export function writeComparison(o: { runsDir: string; names: string[]; format: ReportFormat; out?: string }): string {
  if (o.names.length !== 2) throw new UserError(`--compare takes two runs, e.g. --compare run1,run2 (got ${o.names.length})`);
  const [a, b] = o.names.map((n) => summaryOf(o.runsDir, n));
  const path = resolve(o.out ?? join(runDir(o.runsDir, o.names[1]), `compare-${o.names[0]}.${o.format}`));
  return writeReportFile(path, comparisonContent(o.format, a, b));
}
