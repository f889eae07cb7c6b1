// Items grouped by a key, in first-seen order: a module of its own so that an analysis whose types
// run-data.ts names (initiative.ts) can use it without importing run-data.ts back.
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
