// `coop-bench merge-runs`: one run from the shards of a plan run on several machines (`run --shard
// i/n`). Every table of run.db is carried over; tasks, messages and judge labels get new ids and
// everything that points at them follows. Shards of different plans or settings are refused, and so
// is a task present in two inputs: the result has each task once.
import { cpSync, existsSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { sqlOf } from './database.ts';
import { RunStore, runDir } from './run-store.ts';
import { UserError } from '../errors.ts';

/**
 * How a table is combined: `refs` names the columns that hold ids of another table (a trailing `?`:
 * the id may point at nothing, e.g. a label on a message of an earlier attempt; it becomes NULL).
 */
type Policy = { kind: 'own' } | { kind: 'renumbered'; refs: Record<string, string> } | { kind: 'rows'; refs: Record<string, string> } | { kind: 'shared' };

/** Every table of schema.ts. A table missing here makes merge-runs refuse to run (and a test fail). */
export const TABLE_POLICIES: Record<string, Policy> = {
  runs: { kind: 'own' },
  store_state: { kind: 'own' },
  tasks: { kind: 'renumbered', refs: {} },
  agents: { kind: 'rows', refs: { task: 'tasks' } },
  merges: { kind: 'rows', refs: { task: 'tasks' } },
  merge_attempts: { kind: 'rows', refs: { task: 'tasks' } },
  evaluations: { kind: 'rows', refs: { task: 'tasks' } },
  steps: { kind: 'rows', refs: { task: 'tasks' } },
  model_calls: { kind: 'rows', refs: { task: 'tasks' } },
  messages: { kind: 'renumbered', refs: { task: 'tasks' } },
  message_deliveries: { kind: 'rows', refs: { message: 'messages' } },
  judge_labels: { kind: 'renumbered', refs: { task: 'tasks', message_id: 'messages?' } },
  judge_runs: { kind: 'rows', refs: { task: 'tasks' } },
  probes: { kind: 'rows', refs: { task: 'tasks' } },
  // Per `run` command: a merged run's CPU per pair is its shards' together.
  cpu_usage: { kind: 'rows', refs: {} },
  // Keyed by a hash of their inputs: the same key holds the same answer whichever shard made it.
  judge_cache: { kind: 'shared' },
  test_cache: { kind: 'shared' },
};

/** Options that must be equal for runs to be shards of one measurement. */
const MUST_MATCH = ['plan', 'maxSteps', 'agentConfigHash', 'limits', 'testTimeoutMs', 'image'] as const;

interface StoredOptions {
  plan?: { tasks: number; hash: string };
  shard?: { index: number; count: number };
  [key: string]: unknown;
}

export interface MergeRunsResult {
  dir: string;
  tasks: number;
  /** Shards of the plan that were not among the inputs. */
  missingShards: number[];
}

export function tablesOf(store: RunStore): string[] {
  return (
    sqlOf(store).prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string }[]
  ).map((t) => t.name);
}

/** A run given by name (under runsRoot) or by the path of its folder. */
function openInput(runsRoot: string, given: string): RunStore {
  const dir = existsSync(join(given, 'run.db')) ? resolve(given) : runDir(runsRoot, given);
  if (!existsSync(join(dir, 'run.db')))
    throw new UserError(`no run "${given}": give a run name under ${resolve(runsRoot)} or the folder of a run (holding run.db)`);
  return RunStore.open(dirname(dir), basename(dir), { create: false, readonly: true });
}

function optionsOf(store: RunStore): StoredOptions {
  const options = store.runOptions<StoredOptions>();
  if (!options?.plan) throw new UserError(`run ${store.name} records no plan (made by an older coop-bench?): it cannot be merged`);
  return options;
}

function checkCompatible(stores: RunStore[], options: StoredOptions[]): void {
  const first = options[0]!;
  options.forEach((o, i) => {
    for (const key of MUST_MATCH) {
      if (JSON.stringify(o[key]) !== JSON.stringify(first[key])) {
        throw new UserError(
          `runs ${stores[0]!.name} and ${stores[i]!.name} differ in ${key} (${JSON.stringify(first[key]) ?? 'unset'} vs ${JSON.stringify(o[key]) ?? 'unset'}): they are not shards of one plan`,
        );
      }
    }
    if ((o.shard?.count ?? 1) !== (first.shard?.count ?? 1)) {
      throw new UserError(`runs ${stores[0]!.name} and ${stores[i]!.name} split the plan into ${first.shard?.count ?? 1} and ${o.shard?.count ?? 1} shards`);
    }
  });
  const seen = new Map<number, string>();
  options.forEach((o, i) => {
    const index = o.shard?.index ?? 1;
    const other = seen.get(index);
    if (other) throw new UserError(`shard ${index}/${o.shard?.count ?? 1} is given twice: ${other} and ${stores[i]!.name}`);
    seen.set(index, stores[i]!.name);
  });
}

function checkTables(stores: RunStore[]): void {
  for (const store of stores) {
    const unknown = tablesOf(store).filter((t) => !(t in TABLE_POLICIES));
    if (unknown.length) throw new Error(`merge-runs does not know how to combine table(s) ${unknown.join(', ')} of run ${store.name}`);
  }
}

export function mergeRuns(runsRoot: string, outName: string, inputs: string[]): MergeRunsResult {
  if (inputs.length === 0) throw new UserError('give the runs to merge');
  const outDir = runDir(runsRoot, outName);
  if (existsSync(outDir)) throw new UserError(`run ${outName} already exists under ${resolve(runsRoot)}: choose a new name for the merged run`);
  const stores = inputs.map((given) => openInput(runsRoot, given));
  try {
    const options = stores.map(optionsOf);
    checkCompatible(stores, options);
    checkTables(stores);
    const out = RunStore.open(runsRoot, outName, { create: true });
    let result: MergeRunsResult;
    try {
      copyAll(out, stores);
      const count = options[0]!.shard?.count ?? 1;
      const present = new Set(options.map((o) => o.shard?.index ?? 1));
      const missingShards = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !present.has(i));
      const { shard: _, ...merged } = options[0]!;
      out.startRun({ ...merged, name: outName, mergedFrom: stores.map((s) => s.name) });
      const unfinished = out.tasks().filter((t) => t.status !== 'done').length;
      out.setRunStatus(unfinished === 0 && missingShards.length === 0 ? 'finished' : 'failed');
      for (const store of stores) {
        const logs = join(store.dir, 'logs');
        if (existsSync(logs)) cpSync(logs, join(out.dir, 'logs'), { recursive: true, errorOnExist: true, force: false });
      }
      result = { dir: out.dir, tasks: out.tasks().length, missingShards };
    } catch (error) {
      out.close();
      rmSync(outDir, { recursive: true, force: true });
      throw error;
    }
    out.close();
    return result;
  } finally {
    for (const store of stores) store.close();
  }
}

function copyAll(outStore: RunStore, stores: RunStore[]): void {
  const out = sqlOf(outStore);
  const columns = (table: string) => (out.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
  out.transaction(() => {
    const keyOwner = new Map<string, string>();
    for (const store of stores) {
      const ids: Record<string, Map<number, number>> = { tasks: new Map(), messages: new Map() };
      // Parents before the rows that point at them.
      for (const table of ['tasks', 'messages', ...Object.keys(TABLE_POLICIES).filter((t) => t !== 'tasks' && t !== 'messages')]) {
        const policy = TABLE_POLICIES[table]!;
        if (policy.kind === 'own') continue;
        const names = columns(table).filter((c) => !(policy.kind === 'renumbered' && c === 'id'));
        const insert = out.prepare(
          `INSERT ${policy.kind === 'shared' ? 'OR IGNORE ' : ''}INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
        );
        const refs = policy.kind === 'shared' ? {} : policy.refs;
        for (const row of sqlOf(store).prepare(`SELECT * FROM ${table}`).iterate() as Iterable<Record<string, unknown>>) {
          if (table === 'tasks') {
            const key = row.key as string;
            const owner = keyOwner.get(key);
            if (owner) throw new UserError(`task ${key} is in both ${owner} and ${store.name}: these runs overlap`);
            keyOwner.set(key, store.name);
          }
          const values = names.map((name) => {
            const ref = refs[name];
            if (!ref || row[name] === null) return row[name];
            const target = ref.replace(/\?$/, '');
            const mapped = ids[target]!.get(row[name] as number);
            if (mapped !== undefined) return mapped;
            if (ref.endsWith('?')) return null;
            throw new Error(`run ${store.name}: ${table}.${name} = ${String(row[name])} points at no row of ${target}`);
          });
          const result = insert.run(...values);
          if (policy.kind === 'renumbered' && ids[table]) ids[table]!.set(row.id as number, Number(result.lastInsertRowid));
        }
      }
    }
  })();
}
