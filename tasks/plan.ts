// Turns pools, filters, models and settings into the list of tasks of a run.
import type { Pool, Setting, Subset, TaskSpec } from './types.ts';
import { createHash } from 'node:crypto';
import { poolKey, taskKey } from './types.ts';
import { UserError } from '../harness/errors.ts';

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

/** All k-element combinations of ascending ids. */
export function combinations(ids: number[], k: number): number[][] {
  if (k === 0) return [[]];
  const result: number[][] = [];
  ids.forEach((id, i) => {
    for (const rest of combinations(ids.slice(i + 1), k - 1)) result.push([id, ...rest]);
  });
  return result;
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
      throw new UserError(`no pool matches --pool ${filters.pools.join(',')} (pools found: ${pools.map(poolKey).join(', ') || 'none'})`);
    }
  }
  if (filters.taskIds?.length) {
    selected = selected.filter((p) => filters.taskIds!.includes(p.taskId));
    if (selected.length === 0) throw new UserError(`no selected pool has task id ${filters.taskIds.join(',')}`);
  }
  return selected;
}

/** Feature groups of one pool: every combination, narrowed by --features and the subset. */
export function featureGroups(pool: Pool, size: number, filters: TaskFilters): number[][] {
  const ids = pool.features.map((f) => f.id);
  let groups = combinations(ids, size);
  if (filters.features?.length) {
    const wanted = [...filters.features].sort((a, b) => a - b);
    if (wanted.length !== size) throw new UserError(`--features lists ${wanted.length} features but each task has ${size} agents`);
    const missing = wanted.filter((id) => !ids.includes(id));
    if (missing.length) throw new UserError(`pool ${poolKey(pool)} has no feature ${missing.join(', ')} (it has ${ids.join(', ')})`);
    groups = groups.filter((g) => g.join() === wanted.join());
  }
  if (filters.subset) {
    const entry = filters.subset.tasks.filter((t) => t.repo === pool.repo && t.task_id === pool.taskId);
    const allowed = new Set(entry.flatMap((t) => t.pairs.map((p) => [...p].sort((a, b) => a - b).join())));
    groups = groups.filter((g) => allowed.has(g.join()));
  }
  return groups;
}

/** Subset entries that name pools absent from the pool folder, for a warning. */
export function subsetPoolsMissing(subset: Subset, pools: Pool[]): string[] {
  const present = new Set(pools.map(poolKey));
  return [...new Set(subset.tasks.map((t) => `${t.repo}/task${t.task_id}`))].filter((k) => !present.has(k));
}

export function planTasks(pools: Pool[], options: PlanOptions): TaskSpec[] {
  const tasks: TaskSpec[] = [];
  for (const pool of selectPools(pools, options)) {
    for (const features of featureGroups(pool, options.agents, options)) {
      for (const team of options.teams) {
        for (const setting of options.settings) {
          const models = setting === 'solo' ? [team[0]] : features.map((_, i) => team[i % team.length]);
          tasks.push({ pool, features, setting, models, variant: setting === 'coop' ? options.variant : '' });
        }
      }
    }
  }
  return tasks;
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
    throw new UserError(`--shard ${text}: write i/n with 1 <= i <= n, e.g. --shard 1/4`);
  }
  return shard;
}

/**
 * The shard's tasks. Tasks are ordered by a hash of their key and dealt out in turn, so the same
 * command on n machines splits the plan without overlap or gap, shards differ by at most one task,
 * and each gets a like mix of pools, settings and models (dealing in plan order would give one
 * machine every Coop task and the other every Solo one).
 */
export function selectShard<T extends TaskSpec>(tasks: T[], shard: Shard | undefined): T[] {
  if (!shard) return tasks;
  const hash = (task: T) => createHash('sha256').update(taskKey(task)).digest('hex');
  const dealt = tasks.map((task) => ({ task, hash: hash(task) })).sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  const mine = new Set(dealt.filter((_, i) => i % shard.count === shard.index - 1).map((d) => d.task));
  return tasks.filter((task) => mine.has(task));
}
