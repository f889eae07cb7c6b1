// The end-of-run summary, computed from the store so it covers tasks finished by earlier attempts too.
import type { RunStore } from '../store/run-store.ts';
import { teamName } from '../../tasks/types.ts';
import { STRING_LIST, fromTaskKey, jsonOr } from '../store/columns.ts';

export interface SettingSummary {
  models: string;
  setting: string;
  tasks: number;
  done: number;
  bothPassed: number;
  errors: number;
  pending: number;
  merge: Record<'clean' | 'union' | 'llm' | 'conflict' | 'missing_input', number>;
}

export function summarize(store: RunStore): SettingSummary[] {
  const rows = store.db
    .prepare(
      `SELECT t.key, t.models, t.setting, t.variant, t.status, t.both_passed, m.status AS merge_status
       FROM tasks t LEFT JOIN merges m ON m.task = t.id ORDER BY t.id`,
    )
    .all() as { key: string; models: string; setting: string; variant: string; status: string; both_passed: number | null; merge_status: string | null }[];
  const groups = new Map<string, SettingSummary>();
  for (const row of rows) {
    // A damaged models column (the report names it) is read from the task's key.
    const models = teamName(jsonOr(row.models, STRING_LIST, fromTaskKey(row.key).models));
    const setting = row.variant ? `${row.setting}-${row.variant}` : row.setting;
    const key = `${models}|${setting}`;
    let s = groups.get(key);
    if (!s) {
      s = { models, setting, tasks: 0, done: 0, bothPassed: 0, errors: 0, pending: 0, merge: { clean: 0, union: 0, llm: 0, conflict: 0, missing_input: 0 } };
      groups.set(key, s);
    }
    s.tasks++;
    if (row.status === 'done') {
      s.done++;
      if (row.both_passed) s.bothPassed++;
      if (row.setting === 'coop' && row.merge_status) s.merge[row.merge_status as keyof SettingSummary['merge']]++;
    } else if (row.status === 'error') s.errors++;
    else s.pending++;
  }
  return [...groups.values()];
}

const pct = (k: number, n: number) => (n === 0 ? '-' : `${((100 * k) / n).toFixed(1)}%`);

export function formatSummary(runName: string, summaries: SettingSummary[]): string {
  const lines = [`Run ${runName}`];
  const header = ['models', 'setting', 'pairs', 'done', 'both pass', 'errors', 'not run', 'merge clean/union/llm/conflict/missing_input'];
  const table = summaries.map((s) => [
    s.models,
    s.setting,
    String(s.tasks),
    String(s.done),
    `${s.bothPassed}/${s.done} (${pct(s.bothPassed, s.done)})`,
    String(s.errors),
    String(s.pending),
    s.setting.startsWith('coop') ? `${s.merge.clean}/${s.merge.union}/${s.merge.llm}/${s.merge.conflict}/${s.merge.missing_input}` : '-',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
  const format = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  lines.push(format(header), format(widths.map((w) => '-'.repeat(w))), ...table.map(format));
  return lines.join('\n');
}
