// Two runs side by side: success per model and condition, the difference with its interval, and
// retention; as HTML, JSON or CSV.
import { configLabel, type RunSummary } from './summary.ts';
import type { ConditionResult } from './analysis/headline.ts';
import { compareConditions } from './analysis/conditions.ts';
import { difference, type Difference } from './stats.ts';
import { csv } from './export.ts';
import { htmlDocument } from './html/document.ts';
import { escapeHtml } from './html/escape.ts';
import { differenceText, fixed, rateText } from './html/format.ts';
import { note, num, section, table, warning } from './html/markup.ts';
import { exclusionText } from './analysis/exclusions.ts';

export interface ComparisonRow {
  team: string;
  condition: string;
  a: ConditionResult | null;
  b: ConditionResult | null;
  /** b − a, when both have finished tasks. */
  difference: Difference | null;
}

export interface RunComparison {
  a: RunSummary;
  b: RunSummary;
  rows: ComparisonRow[];
  retention: { team: string; a: number | null; b: number | null }[];
}

export function compareRuns(a: RunSummary, b: RunSummary): RunComparison {
  const results = (s: RunSummary) =>
    new Map(s.headline.teams.flatMap((t) => t.results.map((r) => [`${t.team}\u0000${r.condition}`, { team: t.team, r }] as const)));
  const ra = results(a);
  const rb = results(b);
  const keys = [...new Set([...ra.keys(), ...rb.keys()])];
  const rows = keys
    .map((key): ComparisonRow => {
      const x = ra.get(key)?.r ?? null;
      const y = rb.get(key)?.r ?? null;
      const [team, condition] = key.split('\u0000');
      return { team, condition, a: x, b: y, difference: x?.rate && y?.rate ? difference(y.rate, x.rate) : null };
    })
    .sort((p, q) => p.team.localeCompare(q.team) || compareConditions(p.condition, q.condition));
  const retentionOf = (s: RunSummary) => new Map(s.difficulty.teams.map((t) => [t.team, t.summary.retention]));
  const ta = retentionOf(a);
  const tb = retentionOf(b);
  const retention = [...new Set([...ta.keys(), ...tb.keys()])].sort().map((team) => ({ team, a: ta.get(team) ?? null, b: tb.get(team) ?? null }));
  return { a, b, rows, retention };
}

/**
 * Why the two runs' numbers may not be comparable: different agent configurations (prompts, tools,
 * limits), told rather than hidden.
 */
export function comparisonWarnings(c: RunComparison): string[] {
  const hashes = (s: RunSummary) =>
    s.agentConfigs
      .map((a) => a.hash)
      .sort()
      .join(',');
  if (hashes(c.a) === hashes(c.b)) return [];
  const show = (s: RunSummary) => s.agentConfigs.map((a) => configLabel(a.hash)).join(', ') || 'none recorded';
  return [
    `The runs used different agent configurations (${c.a.run.name}: ${show(c.a)}; ${c.b.run.name}: ${show(c.b)}): their agents had other prompts, tools or limits.`,
  ];
}

export function comparisonHtml(c: RunComparison): string {
  const [na, nb] = [c.a.run.name, c.b.run.name];
  const header = `<header class="top"><strong>coop-bench comparison</strong><span>${escapeHtml(na)} vs ${escapeHtml(nb)}</span></header>`;
  const left = (r: ConditionResult | null) => (r ? exclusionText(r.excluded) || '–' : '–');
  const body = [
    section('comparison', 'Success per model and condition', [
      ...comparisonWarnings(c).map(warning),
      note(
        `Difference = ${nb} − ${na}, with Newcombe's 95% interval for a difference of two rates. Counts are finished tasks; left out: tasks that did not finish, and why.`,
      ),
      table(
        ['model', 'condition', num(`${na}`), `${na}: left out`, num(`${nb}`), `${nb}: left out`, num('difference [95% CI]')],
        c.rows.map((r) => [r.team, r.condition, rateText(r.a?.rate ?? null), left(r.a), rateText(r.b?.rate ?? null), left(r.b), differenceText(r.difference)]),
      ),
    ]),
    section('retention', 'Retention', [
      c.retention.length
        ? table(
            ['model', num(na), num(nb)],
            c.retention.map((r) => [r.team, fixed(r.a, 2), fixed(r.b, 2)]),
          )
        : note('Neither run has Solo and Coop results of the same pairs.'),
    ]),
  ];
  return htmlDocument(`coop-bench comparison: ${na} vs ${nb}`, header, [`<main>${body.join('\n')}</main>`]);
}

export function comparisonJson(c: RunComparison): string {
  return `${JSON.stringify({ runs: [c.a.run.name, c.b.run.name], warnings: comparisonWarnings(c), rows: c.rows, retention: c.retention, summaries: [c.a, c.b] }, null, 2)}\n`;
}

export function comparisonCsv(c: RunComparison): string {
  const side = (r: ConditionResult | null) => [r?.passed ?? null, r?.done ?? null, r?.rate?.p ?? null, r?.excluded.total ?? null];
  return csv(
    [
      'model',
      'condition',
      'a_run',
      'a_passed',
      'a_finished',
      'a_rate',
      'a_excluded',
      'b_run',
      'b_passed',
      'b_finished',
      'b_rate',
      'b_excluded',
      'difference',
      'difference_low',
      'difference_high',
    ],
    c.rows.map((r) => [
      r.team,
      r.condition,
      c.a.run.name,
      ...side(r.a),
      c.b.run.name,
      ...side(r.b),
      r.difference?.diff ?? null,
      r.difference?.low ?? null,
      r.difference?.high ?? null,
    ]),
  );
}
