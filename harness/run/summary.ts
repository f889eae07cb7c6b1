// The end-of-run summary, computed from the store so it covers tasks finished by earlier attempts too.
import type { RunStore } from '../store/run-store.ts';
import { attemptsByTask } from '../store/merge-attempts.ts';
import { teamName } from '../../tasks/types.ts';
import { MERGE_STATUSES, orderEffect } from '../../resolver/index.ts';
import type { EvaluationResult } from './types.ts';

export interface SettingSummary {
  models: string;
  setting: string;
  tasks: number;
  done: number;
  bothPassed: number;
  errors: number;
  pending: number;
  /** Finished tasks per merge status (MERGE_STATUSES). */
  merge: Record<string, number>;
  /** Union-merged tasks whose other union order was tested, and those whose outcome it changed. */
  order: { measured: number; decided: number };
}

export function summarize(store: RunStore): SettingSummary[] {
  const rows = store.db
    .prepare(
      `SELECT t.id, t.models, t.setting, t.variant, t.status, t.both_passed, m.status AS merge_status
       FROM tasks t LEFT JOIN merges m ON m.task = t.id ORDER BY t.id`,
    )
    .all() as { id: number; models: string; setting: string; variant: string; status: string; both_passed: number | null; merge_status: string | null }[];
  const attempts = attemptsByTask(store.db);
  const groups = new Map<string, SettingSummary>();
  for (const row of rows) {
    const models = teamName(JSON.parse(row.models) as string[]);
    const setting = row.variant ? `${row.setting}-${row.variant}` : row.setting;
    const key = `${models}|${setting}`;
    let s = groups.get(key);
    if (!s) {
      s = { models, setting, tasks: 0, done: 0, bothPassed: 0, errors: 0, pending: 0, merge: Object.fromEntries(MERGE_STATUSES.map((m) => [m, 0])), order: { measured: 0, decided: 0 } };
      groups.set(key, s);
    }
    s.tasks++;
    if (row.status === 'done') {
      s.done++;
      if (row.both_passed) s.bothPassed++;
      if (row.setting === 'coop' && row.merge_status) s.merge[row.merge_status] = (s.merge[row.merge_status] ?? 0) + 1;
      const effect = row.setting === 'coop' ? orderEffect(attempts.get(row.id) ?? []) : undefined;
      if (effect === 'decided' || effect === 'same') s.order.measured++;
      if (effect === 'decided') s.order.decided++;
    } else if (row.status === 'error') s.errors++;
    else s.pending++;
  }
  return [...groups.values()];
}

const pct = (k: number, n: number) => (n === 0 ? '-' : `${((100 * k) / n).toFixed(1)}%`);

export function formatSummary(runName: string, summaries: SettingSummary[]): string {
  const lines = [`Run ${runName}`];
  const header = ['models', 'setting', 'pairs', 'done', 'both pass', 'errors', 'not run', `merge ${MERGE_STATUSES.join('/')}`, 'union order decided'];
  const coop = (s: SettingSummary) => s.setting.startsWith('coop');
  const table = summaries.map((s) => [
    s.models,
    s.setting,
    String(s.tasks),
    String(s.done),
    `${s.bothPassed}/${s.done} (${pct(s.bothPassed, s.done)})`,
    String(s.errors),
    String(s.pending),
    coop(s) ? MERGE_STATUSES.map((m) => s.merge[m] ?? 0).join('/') : '-',
    coop(s) && s.order.measured > 0 ? `${s.order.decided}/${s.order.measured}` : '-',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
  const format = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  lines.push(format(header), format(widths.map((w) => '-'.repeat(w))), ...table.map(format));
  return lines.join('\n');
}

/** The merge part of a task's progress line; none in Solo, where nothing is merged. */
export function mergeProgress(setting: string, result: EvaluationResult): string | undefined {
  if (setting !== 'coop') return undefined;
  const effect = orderEffect(result.attempts.map((a) => ({ stage: a.stage, outcome: a.outcome, passed: a.tested?.passed })));
  return `merge ${result.merge.status}${effect === 'decided' ? ', the other union order gives the other outcome' : ''}`;
}
