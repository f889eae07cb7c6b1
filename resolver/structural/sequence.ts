// Sequence matching for the structural merge: which items of a side are base items (longest common
// subsequence of their keys), and a three-way merge of the lines of a text (a docstring, a comment)
// where both sides may insert at the same place.

/** More key comparisons than this and a list is not matched (the stage leaves the file). */
export const MAX_MATCH_CELLS = 4_000_000;

/**
 * For each base item, the index of the side item it matches, or -1 (deleted or changed). Undefined
 * when the lists are too long to match after their common ends are set aside.
 */
export function matchKeys(base: readonly string[], side: readonly string[]): number[] | undefined {
  const match = base.map(() => -1);
  let head = 0;
  while (head < base.length && head < side.length && base[head] === side[head]) match[head] = head++;
  let tail = 0;
  while (tail < base.length - head && tail < side.length - head && base[base.length - 1 - tail] === side[side.length - 1 - tail]) {
    match[base.length - 1 - tail] = side.length - 1 - tail;
    tail++;
  }
  const n = base.length - head - tail;
  const m = side.length - head - tail;
  if (n === 0 || m === 0) return match;
  if (n * m > MAX_MATCH_CELLS) return undefined;
  // lengths[i][j]: LCS of base[head+i..] and side[head+j..], one row per base item.
  const lengths = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lengths[i]![j] = base[head + i] === side[head + j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  for (let i = 0, j = 0; i < n && j < m;) {
    if (base[head + i] === side[head + j]) {
      match[head + i] = head + j;
      i++;
      j++;
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) i++;
    else j++;
  }
  return match;
}

/** A side's change to a base list: base items [start, end) replaced by `items`. */
interface Hunk<T> {
  start: number;
  end: number;
  items: T[];
}

function hunks<T>(base: readonly T[], side: readonly T[], match: number[]): Hunk<T>[] {
  const found: Hunk<T>[] = [];
  let sideAt = 0;
  let baseAt = 0;
  for (let i = 0; i <= base.length; i++) {
    const j = i < base.length ? match[i]! : side.length;
    if (j < 0) continue;
    if (i > baseAt || j > sideAt) found.push({ start: baseAt, end: i, items: side.slice(sideAt, j) });
    baseAt = i + 1;
    sideAt = j + 1;
  }
  return found;
}

/**
 * Three-way merge of lines: changes to separate lines are both applied; where both sides only
 * insert at the same place, ours then theirs (bothInserted); any other overlap is a conflict
 * (undefined), or with `keepBoth` both sides' versions of those lines, ours first.
 */
export function mergeLines(base: string, ours: string, theirs: string, keepBoth = false): string | undefined {
  const [b, o, t] = [base, ours, theirs].map((text) => text.split('\n')) as [string[], string[], string[]];
  const mo = matchKeys(b, o);
  const mt = matchKeys(b, t);
  if (!mo || !mt) return undefined;
  const ho = hunks(b, o, mo);
  const ht = hunks(b, t, mt);
  const out: string[] = [];
  let at = 0;
  let i = 0;
  let k = 0;
  const copyTo = (end: number) => {
    out.push(...b.slice(at, end));
    at = Math.max(at, end);
  };
  while (i < ho.length || k < ht.length) {
    const x = ho[i];
    const y = ht[k];
    // Changes to adjacent lines overlap too (as in git): only separated changes are both applied.
    const overlap = x !== undefined && y !== undefined && x.start <= y.end && y.start <= x.end;
    const xFirst = x !== undefined && (y === undefined || x.end < y.start);
    if (overlap) {
      const same = x.start === y.start && x.end === y.end;
      if (same && x.items.join('\n') === y.items.join('\n')) {
        copyTo(x.start);
        out.push(...x.items);
      } else if (same && x.start === x.end) {
        copyTo(x.start);
        out.push(...bothInserted(x.items, y.items));
      } else if (keepBoth) {
        // Text that does not run (documentation): each side's version of the lines, ours first.
        const [start, end] = [Math.min(x.start, y.start), Math.max(x.end, y.end)];
        const version = (h: Hunk<string>) => [...b.slice(start, h.start), ...h.items, ...b.slice(h.end, end)];
        copyTo(start);
        out.push(...bothInserted(version(x), version(y)));
        at = end;
        i++;
        k++;
        if ((ho[i]?.start ?? Infinity) < end || (ht[k]?.start ?? Infinity) < end) return undefined;
        continue;
      } else return undefined;
      at = x.end;
      i++;
      k++;
      continue;
    }
    const hunk = xFirst ? x! : y!;
    copyTo(hunk.start);
    out.push(...hunk.items);
    at = hunk.end;
    if (xFirst) i++;
    else k++;
  }
  copyTo(b.length);
  return out.join('\n');
}

/**
 * Two insertions at one place: the lines both begin and end with once (a docstring's `Args:` that
 * both sides opened, its closing indentation), ours's own lines, then theirs's.
 */
function bothInserted(ours: string[], theirs: string[]): string[] {
  let head = 0;
  while (head < ours.length && head < theirs.length && ours[head] === theirs[head]) head++;
  let tail = 0;
  while (tail < ours.length - head && tail < theirs.length - head && ours[ours.length - 1 - tail] === theirs[theirs.length - 1 - tail]) tail++;
  return [...ours.slice(0, ours.length - tail), ...theirs.slice(head, theirs.length - tail), ...ours.slice(ours.length - tail)];
}
