// Small builders for the report's markup. Strings are text and get escaped; only values made by
// `trusted` (markup this module or the charts produced) pass through as they are.
import { escapeHtml } from './escape.ts';

export interface Trusted {
  html: string;
}

export const trusted = (html: string): Trusted => ({ html });

export type Content = string | number | Trusted;

export const render = (c: Content): string => (typeof c === 'object' ? c.html : escapeHtml(c));

export type Column = string | { title: string; numeric: true };

/** A table; numeric columns are right-aligned. */
export function table(columns: Column[], rows: Content[][], options: { className?: string; bodyId?: string } = {}): string {
  const numeric = columns.map((c) => typeof c === 'object');
  const head = columns.map((c) => (typeof c === 'object' ? `<th class="num">${escapeHtml(c.title)}</th>` : `<th>${escapeHtml(c)}</th>`)).join('');
  const body = rows.map((r) => `<tr>${r.map((c, i) => (numeric[i] ? `<td class="num">${render(c)}</td>` : `<td>${render(c)}</td>`)).join('')}</tr>`).join('\n');
  const className = options.className ? ` class="${options.className}"` : '';
  const bodyId = options.bodyId ? ` id="${options.bodyId}"` : '';
  return `<table${className}><thead><tr>${head}</tr></thead><tbody${bodyId}>\n${body}\n</tbody></table>`;
}

export const num = (title: string): Column => ({ title, numeric: true });

export const note = (text: string) => `<p class="note">${escapeHtml(text)}</p>`;

export const warning = (text: string) => `<p class="warning">${escapeHtml(text)}</p>`;

export function section(id: string, title: string, body: string[]): string {
  return `<section id="${id}"><h2>${escapeHtml(title)}</h2>\n${body.filter(Boolean).join('\n')}\n</section>`;
}

export function figure(chart: string, caption: string): string {
  return `<figure>${chart}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

/** A link to a task's page (ids are integers from the store). */
export const taskLink = (id: number, text: string) => trusted(`<a href="#task-${Math.trunc(id)}">${escapeHtml(text)}</a>`);
