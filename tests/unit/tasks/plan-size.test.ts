// Planning is lazy and counted: a plan's size is arithmetic, its tasks are made one at a
// time, and the count always equals what the listing gives.
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { binomial, combinations, eachCombination, planTasks, shardSize, shardTasks, type PlanOptions } from '../../../tasks/plan.ts';
import { discoverPools } from '../../../tasks/pools.ts';
import { loadSubset } from '../../../tasks/subset.ts';
import { taskKey, type Pool } from '../../../tasks/types.ts';
import { checkPlanSize, planIdentity, teamsOf } from '../../../harness/run/run-benchmark.ts';

const DATASET = join(import.meta.dirname, '../../fixtures/cooperbench-dataset');

/** A pool of n features, in memory: planning never reads its files. */
function widePool(n: number): Pool {
  const features = Array.from({ length: n }, (_, i) => ({ id: i + 1, dir: '', description: '', patchPath: '', testsPatchPath: '' }));
  return { repo: 'wide_task', taskId: 1, dir: '/nowhere', features, publishedImage: 'none' };
}

const options = (more: Partial<PlanOptions> = {}): PlanOptions => ({ teams: [['oracle']], settings: ['coop', 'solo'], agents: 2, variant: '', ...more });

describe('a plan is counted without being made', () => {
  it('counts 200 features in groups of 4 (129 million tasks) and makes only the ones asked for', () => {
    const plan = planTasks([widePool(200)], options({ agents: 4 }));
    expect(plan.size).toBe(2 * 64_684_950);
    const first: string[] = [];
    for (const task of plan.tasks()) {
      first.push(`${task.setting} ${task.features.join(',')}`);
      if (first.length === 3) break;
    }
    expect(first).toEqual(['coop 1,2,3,4', 'solo 1,2,3,4', 'coop 1,2,3,5']);
  });

  it('lists combinations lazily in the order of the full listing', () => {
    expect([...eachCombination([1, 2, 3, 4, 5], 3)]).toEqual(combinations([1, 2, 3, 4, 5], 3));
    expect(combinations([1, 2, 3, 4, 5], 3)).toEqual([
      [1, 2, 3],
      [1, 2, 4],
      [1, 2, 5],
      [1, 3, 4],
      [1, 3, 5],
      [1, 4, 5],
      [2, 3, 4],
      [2, 3, 5],
      [2, 4, 5],
      [3, 4, 5],
    ]);
    expect([...eachCombination([1, 2], 3)]).toEqual([]);
    for (const [n, k] of [
      [5, 0],
      [5, 5],
      [200, 4],
      [652, 2],
      [3, 4],
    ])
      expect(binomial(n, k)).toBe(
        n <= 10
          ? combinations(
              Array.from({ length: n }, (_, i) => i),
              k,
            ).length
          : { 200: 64_684_950, 652: 212_226 }[n],
      );
  });

  it('gives the count the listing has, whatever the filters', () => {
    const pools = discoverPools(DATASET);
    const lite = loadSubset('lite', DATASET);
    const odd = {
      name: 'odd',
      tasks: [
        {
          repo: 'go_chi_task',
          task_id: 26,
          pairs: [
            [2, 1],
            [1, 2],
            [3, 3],
            [1, 9],
            [1, 2, 3],
          ],
        },
      ],
    };
    const cases: Partial<PlanOptions>[] = [
      {},
      { agents: 3 },
      { agents: 4, settings: ['coop'] },
      { subset: lite },
      { subset: odd },
      { subset: odd, agents: 3 },
      { features: [2, 1], pools: ['go_chi'] },
      { features: [1, 1] },
      {
        features: [1, 2],
        subset: odd,
        teams: [
          ['a', 'b'],
          ['b', 'a'],
        ],
      },
    ];
    for (const more of cases) {
      const plan = planTasks(pools, options(more));
      expect([...plan.tasks()], JSON.stringify(more)).toHaveLength(plan.size);
    }
    expect(planTasks(pools, options({ subset: odd })).size).toBe(2);
  });

  it('counts a model given twice once, as the store would', () => {
    expect(teamsOf(['oracle', 'oracle'], false)).toEqual([['oracle']]);
    expect(teamsOf(['a', 'b', 'a'], true)).toEqual([
      ['a', 'b'],
      ['b', 'a'],
    ]);
  });
});

describe("the plan's size limit", () => {
  it('refuses a plan over --max-tasks with its count and how to go on', () => {
    const plan = planTasks([widePool(200)], options({ agents: 4 }));
    expect(() => checkPlanSize(plan, { maxTasks: 10_000 })).toThrow(
      /^this command would plan 129,369,900 tasks, more than --max-tasks 10,000: narrow it \(--pool, --task, --features, --subset, --setting, --agents, fewer --models\) or pass --max-tasks 129369900 to plan them all$/,
    );
    expect(() => checkPlanSize(plan, { maxTasks: 10_000, shard: { index: 2, count: 3 } })).toThrow(/129,369,900 tasks \(43,123,300 of them in shard 2\/3\)/);
    expect(() => checkPlanSize(plan, { maxTasks: plan.size })).not.toThrow();
  });
});

describe('shards and the plan identity, streamed', () => {
  const plan = () => planTasks(discoverPools(DATASET), options({ teams: [['oracle'], ['noop']] }));

  it('gives each shard the size shardSize says', () => {
    const size = plan().size;
    for (const count of [1, 2, 5, 7, 200]) {
      for (let index = 1; index <= Math.min(count, 9); index++)
        expect([...shardTasks(plan(), { index, count })]).toHaveLength(shardSize(size, { index, count }));
    }
  });

  it('hashes the task keys one per line, as stored by earlier versions', () => {
    const keys = [...plan().tasks()].map(taskKey);
    expect(planIdentity(plan())).toEqual({ tasks: keys.length, hash: createHash('sha256').update(keys.join('\n')).digest('hex') });
  });
});
