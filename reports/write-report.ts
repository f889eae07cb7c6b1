// `coop-bench report`: reads a run's store and writes its report (HTML, JSON or CSV), or the
// comparison of two runs.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RunStore, runDir } from '../harness/store/run-store.ts';
import { loadTaskRecord } from '../harness/store/records.ts';
import { UserError } from '../harness/errors.ts';
import { loadRunData, type TaskOutcome } from './run-data.ts';
import { summarizeRun, type RunSummary } from './summary.ts';
import { taskDetail, type TaskDetail } from './task-detail.ts';
import { renderReport } from './html/document.ts';
import { reportJson, tasksCsv } from './export.ts';
import { compareRuns, comparisonCsv, comparisonHtml, comparisonJson } from './compare.ts';

export const FORMATS = ['html', 'json', 'csv'] as const;
export type ReportFormat = (typeof FORMATS)[number];

function* details(store: RunStore, tasks: TaskOutcome[]): Generator<TaskDetail> {
  for (const t of tasks) yield taskDetail(loadTaskRecord(store, t.id), t.labels, t.pair);
}

function write(path: string, content: string): string {
  try {
    writeFileSync(path, content);
  } catch (error) {
    throw new UserError(`cannot write ${path}: ${(error as Error).message} (choose another --out)`);
  }
  return path;
}

/** Writes the report of run `name`; returns the file written. */
export function writeReport(o: { runsDir: string; name: string; format: ReportFormat; out?: string }): string {
  const store = RunStore.open(o.runsDir, o.name, { create: false });
  try {
    const data = loadRunData(store);
    const summary = summarizeRun(data);
    const path = resolve(o.out ?? join(store.dir, `report.${o.format}`));
    if (o.format === 'json') return write(path, reportJson(summary, data.tasks));
    if (o.format === 'csv') return write(path, tasksCsv(summary, data.tasks));
    return write(path, renderReport(summary, data.tasks, details(store, data.tasks)));
  } finally {
    store.close();
  }
}

function summaryOf(runsDir: string, name: string): RunSummary {
  const store = RunStore.open(runsDir, name, { create: false });
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
