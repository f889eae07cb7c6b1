// Turns pools, filters, models and settings into the plan of a run: its size counted arithmetically,
// its tasks made one at a time (a pool of 200 features has 65 million groups of 4).
import type { Pool, Setting, Subset, TaskSpec } from './types.ts';
import { createHash } from 'node:crypto';
import { poolKey, taskKey } from './types.ts';
import { TaskInputError } from './errors.ts';

export interface TaskFilters {
  /** Repo folder names, with or without `_task`, or `<repo>/task<id>`. */
  pools?: string[];
  taskIds?: number[];
  /** Exactly these features (the pair, or the N-tuple with `agents`). */
  features?: number[];
  subset?: Subset;
}

export interface PlanOptions extends TaskFilters {
  /** One model spec per team (a team is one model, or `a+b` for a mixed team). */
  teams: string[][];
  settings: Setting[];
  /** Agents per coop task: 2 (pairs) or 3-4 (the scaling experiment). */
  agents: number;
  variant: string;
}

/** How many k-element combinations n ids have: C(n, k), without listing them. */
export function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let result = 1;
  for (let i = 1; i <= Math.min(k, n - k); i++) result = (result * (n - i + 1)) / i;
  return Math.round(result);
}

/** The k-element combinations of ascending ids, one at a time, in lexicographic order. */
export function* eachCombination(ids: number[], k: number): Generator<number[]> {
  if (k > ids.length) return;
  const at = Array.from({ length: k }, (_, i) => i);
  for (;;) {
    yield at.map((i) => ids[i]);
    let i = k - 1;
    while (i >= 0 && at[i] === ids.length - k + i) i--;
    if (i < 0) return;
    at[i]++;
    for (let j = i + 1; j < k; j++) at[j] = at[j - 1] + 1;
  }
}

/** All k-element combinations of ascending ids. */
export function combinations(ids: number[], k: number): number[][] {
  return [...eachCombination(ids, k)];
}

function poolMatches(pool: Pool, names: string[]): boolean {
  return names.some((name) => {
    const bare = name.replace(/\/+$/, '');
    return bare === pool.repo || `${bare}_task` === pool.repo || bare === poolKey(pool);
  });
}

export function selectPools(pools: Pool[], filters: TaskFilters): Pool[] {
  let selected = pools;
  if (filters.pools?.length) {
    selected = selected.filter((p) => poolMatches(p, filters.pools!));
    if (selected.length === 0) {
      throw new TaskInputError(`no pool matches --pool ${filters.pools.join(',')} (pools found: ${pools.map(poolKey).join(', ') || 'none'})`);
    }
  }
  if (filters.taskIds?.length) {
    selected = selected.filter((p) => filters.taskIds!.includes(p.taskId));
    if (selected.length === 0) throw new TaskInputError(`no selected pool has task id ${filters.taskIds.join(',')}`);
  }
  return selected;
}

/** A pool's feature groups: how many (counted, not listed) and each in turn. */
export interface FeatureGroups {
  count: number;
  each(): Iterable<number[]>;
}

/**
 * Feature groups of one pool: every combination, narrowed by --features and the subset. Only a
 * pool's full set of combinations can be large; it is counted by C(n, k) and listed lazily.
 */
export function featureGroups(pool: Pool, size: number, filters: TaskFilters): FeatureGroups {
  const ids = pool.features.map((f) => f.id);
  const key = (group: number[]) => group.join();
  let listed: number[][] | undefined;
  if (filters.features?.length) {
    const wanted = [...filters.features].sort((a, b) => a - b);
    if (wanted.length !== size) throw new TaskInputError(`--features lists ${wanted.length} features but each task has ${size} agents`);
    const missing = wanted.filter((id) => !ids.includes(id));
    if (missing.length) throw new TaskInputError(`pool ${poolKey(pool)} has no feature ${missing.join(', ')} (it has ${ids.join(', ')})`);
    listed = new Set(wanted).size === size ? [wanted] : [];
  }
  if (filters.subset) {
    const entry = filters.subset.tasks.filter((t) => t.repo === pool.repo && t.task_id === pool.taskId);
    const allowed = new Map(entry.flatMap((t) => t.pairs.map((p) => [...p].sort((a, b) => a - b))).map((g) => [key(g), g]));
    const valid = (g: number[]) => g.length === size && new Set(g).size === size && g.every((id) => ids.includes(id));
    // In combination order (features are in ascending id order), as the full listing gives them.
    const lexicographic = (a: number[], b: number[]) => a.map((id, i) => id - b[i]).find((d) => d !== 0) ?? 0;
    listed = (listed ?? [...allowed.values()].filter(valid)).filter((g) => allowed.has(key(g))).sort(lexicographic);
  }
  if (listed) {
    const groups = listed;
    return { count: groups.length, each: () => groups };
  }
  return { count: binomial(ids.length, size), each: () => eachCombination(ids, size) };
}

/** Subset entries that name pools absent from the pool folder, for a warning. */
export function subsetPoolsMissing(subset: Subset, pools: Pool[]): string[] {
  const present = new Set(pools.map(poolKey));
  return [...new Set(subset.tasks.map((t) => `${t.repo}/task${t.task_id}`))].filter((k) => !present.has(k));
}

/**
 * The largest plan a command makes unless told (--max-tasks): CooperBench's 652 pairs in both
 * settings for 7 teams, well past a typical run, far below a combinatorial slip (--agents 4 on a
 * 200-feature pool would be 129 million tasks).
 */
export const DEFAULT_MAX_TASKS = 10_000;

/** The tasks of a run: how many, computed without creating them, and each in turn, in plan order. */
export interface Plan {
  size: number;
  tasks(): Generator<TaskSpec>;
}

/** Plans the tasks; filters are checked now, tasks are made only as `tasks()` is iterated. */
export function planTasks(pools: Pool[], options: PlanOptions): Plan {
  const groups = selectPools(pools, options).map((pool) => ({ pool, groups: featureGroups(pool, options.agents, options) }));
  const perGroup = options.teams.length * options.settings.length;
  return {
    size: groups.reduce((sum, g) => sum + g.groups.count, 0) * perGroup,
    *tasks() {
      for (const { pool, groups: poolGroups } of groups) {
        for (const features of poolGroups.each()) {
          for (const team of options.teams) {
            for (const setting of options.settings) {
              const models = setting === 'solo' ? [team[0]] : features.map((_, i) => team[i % team.length]);
              yield { pool, features, setting, models, variant: setting === 'coop' ? options.variant : '' };
            }
          }
        }
      }
    },
  };
}

/** `--shard i/n`: the i-th of n machines running one plan (1-based). */
export interface Shard {
  index: number;
  count: number;
}

export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const shard = m ? { index: Number(m[1]), count: Number(m[2]) } : undefined;
  if (!shard || shard.count < 1 || shard.index < 1 || shard.index > shard.count) {
    throw new TaskInputError(`--shard ${text}: write i/n with 1 <= i <= n, e.g. --shard 1/4`);
  }
  return shard;
}

/** How many of `total` tasks shard i/n gets: those at positions i-1, i-1+n, ... of the dealt order. */
export function shardSize(total: number, shard: Shard): number {
  return total >= shard.index ? Math.floor((total - shard.index) / shard.count) + 1 : 0;
}

/**
 * The shard's tasks, in plan order. Tasks are ordered by a hash of their key and dealt out in turn,
 * so the same command on n machines splits the plan without overlap or gap, shards differ by at most
 * one task, and each gets a like mix of pools, settings and models (dealing in plan order would give
 * one machine every Coop task and the other every Solo one). Two passes over the plan, keeping 45
 * bytes per task (its hash, its place, whether it is ours) instead of the tasks themselves.
 */
export function* shardTasks(plan: Plan, shard: Shard | undefined): Generator<TaskSpec> {
  if (!shard) {
    yield* plan.tasks();
    return;
  }
  const hashes = Buffer.alloc(plan.size * 32);
  let n = 0;
  for (const task of plan.tasks())
    createHash('sha256')
      .update(taskKey(task))
      .digest()
      .copy(hashes, 32 * n++);
  // Sorted by the hashes' first 6 bytes as numbers (fast), then by the whole hash, then by place.
  const prefix = Float64Array.from({ length: n }, (_, i) => hashes.readUIntBE(32 * i, 6));
  const byHash = (a: number, b: number) => prefix[a] - prefix[b] || hashes.compare(hashes, 32 * b, 32 * b + 32, 32 * a, 32 * a + 32) || a - b;
  const order = Uint32Array.from({ length: n }, (_, i) => i).sort(byHash);
  const mine = new Uint8Array(n);
  for (let rank = shard.index - 1; rank < n; rank += shard.count) mine[order[rank]] = 1;
  let i = 0;
  for (const task of plan.tasks()) if (mine[i++]) yield task;
}
