// What each benchmark returns: a table, the target it is held to, and what the numbers mean.
// Printed as text and written, all together, to bench/results.json.

export interface BenchTable {
  id: string;
  title: string;
  /** What is measured against what, in a sentence or two. */
  measures: string;
  columns: string[];
  rows: (string | number)[][];
  /** The target and whether this run met it (null: not a target of the issue). */
  target?: { text: string; value: number; met: boolean };
  /** What bounds the result, conditions of the run, caveats. */
  notes: string[];
}

export const ms = (value: number): string => value.toFixed(1);
export const ratio = (value: number): string => `${value.toFixed(2)}x`;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function formatTable(table: BenchTable): string {
  const cells = [table.columns, ...table.rows.map((row) => row.map(String))];
  const widths = table.columns.map((_, c) => Math.max(...cells.map((row) => (row[c] ?? '').length)));
  const line = (row: string[]) => row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  const out = [`== ${table.title} ==`, table.measures, '', line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)];
  if (table.target) out.push('', `target: ${table.target.text}: ${table.target.met ? 'MET' : 'NOT MET'} (${table.target.value.toFixed(2)})`);
  for (const note of table.notes) out.push(`note: ${note}`);
  return out.join('\n');
}
