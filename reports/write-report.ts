// `coop-bench report`: reads a run's store and writes its report (HTML, JSON or CSV), or the
// comparison of two runs.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RunStore, runDir } from '../harness/store/run-store.ts';
import { loadTaskRecord } from '../harness/store/records.ts';
import { UserError } from '../harness/errors.ts';
import { DamagedRowError } from '../harness/store/columns.ts';
import { loadRunData, type RunData, type TaskOutcome } from './run-data.ts';
import { processRecordOf } from '../harness/store/process-records.ts';
import { taskProcess } from './analysis/process.ts';
import { summarizeRun, type RunSummary } from './summary.ts';
import { taskDetail, type TaskDetail } from './task-detail.ts';
import { renderReport } from './html/document.ts';
import { reportJson, tasksCsv } from './export.ts';
import { compareRuns, comparisonCsv, comparisonHtml, comparisonJson } from './compare.ts';

export const FORMATS = ['html', 'json', 'csv'] as const;
export type ReportFormat = (typeof FORMATS)[number];

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

function write(path: string, content: string): string {
  try {
    writeFileSync(path, content);
  } catch (error) {
    throw new UserError(`cannot write ${path}: ${(error as Error).message} (choose another --out)`);
  }
  return path;
}

/** Each finished Coop task's process measures; a task whose rows are damaged has none (its damage is reported with its page). */
function withProcess(store: RunStore, data: RunData): RunData {
  const tasks = data.tasks.map((t) => {
    if (t.status !== 'done' || t.setting !== 'coop') return t;
    try {
      return { ...t, process: taskProcess(processRecordOf(loadTaskRecord(store, t.id))) };
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
    const content =
      o.format === 'json'
        ? reportJson(summary, data.tasks)
        : o.format === 'csv'
          ? tasksCsv(summary, data.tasks)
          : renderReport(summary, data.tasks, details(store, data.tasks, damaged));
    return { path: write(path, content), damaged };
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
  const comparison = compareRuns(a, b);
  const path = resolve(o.out ?? join(runDir(o.runsDir, o.names[1]), `compare-${o.names[0]}.${o.format}`));
  const content = o.format === 'json' ? comparisonJson(comparison) : o.format === 'csv' ? comparisonCsv(comparison) : comparisonHtml(comparison);
  return write(path, content);
}
