// Success: Solo vs Coop per model (figure 4 left), the coordination gap, the difficulty curves
// (figure 4 right, figure 7) and the retention table (table 5).
import type { RunSummary } from '../../summary.ts';
import type { TeamCurve } from '../../analysis/difficulty.ts';
import { BUCKETS } from '../../stats.ts';
import { countText, differenceText, fixed, pct, rateText } from '../format.ts';
import { figure, note, num, section, table, trusted, warning } from '../markup.ts';
import { endingsText, exclusionText } from '../../analysis/exclusions.ts';
import { COOP_COLOR, PALETTE, SOLO_COLOR, curveChart, intervalBars, legend, type Series } from '../svg.ts';

function conditionSeries(conditions: string[]): Series[] {
  const others = PALETTE.filter((c) => c !== SOLO_COLOR && c !== COOP_COLOR);
  let next = 0;
  return conditions.map((name) => ({ name, color: name === 'Solo' ? SOLO_COLOR : name === 'Coop' ? COOP_COLOR : others[next++ % others.length] }));
}

export function headlineSection(s: RunSummary): string {
  const { conditions, teams } = s.headline;
  if (teams.length === 0) return section('headline', 'Solo vs Coop', [note('This run has no tasks.')]);
  const series = conditionSeries(conditions);
  const chart = intervalBars(
    'headline',
    'Success rate per model and condition with 95% Wilson intervals',
    teams.map((t) => ({ label: t.team, values: conditions.map((c) => t.results.find((r) => r.condition === c)?.rate ?? null) })),
    series,
  );
  const rows = teams.flatMap((t) =>
    t.results.map((r) => [
      t.team,
      r.condition,
      `${r.done}/${r.tasks}`,
      r.passed,
      rateText(r.rate),
      exclusionText(r.excluded) || '–',
      endingsText(r.agentEndings) || '–',
    ]),
  );
  const rejected = teams.reduce((n, t) => n + t.results.reduce((m, r) => m + (r.agentEndings.model_rejected ?? 0), 0), 0);
  const gaps = teams.filter((t) => t.gap);
  const gapTable = gaps.length
    ? table(
        ['model', num('pairs'), num('Solo'), num('Coop'), num('gap (Solo − Coop) [95% CI]'), num('share of Solo lost'), num('pairs left out')],
        gaps.map((t) => {
          const g = t.gap!;
          return [
            t.team,
            g.pairs,
            rateText(g.solo),
            rateText(g.coop),
            differenceText(g.gap),
            g.relativeLoss === null ? '–' : pct(g.relativeLoss),
            g.excludedPairs,
          ];
        }),
      )
    : note('No coordination gap: it needs Solo and Coop (with messaging) results of the same pairs for a model.');
  return section('headline', 'Solo vs Coop', [
    legend(series),
    figure(
      chart,
      'Share of tasks where every feature\u2019s hidden tests pass on the merged code, with 95% Wilson intervals (paper figure 4, left). Counts are finished tasks.',
    ),
    table(
      ['model', 'condition', num('finished/tasks'), num('passed'), num('success [95% CI]'), 'left out of the rate', 'agents that did not finish (scored)'],
      rows,
    ),
    note(
      'A rate counts finished tasks. Left out: tasks that failed because of the infrastructure (Docker, network, a provider failing after its retries), of coop-bench itself (harness), were interrupted, or have not run. Agents that did not finish (a limit, a conversation over the window, output cut off, a request the provider refused, a model that declined on its provider\u2019s safety policy: refused) are the agents\u2019 failures: those tasks are scored.',
    ),
    rejected > 0
      ? warning(
          `${rejected} scored task(s) had an agent stopped by a request the provider refused (model_rejected): the model's own doing, or a coop-bench bug; their task pages show the error.`,
        )
      : '',
    '<h3>Coordination gap</h3>',
    note(
      'On the pairs a model finished in both Solo and Coop (pairs left out: one of the two did not finish); the interval is Newcombe\u2019s for a difference of two rates.',
    ),
    gapTable,
  ]);
}

const bucketRange = (b: number) => `${(b / BUCKETS).toFixed(1)}–${((b + 1) / BUCKETS).toFixed(1)}`;

/** Solo and Coop curves of one model, or of all models pooled (chart name `curve-<model>` or `curve-pooled`). */
function curveFigure(curve: TeamCurve, title: string, large: boolean): string {
  return curveChart(
    `curve-${curve.team}`,
    title,
    [
      { series: { name: 'Solo', color: SOLO_COLOR }, points: curve.points.map((pt) => ({ x: pt.x, p: pt.solo })) },
      { series: { name: 'Coop', color: COOP_COLOR }, points: curve.points.map((pt) => ({ x: pt.x, p: pt.coop })) },
    ],
    large,
  );
}

export function difficultySection(s: RunSummary): string {
  const d = s.difficulty;
  if (!d.pooled) {
    return section('difficulty', 'Success by relative difficulty', [
      note('Difficulty curves need, for some model, Solo and Coop (with messaging) results of the same pairs; this run has none.'),
      d.unratedCoopPairs > 0 ? note(`${d.unratedCoopPairs} Coop pair(s) have no Solo result, so their difficulty is unknown.`) : '',
    ]);
  }
  const notes = [
    note(
      'd(t) = 1 − mean over models of Solo success on pair t, rescaled linearly to [0, 1] over this run\u2019s pairs, in 10 equal buckets (paper appendix C, Algorithm 1; computed from the counts, exactly). Points are bucket midpoints with 95% Wilson intervals; the pooled curve sums counts across models.',
    ),
  ];
  if (d.rawRange && d.rawRange.min === d.rawRange.max)
    notes.push(
      note(
        `Every pair has the same raw difficulty (${d.rawRange.min.toFixed(2)}): it cannot be rescaled, so all pairs share one bucket and each curve is a single point.`,
      ),
    );
  if (d.unratedCoopPairs > 0) notes.push(note(`${d.unratedCoopPairs} Coop pair(s) have no Solo result: their difficulty is unknown and they are left out.`));
  if (d.pooled.excludedPairs > 0) notes.push(note(`${d.pooled.excludedPairs} (model, pair) result(s) are left out: their Solo or Coop task did not finish.`));
  const single = d.teams.length === 1;
  const main = single ? d.teams[0] : d.pooled;
  const charts = [
    figure(
      curveFigure(main, single ? main.team : 'All models (pooled)', true),
      single ? `${d.pooled.summary.n} pairs.` : `${d.pooled.summary.n} (model, pair) results, counts summed per bucket.`,
    ),
  ];
  if (!single) charts.push(...d.teams.map((t) => figure(curveFigure(t, t.team, false), `${t.summary.n} pairs.`)));
  const buckets = table(
    ['difficulty', num('n'), num('Solo'), num('Coop')],
    d.pooled.points.map((pt) => [bucketRange(pt.bucket), pt.solo.n, `${countText(pt.solo)} (${pct(pt.solo.p)})`, `${countText(pt.coop)} (${pct(pt.coop.p)})`]),
  );
  return section('difficulty', 'Success by relative difficulty', [
    legend([
      { name: 'Solo', color: SOLO_COLOR },
      { name: 'Coop', color: COOP_COLOR },
    ]),
    `<div class="figures">${charts.join('')}</div>`,
    ...notes,
    `<h3>${single ? 'Counts' : 'Pooled counts'} per bucket</h3>`,
    note('n: (model, pair) results in the bucket, each run in Solo and in Coop.'),
    buckets,
  ]);
}

export function retentionSection(s: RunSummary): string {
  const d = s.difficulty;
  if (!d.pooled) return section('retention', 'Retention', [note('Retention needs the difficulty curves above; this run has none.')]);
  const curves = d.teams.length > 1 ? [...d.teams, d.pooled] : d.teams;
  const rows = curves.map((c) => {
    const r = c.summary;
    return [
      c.team === 'pooled' ? trusted('<strong>pooled</strong>') : c.team,
      r.n,
      r.kSolo,
      r.kCoop,
      fixed(r.aucSolo),
      fixed(r.aucCoop),
      fixed(r.deltaAuc),
      fixed(r.retention, 2),
      c.excludedPairs,
    ];
  });
  return section('retention', 'Retention', [
    note(
      'Table 5 of the paper: AUC of each curve by plain trapezoidal integration between its points at the bucket midpoints (Algorithm 1; not divided by the span, so a flat curve at r over all ten buckets has AUC 0.9·r, and a single point has none), ΔAUC = AUC Solo − AUC Coop, retention = AUC Coop / AUC Solo: the share of Solo performance that survives coordination.',
    ),
    table(['model', num('n'), num('k Solo'), num('k Coop'), num('AUC Solo'), num('AUC Coop'), num('ΔAUC'), num('retention'), num('pairs left out')], rows),
  ]);
}
