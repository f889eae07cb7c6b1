// The gold's reading of a case's commitments (calibration/gold-reading.ts): the targets the cases'
// README defines, turned into the commitments judge's answer, so that the code checks can be
// scored alone.
import { describe, expect, it } from 'vitest';
import { caseInput, type CalibrationCase } from '../../../judges/calibration/cases.ts';
import { goldReading } from '../../../judges/calibration/gold-reading.ts';
import { commitmentsOf } from '../../../judges/llm/commitments.ts';
import { conversationItems, DEFAULT_BUDGET } from '../../../judges/llm/material.ts';

function goldCase(commitments: NonNullable<CalibrationCase['gold']['commitments']>): CalibrationCase {
  return {
    id: 'gold-reading',
    shape: 'test',
    split: 'train',
    file: 'test.json',
    agents: ['agent1', 'agent2'],
    messages: [
      { from: 'agent1', text: 'Plan: flush_every on the Batcher constructor, lines 10-20 of batcher.py stay yours.', act: 'plan' },
      { from: 'agent2', text: 'Can `flush()` check `_closed` first, before `self._write(chunk)`?', act: 'question' },
      { from: 'agent1', text: 'Done, and the check is in.', act: 'update' },
    ],
    patches: { agent1: '' },
    gold: {
      unanswered_question: [],
      near_duplicate: [],
      first_turn_plan: true,
      broken_commitment: [],
      commitments,
      line_number_mentions: 1,
      file_path_mentions: 1,
      communication: null,
    },
  };
}

describe("the gold's reading of commitments", () => {
  it('reads each kind of target as the cases README writes it', () => {
    const c = goldCase([
      { message: 1, kind: 'exists', target: 'batching/batcher.py:Batcher.__init__(flush_every)', kept: true },
      { message: 1, kind: 'untouched_lines', target: 'batching/batcher.py:10-20', kept: false },
      { message: 3, kind: 'exported', target: 'batching/__init__.py:Batcher', kept: true },
      { message: 3, kind: 'untouched_symbol', target: 'batching/batcher.py:Batcher.__init__(size)', kept: true },
      { message: 3, kind: 'untouched_symbol', target: 'batching/io.py', kept: true },
      {
        message: 3,
        kind: 'accepted_request',
        as: 'placement',
        request: 2,
        target: 'batching/batcher.py:Batcher.flush',
        code: 'if self._closed',
        detail: 'first statement of flush()',
        kept: false,
      },
      { message: 3, kind: 'placement', target: 'batching/batcher.py:Batcher.flush', code: 'self._log(chunk)', detail: 'after self._write(chunk)', kept: true },
      { message: 3, kind: 'exists', target: 'batching/batcher.py:Batcher.close', kept: false, withdrawn: 3 },
    ]);
    const answer = goldReading(c);
    expect(
      answer.commitments.map(({ message, stance, kind, names, files, lines, scope, parameters_only, module }) => ({
        message,
        stance,
        kind,
        names,
        files,
        ...(lines && { lines }),
        ...(scope && { scope }),
        ...(parameters_only && { parameters_only }),
        ...(module && { module }),
      })),
    ).toEqual([
      { message: 1, stance: 'promise', kind: 'exists', names: ['flush_every'], files: ['batching/batcher.py'], scope: 'Batcher.__init__' },
      { message: 1, stance: 'promise', kind: 'untouched_lines', names: [], files: ['batching/batcher.py'], lines: [10, 20] },
      { message: 3, stance: 'claim', kind: 'exported', names: ['Batcher'], files: ['batching/__init__.py'], module: 'batching/__init__.py' },
      { message: 3, stance: 'claim', kind: 'untouched_symbol', names: [], files: ['batching/batcher.py'], scope: 'Batcher.__init__', parameters_only: true },
      { message: 3, stance: 'claim', kind: 'untouched_symbol', names: [], files: ['batching/io.py'] },
      { message: 3, stance: 'claim', kind: 'placement', names: [], files: ['batching/batcher.py'], scope: 'Batcher.flush' },
      { message: 3, stance: 'claim', kind: 'placement', names: ['_log'], files: ['batching/batcher.py'], scope: 'Batcher.flush' },
    ]);
    expect(answer.commitments[5]).toMatchObject({ request: 2, guard: ['_closed'], position: 'first', anchor: null });
    expect(answer.commitments[6]).toMatchObject({ request: null, position: 'after', anchor: '_write' });
  });

  it('gives answers the commitments judge takes whole: quotes from their messages, targets it can read', () => {
    const c = goldCase([
      { message: 1, kind: 'exists', target: 'batching/batcher.py:Batcher.__init__(flush_every)', kept: true },
      { message: 3, kind: 'accepted_request', as: 'placement', request: 2, target: 'batching/batcher.py:Batcher.flush', code: 'if self._closed', kept: true },
    ]);
    const input = caseInput(c);
    const { commitments, dropped } = commitmentsOf(goldReading(c), conversationItems(input, DEFAULT_BUDGET), input);
    expect(dropped).toEqual([]);
    expect(commitments.map((x) => [x.messageId, x.agent, x.kind, x.target.kind, x.target.scope, x.request?.messageId])).toEqual([
      [1, 'agent1', 'promise', 'exists', '__init__', undefined],
      [3, 'agent1', 'claim', 'placement', 'flush', 2],
    ]);
  });
});
