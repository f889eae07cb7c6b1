// Finds the conflict regions a merge left in a file and cuts them out with their context, as the
// LLM stage sees them (paper appendix B: the marked block plus c lines before and after).
import type { ConflictRegion } from './types.ts';
import type { MergeLabels } from './types.ts';

export const DEFAULT_CONTEXT_LINES = 5;

/** A region located in the file's lines (each line keeps its terminator). */
export interface LocatedRegion {
  /** Index of the `<<<<<<<` line, of the `=======` line, and of the `>>>>>>>` line. */
  start: number;
  separator: number;
  end: number;
  /** Context: lines [beforeStart, start) and (end, afterEnd). Never overlaps another region. */
  beforeStart: number;
  afterEnd: number;
}

export function splitLines(text: string): string[] {
  return text === '' ? [] : text.split(/(?<=\n)/);
}

const bare = (line: string): string => line.replace(/\r?\n$/, '');

export function locateRegions(lines: string[], labels: MergeLabels, contextLines: number): LocatedRegion[] {
  const open = `<<<<<<< ${labels.ours}`;
  const close = `>>>>>>> ${labels.theirs}`;
  const found: Omit<LocatedRegion, 'beforeStart' | 'afterEnd'>[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (bare(lines[i]!) !== open) continue;
    const separator = lines.findIndex((line, j) => j > i && bare(line) === '=======');
    const end = separator === -1 ? -1 : lines.findIndex((line, j) => j > separator && bare(line) === close);
    if (end === -1) break;
    found.push({ start: i, separator, end });
    i = end;
  }
  return found.map((region, k) => {
    const previousEnd = k === 0 ? -1 : found[k - 1]!.end;
    const nextStart = k === found.length - 1 ? lines.length : found[k + 1]!.start;
    return {
      ...region,
      beforeStart: Math.max(previousEnd + 1, region.start - contextLines),
      afterEnd: Math.min(nextStart, region.end + 1 + contextLines),
    };
  });
}

export function toConflictRegion(filePath: string, lines: string[], region: LocatedRegion): ConflictRegion {
  return {
    path: filePath,
    marked: lines.slice(region.start, region.end + 1).join(''),
    before: lines.slice(region.beforeStart, region.start).join(''),
    after: lines.slice(region.end + 1, region.afterEnd).join(''),
    startLine: region.start + 1,
  };
}

/**
 * Git labels markers with what it merged: here the commit ids of the two sides, followed by
 * `:<path>` after a rename. Those lines get the patches' names instead; other bytes are kept.
 */
export function relabelMarkers(content: Buffer, commits: { ours: string; theirs: string }, labels: MergeLabels): Buffer {
  const markers: [string, string][] = [
    [`<<<<<<< ${commits.ours}`, `<<<<<<< ${labels.ours}`],
    [`>>>>>>> ${commits.theirs}`, `>>>>>>> ${labels.theirs}`],
  ];
  const relabelled = content
    .toString('latin1')
    .split(/(?<=\n)/)
    .map((line) => {
      const bareLine = bare(line);
      const marker = markers.find(([git]) => bareLine === git || bareLine.startsWith(`${git}:`));
      return marker ? marker[1] + line.slice(bareLine.length) : line;
    });
  return Buffer.from(relabelled.join(''), 'latin1');
}
