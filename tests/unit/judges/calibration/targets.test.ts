import { describe, expect, it } from 'vitest';
import type { CalibrationCase } from '../../../../judges/calibration/cases.ts';
import { brokenTargetItems, isBrokenGoldTarget } from '../../../../judges/calibration/targets.ts';
import type { BrokenPromise } from '../../../../judges/detectors/commitments.ts';
import type { Target } from '../../../../judges/detectors/commitment-extract.ts';
import { handCase } from '../../../helpers/calibration-case.ts';

// One conversation: agent1 promises `max_batch_size` on `Processor.__init__` (broken) and to leave
// lines 10-20 of base.py alone (kept); the patch adds only `fallback`.
const theCase = handCase({
  id: 'batch',
  messages: [
    { from: 'agent1', text: "I'll add `max_batch_size` to `Processor.__init__` and won't touch base.py lines 10-20.", act: 'plan' },
    { from: 'agent2', text: 'OK, I add `fallback` to `Processor.__init__`.', act: 'plan' },
  ],
  patches: { agent1: '--- a/pkg/base.py\n+++ b/pkg/base.py\n@@ -1,1 +1,1 @@\n-def __init__(self):\n+def __init__(self, fallback=None):\n' },
  gold: {
    first_turn_plan: true,
    broken_commitment: [1],
    commitments: [
      { message: 1, kind: 'exists', target: 'pkg/base.py:Processor.__init__(max_batch_size)', kept: false },
      { message: 1, kind: 'untouched_lines', target: 'pkg/base.py:10-20', kept: true },
    ],
    line_number_mentions: 1,
    file_path_mentions: 1,
  },
  split: 'test',
});

const report = (messageId: number, target: Partial<Target>): BrokenPromise => ({
  commitment: { messageId, agent: 'agent1', quote: '', kind: 'promise', target: { kind: 'exists', names: [], files: [], ...target } },
  findings: [],
});

describe('broken_checkable_commitment scored per target', () => {
  it('counts a report of the broken target in its message as found', () => {
    expect(brokenTargetItems(theCase, [report(1, { names: ['max_batch_size'], scope: '__init__' })])).toEqual({
      reported: ['batch#gold0'],
      gold: ['batch#gold0'],
    });
  });

  it('counts several reports of one target once', () => {
    const items = brokenTargetItems(theCase, [report(1, { names: ['max_batch_size'] }), report(1, { names: ['Processor.max_batch_size'] })]);
    expect(new Set(items.reported)).toEqual(new Set(['batch#gold0']));
  });

  it('does not count a report whose symbol is nowhere in the case, though its message has a broken commitment', () => {
    expect(brokenTargetItems(theCase, [report(1, { names: ['max_batch_sizes'] })]).reported).toEqual(['batch#reported0']);
  });

  it('does not count a report whose file is nowhere in the case', () => {
    expect(brokenTargetItems(theCase, [report(1, { names: ['max_batch_size'], files: ['pkg/other.py'] })]).reported).toEqual(['batch#reported0']);
  });

  it('does not count a report of another target of the same message (a kept one)', () => {
    const items = brokenTargetItems(theCase, [report(1, { kind: 'untouched_lines', files: ['pkg/base.py'], lines: [12, 14] })]);
    expect(items).toEqual({ reported: ['batch#reported0'], gold: ['batch#gold0'] });
  });

  it('counts a symbol both missing and not exported as two found targets, and one target listed twice once', () => {
    const twice = {
      ...theCase,
      gold: {
        ...theCase.gold,
        commitments: [
          { message: 1, kind: 'exists', target: 'pkg/base.py:ParseSize', kept: false },
          { message: 1, kind: 'exported', target: 'pkg/base.py:ParseSize', kept: false },
          { message: 1, kind: 'accepted_request', as: 'untouched_symbol', request: 2, target: 'pkg/base.py:parse', kept: false },
          { message: 1, kind: 'untouched_symbol', target: 'pkg/base.py:parse', kept: false },
        ],
      },
      messages: [{ ...theCase.messages[0]!, text: 'I will add `ParseSize`, exported, and leave `parse` alone.' }, theCase.messages[1]!],
    } as CalibrationCase;
    const items = brokenTargetItems(twice, [
      report(1, { kind: 'exported', names: ['ParseSize'] }),
      report(1, { kind: 'exists', names: ['ParseSize'] }),
      report(1, { kind: 'untouched_symbol', names: ['parse'] }),
    ]);
    expect(items).toEqual({ reported: ['batch#gold1', 'batch#gold0', 'batch#gold2'], gold: ['batch#gold0', 'batch#gold1', 'batch#gold2'] });
  });

  it('gives each report the broken target of its message it names most of', () => {
    const both = {
      ...theCase,
      gold: {
        ...theCase.gold,
        commitments: [
          { message: 1, kind: 'exists', target: 'pkg/base.py:Processor.__init__(max_batch_size)', kept: false },
          { message: 1, kind: 'exists', target: 'pkg/base.py:Processor.max_batch_size', kept: false },
        ],
      },
    } as CalibrationCase;
    const items = brokenTargetItems(both, [report(1, { names: ['Processor.max_batch_size'] }), report(1, { names: ['max_batch_size'], scope: '__init__' })]);
    expect(items.reported).toEqual(['batch#gold1', 'batch#gold0']);
  });

  it('does not count the right target reported on the wrong message', () => {
    expect(brokenTargetItems(theCase, [report(2, { names: ['max_batch_size'] })]).reported).toEqual(['batch#reported0']);
  });

  it('matches a broken line range by overlap and a placement by the function it is in', () => {
    const lines = {
      ...theCase,
      gold: { ...theCase.gold, commitments: [{ message: 1, kind: 'untouched_lines', target: 'pkg/base.py:10-20', kept: false }] },
    } as CalibrationCase;
    expect(brokenTargetItems(lines, [report(1, { kind: 'untouched_lines', files: ['base.py'], lines: [18, 25] })]).reported).toEqual(['batch#gold0']);
    expect(brokenTargetItems(lines, [report(1, { kind: 'untouched_lines', lines: [30, 40] })]).reported).toEqual(['batch#reported0']);
    const placed = {
      ...theCase,
      gold: { ...theCase.gold, commitments: [{ message: 1, kind: 'placement', target: 'pkg/base.py:Processor.__init__', kept: false }] },
    } as CalibrationCase;
    expect(brokenTargetItems(placed, [report(1, { kind: 'placement', names: ['fallback'], scope: '__init__' })]).reported).toEqual(['batch#gold0']);
  });
});

describe('a doubt or withdrawal scored on the target it is about', () => {
  const target = (t: Partial<Target>): Target => ({ kind: 'exists', names: [], files: [], ...t });

  it('is wrong about the broken gold target of its message', () => {
    expect(isBrokenGoldTarget(theCase, 1, target({ names: ['max_batch_size'], scope: '__init__' }))).toBe(true);
  });

  it('is right about a kept target of a message that has a broken one', () => {
    expect(isBrokenGoldTarget(theCase, 1, target({ kind: 'untouched_lines', files: ['pkg/base.py'], lines: [12, 14] }))).toBe(false);
  });

  it('is right about a target the case never names, and about the broken target on another message', () => {
    expect(isBrokenGoldTarget(theCase, 1, target({ names: ['max_batch_sizes'] }))).toBe(false);
    expect(isBrokenGoldTarget(theCase, 2, target({ names: ['max_batch_size'] }))).toBe(false);
  });
});
