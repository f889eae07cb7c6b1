import { describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoverPools, loadPool, publishedImageName } from '../../../tasks/pools.ts';
import { combinations, featureGroups, parseShard, planTasks, shardSize, shardTasks, subsetPoolsMissing } from '../../../tasks/plan.ts';
import { taskKey } from '../../../tasks/types.ts';
import { loadSubset } from '../../../tasks/subset.ts';
import { SHIPPED_POOLS } from '../../../harness/paths.ts';

const DATASET = join(import.meta.dirname, '../../fixtures/cooperbench-dataset');

describe('loading the CooperBench reference samples unchanged', () => {
  const pools = discoverPools(DATASET);

  it('finds the three pools with their features', () => {
    expect(pools.map((p) => `${p.repo}/task${p.taskId}:${p.features.length}`)).toEqual([
      'dspy_task/task8394:5',
      'go_chi_task/task26:4',
      'react_hook_form_task/task85:5',
    ]);
  });

  it('lists n(n-1)/2 pairs per pool: 10 + 6 + 10', () => {
    const pairs = pools.map((p) => featureGroups(p, 2, {}).count);
    expect(pairs).toEqual([10, 6, 10]);
  });

  it('knows these samples have no Dockerfile and names the published image', () => {
    expect(pools.every((p) => p.dockerfilePath === undefined)).toBe(true);
    expect(pools[0].publishedImage).toBe('akhatua/cooperbench-dspy:task8394');
    expect(publishedImageName('pallets_jinja_task', 1465)).toBe('akhatua/cooperbench-pallets-jinja:task1465');
  });

  it('reads the flash and lite subsets and keeps only their pairs of present pools', () => {
    const flash = loadSubset('flash', DATASET);
    const lite = loadSubset(join(DATASET, 'subsets', 'lite.json'), DATASET);
    const count = (subset: typeof flash) => {
      const plan = planTasks(pools, { subset, teams: [['oracle']], settings: ['coop'], agents: 2, variant: '' });
      expect([...plan.tasks()]).toHaveLength(plan.size);
      return plan.size;
    };
    expect(count(flash)).toBe(3);
    expect(count(lite)).toBe(6);
    expect(subsetPoolsMissing(lite, pools)).toHaveLength(23);
  });
});

describe('planning', () => {
  const pools = discoverPools(DATASET);

  it('enumerates combinations for 2, 3 and 4 agents', () => {
    expect(combinations([1, 2, 3, 4], 2)).toHaveLength(6);
    expect(combinations([1, 2, 3, 4, 5], 3)).toHaveLength(10);
    expect(combinations([1, 2, 3, 4], 4)).toEqual([[1, 2, 3, 4]]);
  });

  it('filters by pool name with or without _task, by task id and by features', () => {
    const plan = [
      ...planTasks(pools, {
        pools: ['go_chi'],
        taskIds: [26],
        features: [2, 1],
        teams: [['oracle']],
        settings: ['coop', 'solo'],
        agents: 2,
        variant: '',
      }).tasks(),
    ];
    expect(plan.map((t) => [t.pool.repo, t.features, t.setting, t.models])).toEqual([
      ['go_chi_task', [1, 2], 'coop', ['oracle', 'oracle']],
      ['go_chi_task', [1, 2], 'solo', ['oracle']],
    ]);
  });

  it('says which pools exist when a filter matches none', () => {
    expect(() => planTasks(pools, { pools: ['nope'], teams: [['oracle']], settings: ['coop'], agents: 2, variant: '' })).toThrow(
      /no pool matches --pool nope \(pools found: dspy_task\/task8394/,
    );
  });

  it('rejects a feature the pool does not have', () => {
    expect(() => planTasks(pools, { pools: ['go_chi_task'], features: [1, 9], teams: [['oracle']], settings: ['coop'], agents: 2, variant: '' })).toThrow(
      /has no feature 9/,
    );
  });
});

describe('--shard i/n', () => {
  const plan = () => planTasks(discoverPools(DATASET), { teams: [['oracle'], ['noop']], settings: ['coop', 'solo'], agents: 2, variant: '' });
  const shard = (index: number, count: number) => [...shardTasks(plan(), { index, count })];

  it('splits the plan into n disjoint shards that cover it, equal within one task', () => {
    const keys = [...plan().tasks()].map(taskKey);
    const shards = [1, 2, 3].map((index) => shard(index, 3).map(taskKey));
    expect(shards.map((s) => s.length)).toEqual([1, 2, 3].map((index) => shardSize(keys.length, { index, count: 3 })));
    expect(shards.flat().sort()).toEqual([...keys].sort());
    expect(new Set(shards.flat()).size).toBe(keys.length);
    const sizes = shards.map((s) => s.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  });

  it('gives every shard a share of each pool and setting', () => {
    for (const index of [1, 2]) {
      expect(new Set(shard(index, 2).map((t) => `${t.pool.repo} ${t.setting}`)).size).toBe(6);
    }
  });

  it('reads i/n and rejects what is not a shard', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    for (const bad of ['0/2', '3/2', '1', 'a/b', '1/0']) expect(() => parseShard(bad)).toThrow(/write i\/n/);
  });
});

describe('bad pool input', () => {
  it('names a missing pool folder', () => {
    expect(() => discoverPools('/nonexistent/pools')).toThrow(/pool folder \/nonexistent\/pools does not exist/);
  });

  it('names the files a feature lacks', () => {
    const root = mkdtempSync(join(tmpdir(), 'pool-'));
    const feature = join(root, 'x_task', 'task1', 'feature1');
    mkdirSync(feature, { recursive: true });
    writeFileSync(join(feature, 'feature.md'), '# Title: x');
    expect(() => loadPool(join(root, 'x_task', 'task1'))).toThrow(/feature1 lacks feature.patch, tests.patch/);
  });

  it('reports a malformed subset with where and what', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'subset-')), 'bad.json');
    writeFileSync(file, JSON.stringify({ name: 'bad', tasks: [{ repo: 'x', task_id: 'one', pairs: [] }] }));
    expect(() => loadSubset(file, '/nowhere')).toThrow(/malformed at tasks\.0\.task_id/);
    writeFileSync(file, '{not json');
    expect(() => loadSubset(file, '/nowhere')).toThrow(/not valid JSON/);
    expect(() => loadSubset('missing-subset', '/nowhere')).toThrow(/subset "missing-subset" not found/);
  });
});

describe('shipped pools', () => {
  it('has a JavaScript and a Python pool, each with at least 5 features, a Dockerfile and a runner', () => {
    const pools = discoverPools(SHIPPED_POOLS);
    expect(pools.length).toBeGreaterThanOrEqual(2);
    for (const pool of pools) {
      expect(pool.features.length).toBeGreaterThanOrEqual(5);
      expect(pool.dockerfilePath).toBeDefined();
      expect(pool.runnerPath).toBeDefined();
      expect(pool.combinedPatchPath).toBeDefined();
    }
  });
});
