import { beforeAll, describe, expect, it } from 'vitest';
import { scoreDetectors } from '../../../../judges/calibration/score.ts';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { handCase } from '../../../helpers/calibration-case.ts';

beforeAll(async () => {
  await loadLanguage();
});

// One message, two promises the detectors doubt: a `drain()` method on `Pool` (broken: the patch adds
// none; read from free wording) and a check on `closed` placed only "right after we take the lock"
// (no function named; the gold lists no such promise).
const patch = [
  '--- a/pool.py',
  '+++ b/pool.py',
  '@@ -1,3 +1,5 @@',
  ' class Pool:',
  '     def get(self):',
  '         self._lock.acquire()',
  '+        item = self._items.pop()',
  '+        return item',
  '',
].join('\n');

const theCase = handCase({
  id: 'pool',
  messages: [
    { from: 'agent1', text: "I'll add a `drain()` method to `Pool`, and I'll check `self.closed` right after we take the lock.", act: 'plan' },
    { from: 'agent2', text: 'OK.', act: 'other' },
  ],
  patches: { agent1: patch },
  gold: {
    first_turn_plan: true,
    broken_commitment: [1],
    commitments: [{ message: 1, kind: 'exists', target: 'pool.py:Pool.drain', kept: false }],
  },
});

describe("calibration's per-rule figures", () => {
  it('score each doubt on the target it doubted: right where that target is no broken gold target, wrong where it is, in one message', async () => {
    const scores = await scoreDetectors([theCase]);
    const doubts = scores.rules.filter((r) => r.label === 'broken_checkable_commitment' && r.hits > 0);
    expect(doubts).toEqual([
      { label: 'broken_checkable_commitment', rule: 'placement-without-function', hits: 1, right: 1, wrong: 0 },
      { label: 'broken_checkable_commitment', rule: 'target-in-free-wording', hits: 1, right: 0, wrong: 1 },
    ]);
  });

  it('score a verb class on the gold commitments of the message its clause committed on', async () => {
    const scores = await scoreDetectors([theCase]);
    const create = scores.rules.find((r) => r.label === 'commitment' && r.rule === 'create')!;
    expect(create.hits).toBeGreaterThan(0);
    expect(create.wrong).toBe(0);
  });
});
