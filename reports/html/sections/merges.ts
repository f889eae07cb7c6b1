// Table 6 (merge success after each stage of the cascade, with and without messaging), how many
// union outcomes the union's order decided, and figure 5 (a, b): the communication on/off effect
// on success and on naive merge conflicts.
import type { RunSummary } from '../../summary.ts';
import { repairedPatchSentence } from '../../analysis/repaired-patches.ts';
import { MERGE_COLUMNS, NO_MESSAGING, finalSuccess, type MergeColumns } from '../../analysis/merges.ts';
import type { Proportion } from '../../stats.ts';
import { escapeHtml } from '../escape.ts';
import { differenceText, pct } from '../format.ts';
import { figure, note, render, section, trusted, type Content } from '../markup.ts';
import { COOP_COLOR, PALETTE, intervalBars, legend } from '../svg.ts';

const variantName = (v: string) => (v === '' ? 'With messaging' : v === NO_MESSAGING ? 'No messaging' : v);

/** `27.9% (12/43)`, with the gain over the previous stage as table 6's subscript. */
function cell(p: Proportion, previous?: Proportion): Content {
  const gain = previous ? ` <sub>${p.p >= previous.p ? '+' : ''}${(100 * (p.p - previous.p)).toFixed(1)}</sub>` : '';
  return trusted(`${escapeHtml(pct(p.p))}${gain} <span class="note">(${p.k}/${p.n})</span>`);
}

function orderCell({ order }: MergeColumns): string {
  const unmeasured = order.unmeasured > 0 ? ` (+${order.unmeasured} not measured)` : '';
  return order.measured > 0 ? `${order.decided}/${order.measured}${unmeasured}` : order.unmeasured > 0 ? `not measured (${order.unmeasured})` : '–';
}

function structuralCell({ structural }: MergeColumns): Content {
  const unmeasured = structural.unmeasured > 0 ? ` (+${structural.unmeasured} not measured)` : '';
  if (!structural.rate) return structural.unmeasured > 0 ? `not measured (${structural.unmeasured})` : '–';
  return trusted(`${render(cell(structural.rate))}${escapeHtml(unmeasured)}`);
}

const COLUMNS_PER_VARIANT = MERGE_COLUMNS.length + 3;

function variantCells(c: MergeColumns | undefined): Content[] {
  if (!c) return Array.from({ length: COLUMNS_PER_VARIANT }, () => '–');
  return [
    ...c.passedBy.map((p, i) => cell(p.rate, c.passedBy[i - 1]?.rate)),
    c.conflictRate ? `${pct(c.conflictRate.p)} (${c.conflictRate.k}/${c.conflictRate.n})` : '–',
    orderCell(c),
    structuralCell(c),
  ];
}

export function mergeSection(s: RunSummary): string {
  const { variants, rows } = s.merges;
  const repaired = repairedPatchSentence(s.repairedPatches);
  const repairedNote = repaired ? [note(`${repaired}.`)] : [];
  if (rows.length === 0)
    return section('merges', 'Merge strategies and messaging', [note('No finished Coop tasks: there are no merges to show.'), ...repairedNote]);
  const head1 = variants.map((v) => `<th colspan="${COLUMNS_PER_VARIANT}">${escapeHtml(variantName(v))}</th>`).join('');
  const stageHeads = MERGE_COLUMNS.map((c, i) => `<th class="num">${i === 0 ? 'Pass after ' : '+ '}${escapeHtml(c.label)}</th>`).join('');
  const head2 = variants
    .map(() => `${stageHeads}<th class="num">Naive merge conflicted</th><th class="num">Union order decided</th><th class="num">Pass after structural</th>`)
    .join('');
  const hasEffect = variants.includes('') && variants.includes(NO_MESSAGING);
  const body = rows
    .map((r) => {
      const cells = variants.flatMap((v) => variantCells(r.byVariant[v]));
      if (hasEffect) cells.push(differenceText(r.successEffect));
      return `<tr><td>${escapeHtml(r.team)}</td>${cells.map((c) => `<td class="num">${render(c)}</td>`).join('')}</tr>`;
    })
    .join('\n');
  const mergeTable = `<table><thead><tr><th></th>${head1}${hasEffect ? '<th></th>' : ''}</tr><tr><th>model</th>${head2}${hasEffect ? '<th class="num">Δ success (messaging on − off) [95% CI]</th>' : ''}</tr></thead><tbody>\n${body}\n</tbody></table>`;

  const stages = MERGE_COLUMNS.map((c) => c.label).join(', ');
  const parts = [
    note(
      `Table 6 of the paper. Pass after …: share of finished Coop tasks whose tests pass on code the merge produced by that stage (${stages}; cumulative, the small number is the gain over the previous column): a pass rate, not the share of clean merges. Naive merge conflicted: share of merges whose naive merge (CooperBench's git merge) conflicted, patches that did not apply left out. Union order decided: among union-merged tasks whose union was also built and tested in the other order, how many had a different outcome (both pass or not) in that order. The union keeps both sides of every conflict, the checked-out agent's lines first, as CooperBench's harness does; which agent that is, is arbitrary. Pass after structural (a probe, not part of the cascade above unless --merge-cascade puts it there): share of tasks whose tests pass on the naive merge's code or, where it conflicted, on the structural merge's, which merges by syntax tree instead of by lines (docs/merge.md).`,
    ),
    mergeTable,
    ...repairedNote,
  ];
  const teams = rows.filter((r) => r.byVariant[''] && r.byVariant[NO_MESSAGING]);
  if (teams.length === 0) {
    parts.push(
      note('No Coop runs without messaging: the communication on/off effect (paper figure 5 a, b) needs the no-messaging ablation of the same pairs.'),
    );
  } else {
    const series = [
      { name: 'With messaging', color: COOP_COLOR },
      { name: 'No messaging', color: PALETTE[8] },
    ];
    const chart = (name: string, pick: (c: MergeColumns) => Proportion | null) =>
      intervalBars(
        name,
        name,
        teams.map((r) => ({ label: r.team, values: [pick(r.byVariant['']!), pick(r.byVariant[NO_MESSAGING]!)] })),
        series,
      );
    parts.push(
      '<h3>Communication on and off</h3>',
      legend(series),
      `<div class="figures">${figure(chart('comm-success', finalSuccess), '(a) Success, with and without messaging (figure 5a).')}${figure(
        chart('comm-conflicts', (c) => c.conflictRate),
        '(b) Naive merge conflict rate, with and without messaging (figure 5b).',
      )}</div>`,
      `<table><thead><tr><th>model</th><th class="num">Δ success [95% CI]</th><th class="num">Δ naive conflict rate [95% CI]</th></tr></thead><tbody>${teams
        .map(
          (r) =>
            `<tr><td>${escapeHtml(r.team)}</td><td class="num">${escapeHtml(differenceText(r.successEffect))}</td><td class="num">${escapeHtml(differenceText(r.conflictEffect))}</td></tr>`,
        )
        .join('')}</tbody></table>`,
    );
  }
  return section('merges', 'Merge strategies and messaging', parts);
}
