// A run's report (HTML, JSON or CSV) or the comparison of two runs, as text, and the file it goes to.
// The harness reads the runs from its store (harness/run/write-report.ts).
import { writeFileSync } from 'node:fs';
import { ReportInputError } from './errors.ts';
import type { TaskOutcome } from './run-data.ts';
import type { RunSummary } from './summary.ts';
import type { TaskDetail } from './task-detail.ts';
import { renderReport } from './html/document.ts';
import { reportJson, tasksCsv } from './export.ts';
import { compareRuns, comparisonCsv, comparisonHtml, comparisonJson } from './compare.ts';

export const FORMATS = ['html', 'json', 'csv'] as const;
export type ReportFormat = (typeof FORMATS)[number];

/** The report; `details` gives each task's page, read only for HTML (a generator: one page at a time). */
export function reportContent(format: ReportFormat, summary: RunSummary, tasks: TaskOutcome[], details: Iterable<TaskDetail>): string {
  return format === 'json' ? reportJson(summary, tasks) : format === 'csv' ? tasksCsv(summary, tasks) : renderReport(summary, tasks, details);
}

export function comparisonContent(format: ReportFormat, a: RunSummary, b: RunSummary): string {
  const comparison = compareRuns(a, b);
  return format === 'json' ? comparisonJson(comparison) : format === 'csv' ? comparisonCsv(comparison) : comparisonHtml(comparison);
}

/** Writes `content` to `path`; returns the path. */
export function writeReportFile(path: string, content: string): string {
  try {
    writeFileSync(path, content);
  } catch (error) {
    throw new ReportInputError(`cannot write ${path}: ${(error as Error).message} (choose another --out)`);
  }
  return path;
}
