// The report as one HTML file: inline CSS, inline SVG charts, one small inline script for task
// pages, and each task's data as an inert JSON block. A content security policy allows only that
// script and that style: the page fetches nothing, and injected markup could not run a script.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { RunSummary } from '../summary.ts';
import type { TaskOutcome } from '../run-data.ts';
import type { TaskDetail } from '../task-detail.ts';
import { escapeHtml, jsonForScript } from './escape.ts';
import { overviewSection } from './sections/overview.ts';
import { difficultySection, headlineSection, retentionSection } from './sections/results.ts';
import { mergeSection } from './sections/merges.ts';
import { communicationSection, errorsSection } from './sections/communication.ts';
import { costSection } from './sections/cost.ts';
import { processSection } from './sections/process.ts';
import { initiativeSection } from './sections/initiative.ts';
import { probesSection } from './sections/probes.ts';
import { tasksSection } from './sections/tasks.ts';

const CSS = readFileSync(new URL('./report.css', import.meta.url), 'utf8');
const SCRIPT = readFileSync(new URL('./task-page.js', import.meta.url), 'utf8');

const NAV: [string, string][] = [
  ['overview', 'Overview'],
  ['headline', 'Solo vs Coop'],
  ['difficulty', 'Difficulty'],
  ['retention', 'Retention'],
  ['merges', 'Merges'],
  ['communication', 'Communication'],
  ['errors', 'Errors & symptoms'],
  ['process', 'Process'],
  ['initiative', 'Initiative'],
  ['probes', 'Beliefs'],
  ['cost', 'Cost'],
  ['tasks', 'Tasks'],
];

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** A complete HTML document around `body`, allowing only the given inline script (if any) and the report's style. */
export function htmlDocument(title: string, header: string, body: string[], script?: string): string {
  const policy = [
    "default-src 'none'",
    `style-src ${sha256(CSS)}`,
    `script-src ${script ? sha256(script) : "'none'"}`,
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${CSS}</style>`,
    '</head><body>',
    header,
    ...body,
    script ? `<script>${script}</script>` : '',
    '</body></html>',
  ].join('\n');
}

/** The report of one run. `details` yields each task's page data, written as it comes. */
export function renderReport(summary: RunSummary, tasks: TaskOutcome[], details: Iterable<TaskDetail>): string {
  const nav = NAV.map(([id, label]) => `<a href="#${id}">${escapeHtml(label)}</a>`).join('');
  const header = `<header class="top"><strong>coop-bench report</strong><span>run ${escapeHtml(summary.run.name)}</span><nav>${nav}</nav></header>`;
  const sections = [
    overviewSection(summary),
    headlineSection(summary),
    difficultySection(summary),
    retentionSection(summary),
    mergeSection(summary),
    communicationSection(summary),
    errorsSection(summary),
    processSection(summary),
    initiativeSection(summary),
    probesSection(summary),
    costSection(summary),
    tasksSection(tasks),
  ];
  const data: string[] = [];
  for (const d of details) data.push(`<script type="application/json" id="task-data-${Math.trunc(d.id)}">${jsonForScript(d)}</script>`);
  return htmlDocument(
    `coop-bench report: ${summary.run.name}`,
    header,
    [`<main id="report">\n${sections.join('\n')}\n</main>`, '<main id="task-view" hidden></main>', ...data],
    SCRIPT,
  );
}
