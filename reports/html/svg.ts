// Charts as inline SVG, drawn when the report is written: no library, no script, nothing fetched.
// Labels are escaped like every other text; colours are presentation attributes (the page's
// content security policy allows no inline style attributes).
import type { Proportion } from '../stats.ts';
import { escapeHtml } from './escape.ts';
import { pct } from './format.ts';

export interface Series {
  name: string;
  color: string;
}

export const SOLO_COLOR = '#4c78a8';
export const COOP_COLOR = '#f58518';
export const PALETTE = ['#4c78a8', '#f58518', '#54a24b', '#b279a2', '#e45756', '#72b7b2', '#9d755d', '#eeca3b', '#bab0ac'];

const r1 = (x: number) => Math.round(x * 10) / 10;

function shortLabel(label: string, max = 22): string {
  const text = label.length > max ? `${label.slice(0, max - 1)}…` : label;
  return `<text class="label" text-anchor="end">${escapeHtml(text)}<title>${escapeHtml(label)}</title></text>`;
}

function svgOpen(name: string, width: number, height: number, description: string): string {
  return `<svg class="chart" data-chart="${escapeHtml(name)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${r1(height)}" role="img" aria-label="${escapeHtml(description)}" xmlns="http://www.w3.org/2000/svg">`;
}

/** Ticks and vertical grid lines of a 0–100% horizontal axis. */
function percentAxis(x0: number, width: number, top: number, bottom: number, max = 1): string {
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * max);
  return ticks
    .map((t) => {
      const x = r1(x0 + (t / max) * width);
      return `<line class="grid" x1="${x}" x2="${x}" y1="${top}" y2="${bottom}"/><text class="tick" x="${x}" y="${bottom + 14}" text-anchor="middle">${pct(t, max < 0.1 ? 1 : 0)}</text>`;
    })
    .join('');
}

/** Horizontal bars with 95% interval whiskers, one group per row (figure 4 left, figure 5 a and b). */
export function intervalBars(name: string, description: string, rows: { label: string; values: (Proportion | null)[] }[], series: Series[]): string {
  const labelWidth = 160;
  const plotWidth = 400;
  const barHeight = 14;
  const groupHeight = series.length * (barHeight + 3) - 3;
  const top = 8;
  const height = top + rows.length * (groupHeight + 14) + 20;
  const parts = [svgOpen(name, labelWidth + plotWidth + 130, height, description), percentAxis(labelWidth, plotWidth, top, height - 20)];
  rows.forEach((row, i) => {
    const y0 = top + i * (groupHeight + 14);
    parts.push(`<g transform="translate(${labelWidth - 8} ${r1(y0 + groupHeight / 2 + 4)})">${shortLabel(row.label)}</g>`);
    series.forEach((s, j) => {
      const y = y0 + j * (barHeight + 3);
      const p = row.values[j];
      if (!p) {
        parts.push(`<text class="missing" x="${labelWidth + 4}" y="${y + 11}">${escapeHtml(s.name)}: no finished tasks</text>`);
        return;
      }
      const [x, low, high, cy] = [labelWidth + p.p * plotWidth, labelWidth + p.low * plotWidth, labelWidth + p.high * plotWidth, y + barHeight / 2].map(r1);
      parts.push(
        `<g class="bar" data-series="${escapeHtml(s.name)}"><title>${escapeHtml(`${row.label}, ${s.name}: ${pct(p.p)} (${p.k}/${p.n}), 95% CI ${pct(p.low)}–${pct(p.high)}`)}</title>`,
        `<rect x="${labelWidth}" y="${y}" width="${r1(x - labelWidth)}" height="${barHeight}" fill="${s.color}"/>`,
        `<path class="whisker" d="M${low} ${cy}H${high}M${low} ${cy - 4}V${cy + 4}M${high} ${cy - 4}V${cy + 4}"/>`,
        `<text class="value" x="${r1(Math.max(x, high) + 6)}" y="${y + 11}">${pct(p.p)} (${p.k}/${p.n})</text></g>`,
      );
    });
  });
  parts.push('</svg>');
  return parts.join('');
}

export interface CurveSeries {
  series: Series;
  points: { x: number; p: Proportion }[];
}

/** Success against relative difficulty: a line per series in its Wilson band (figure 4 right, figure 7). */
export function curveChart(name: string, title: string, curves: CurveSeries[], large = false): string {
  const [width, height] = large ? [520, 320] : [300, 220];
  const m = { left: 38, right: 12, top: 24, bottom: 34 };
  const plotW = width - m.left - m.right;
  const plotH = height - m.top - m.bottom;
  const sx = (x: number) => r1(m.left + x * plotW);
  const sy = (y: number) => r1(m.top + (1 - y) * plotH);
  const parts = [
    svgOpen(name, width, height, `${title}: success rate against relative difficulty`),
    `<text class="title" x="${m.left}" y="15">${escapeHtml(title)}</text>`,
  ];
  for (const t of [0, 0.2, 0.4, 0.6, 0.8, 1]) {
    parts.push(
      `<line class="grid" x1="${sx(0)}" x2="${sx(1)}" y1="${sy(t)}" y2="${sy(t)}"/><text class="tick" x="${m.left - 5}" y="${sy(t) + 4}" text-anchor="end">${t.toFixed(1)}</text>`,
    );
    parts.push(`<text class="tick" x="${sx(t)}" y="${height - m.bottom + 14}" text-anchor="middle">${t.toFixed(1)}</text>`);
  }
  parts.push(`<text class="axis-title" x="${sx(0.5)}" y="${height - 4}" text-anchor="middle">relative difficulty</text>`);
  for (const { series, points } of curves) {
    if (points.length === 0) continue;
    const band = [...points.map((pt) => `${sx(pt.x)},${sy(pt.p.high)}`), ...[...points].reverse().map((pt) => `${sx(pt.x)},${sy(pt.p.low)}`)].join(' ');
    parts.push(`<g class="curve" data-series="${escapeHtml(series.name)}">`);
    if (points.length > 1) {
      parts.push(`<polygon class="band" points="${band}" fill="${series.color}"/>`);
      parts.push(`<polyline class="line" points="${points.map((pt) => `${sx(pt.x)},${sy(pt.p.p)}`).join(' ')}" stroke="${series.color}"/>`);
    }
    for (const pt of points) {
      const tip = `${series.name}, difficulty ${(pt.x - 0.05).toFixed(1)}–${(pt.x + 0.05).toFixed(1)}: ${pct(pt.p.p)} (${pt.p.k}/${pt.p.n}), 95% CI ${pct(pt.p.low)}–${pct(pt.p.high)}`;
      parts.push(
        `<g class="point"><title>${escapeHtml(tip)}</title><path class="ci" d="M${sx(pt.x)} ${sy(pt.p.low)}V${sy(pt.p.high)}" stroke="${series.color}"/><circle cx="${sx(pt.x)}" cy="${sy(pt.p.p)}" r="3.5" fill="${series.color}"/></g>`,
      );
    }
    parts.push('</g>');
  }
  parts.push('</svg>');
  return parts.join('');
}

/** Horizontal stacked bars with the total at the end (figure 5c, figure 6). */
export function stackedBars(
  name: string,
  description: string,
  rows: { label: string; segments: number[] }[],
  segments: Series[],
  max: number,
  { labelWidth = 160, plotWidth = 400 } = {},
): string {
  const barHeight = 18;
  const top = 8;
  const height = top + rows.length * (barHeight + 10) + 20;
  const scale = max > 0 ? max : 1;
  const parts = [svgOpen(name, labelWidth + plotWidth + 60, height, description), percentAxis(labelWidth, plotWidth, top, height - 20, scale)];
  rows.forEach((row, i) => {
    const y = top + i * (barHeight + 10);
    parts.push(`<g transform="translate(${labelWidth - 8} ${y + 13})">${shortLabel(row.label, Math.floor(labelWidth / 7))}</g>`);
    let x = labelWidth;
    row.segments.forEach((value, j) => {
      if (value <= 0) return;
      const w = (value / scale) * plotWidth;
      parts.push(
        `<rect x="${r1(x)}" y="${y}" width="${r1(w)}" height="${barHeight}" fill="${segments[j].color}"><title>${escapeHtml(`${row.label}, ${segments[j].name}: ${pct(value)}`)}</title></rect>`,
      );
      x += w;
    });
    const total = row.segments.reduce((s, v) => s + v, 0);
    parts.push(`<text class="value" x="${r1(x + 6)}" y="${y + 13}">${pct(total)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('');
}

export interface LineSeries {
  series: Series;
  points: { x: number; y: number; tip: string }[];
}

/** Values from 0 to 1 against a whole-number x (steps): a line per series, a dot per point. */
export function lineChart(name: string, title: string, xTitle: string, lines: LineSeries[]): string {
  const [width, height] = [420, 240];
  const m = { left: 38, right: 12, top: 24, bottom: 34 };
  const xs = lines.flatMap((l) => l.points.map((p) => p.x));
  const [x0, x1] = xs.length === 0 ? [0, 1] : [Math.min(...xs), Math.max(Math.max(...xs), Math.min(...xs) + 1)];
  const sx = (x: number) => r1(m.left + ((x - x0) / (x1 - x0)) * (width - m.left - m.right));
  const sy = (y: number) => r1(m.top + (1 - Math.min(1, Math.max(0, y))) * (height - m.top - m.bottom));
  const parts = [svgOpen(name, width, height, title), `<text class="title" x="${m.left}" y="15">${escapeHtml(title)}</text>`];
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(
      `<line class="grid" x1="${sx(x0)}" x2="${sx(x1)}" y1="${sy(t)}" y2="${sy(t)}"/><text class="tick" x="${m.left - 5}" y="${sy(t) + 4}" text-anchor="end">${t.toFixed(2)}</text>`,
    );
  }
  for (const x of [...new Set(xs)].sort((a, b) => a - b))
    parts.push(`<text class="tick" x="${sx(x)}" y="${height - m.bottom + 14}" text-anchor="middle">${x}</text>`);
  parts.push(`<text class="axis-title" x="${r1((m.left + width - m.right) / 2)}" y="${height - 4}" text-anchor="middle">${escapeHtml(xTitle)}</text>`);
  for (const { series, points } of lines) {
    parts.push(`<g class="curve" data-series="${escapeHtml(series.name)}">`);
    if (points.length > 1) parts.push(`<polyline class="line" points="${points.map((p) => `${sx(p.x)},${sy(p.y)}`).join(' ')}" stroke="${series.color}"/>`);
    for (const p of points) {
      parts.push(`<g class="point"><title>${escapeHtml(p.tip)}</title><circle cx="${sx(p.x)}" cy="${sy(p.y)}" r="3.5" fill="${series.color}"/></g>`);
    }
    parts.push('</g>');
  }
  parts.push('</svg>');
  return parts.join('');
}

export function legend(series: Series[]): string {
  const items = series.map(
    (s) =>
      `<span class="legend-item"><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" fill="${s.color}"/></svg>${escapeHtml(s.name)}</span>`,
  );
  return `<div class="legend">${items.join('')}</div>`;
}
