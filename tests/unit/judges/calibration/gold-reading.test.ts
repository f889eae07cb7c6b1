// The gold's reading of a case's commitments (calibration/gold-reading.ts): the targets the cases'
// README defines, turned into the commitments judge's answer, so that the code checks can be
// scored alone.
import { describe, expect, it } from 'vitest';
import { caseFiles, caseInput, loadCalibrationSet, type CalibrationCase } from '../../../../judges/calibration/cases.ts';
import { goldReading } from '../../../../judges/calibration/gold-reading.ts';
import { goldBrokenCommitments, goldQuestionsWithoutReply, scoreLlmJudges } from '../../../../judges/calibration/score.ts';
import { commitmentsOf } from '../../../../judges/llm/commitments.ts';
import { conversationItems, DEFAULT_BUDGET } from '../../../../judges/llm/material.ts';
import { fakeModel } from '../fake-model.ts';
import { calibrationCase } from '../stored-task.ts';

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
    expect(answer.commitments[6]).toMatchObject({ request: null, position: 'after', anchor: '_write', anchor_words: [] });
    const inWords = goldCase([
      { message: 3, kind: 'placement', target: 'pool.py:Pool.acquire', code: 'if self._closed', detail: 'after taking the lock', kept: true },
    ]);
    expect(goldReading(inWords).commitments[0]).toMatchObject({ guard: ['_closed'], position: 'after', anchor: null, anchor_words: ['lock'] });
  });

  it('reads the place a detail states: quoted words, or words before what the patch did; a lock, a try, a loop, a name', () => {
    const place = (code: string, detail: string, message: number) =>
      goldReading(goldCase([{ message, kind: 'placement', target: 'pool.py:Pool.acquire', code, detail, kept: false }])).commitments[0]!;
    const where = (code: string, detail: string, message = 3) => {
      const { names, guard, position, anchor, anchor_words, loop } = place(code, detail, message) as Extract<ReturnType<typeof place>, { kind: 'placement' }>;
      return { names, guard, position, anchor, anchor_words, loop };
    };
    expect(where('if self._closed', 'first statement after taking the lock; the patch puts it before `with self._lock:`')).toEqual({
      names: [],
      guard: ['_closed'],
      position: 'after',
      anchor: null,
      anchor_words: ['lock'],
      loop: false,
    });
    expect(where('if s.closed', 'under the lock')).toMatchObject({ position: 'after', anchor_words: ['lock'] });
    expect(where('if hive_id not in self.hives:', '"its opening statement": second, after the record is built')).toMatchObject({
      position: 'first',
      anchor_words: [],
    });
    expect(where('z.mu.Lock()', 'the first statement of Remove; the patch locks only inside the loop')).toMatchObject({
      names: ['Lock'],
      position: 'first',
      loop: false,
    });
    expect(where('except ConnectionError', 'a try that wraps self.sock.send(payload); the patch wraps encode')).toMatchObject({
      names: [],
      position: 'around',
      anchor: 'send',
    });
    expect(where('compile(src)', 'inside the try')).toMatchObject({ names: ['compile'], position: 'around', anchor: null });
    expect(where('this.trace?.(', 'right after const list = [...] (the snapshot)')).toMatchObject({ names: ['trace'], position: 'after', anchor: 'list' });
    expect(where('normalize(key)', 'before the s.data[key] lookup')).toMatchObject({ position: 'before', anchor: 'data' });
    expect(where('if strings.ContainsAny(name, " ")', 'inside ParseHeader, after the strings.Cut')).toMatchObject({ position: 'after', anchor: 'Cut' });
    expect(where('b.failures = 0', 'last thing before the return')).toMatchObject({ position: 'last', anchor_words: [] });
    expect(where('if (this.bypass)', '`get()` now checks `this.bypass` before it reads the store.')).toMatchObject({
      position: 'before',
      anchor_words: ['store'],
    });
    // Without a detail, the message's own words: "Can `flush()` check `_closed` first, before `self._write(chunk)`?"
    const undetailed = goldCase([{ message: 2, kind: 'placement', target: 'batcher.py:Batcher.flush', code: 'if self._closed', kept: false }]);
    expect(goldReading(undetailed).commitments[0]).toMatchObject({ guard: ['_closed'], position: 'first' });
    expect(where('this.emit("written")', '"after each write completes": emitted before the write')).toMatchObject({
      position: 'after',
      anchor_words: ['write'],
    });
    expect(where('fmt.Errorf("bad hour', "in Drain's loop")).toMatchObject({ loop: true });
    expect(where('if over == nil', 'right before the overlay loop')).toMatchObject({ position: 'before', anchor_words: ['overlay'], loop: false });
    // A bare name is a call, unless its message says a check tests it ("Can `flush()` check `_closed` first").
    expect(where('_closed', 'before the call to self._write(chunk)')).toMatchObject({ names: ['_closed'], guard: [], position: 'before', anchor: '_write' });
    expect(where('_closed', 'before the call to self._write(chunk)', 2)).toMatchObject({ names: [], guard: ['_closed'] });
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

describe('a judge model that reads every promise as the gold does', () => {
  it('gets the code checks’ own figures in judge --calibrate, and its reading scored by kind', async () => {
    const cases = ['ind-tr3-ts-exported-not-exported', 'ind-tr3-js-yes-ill-do-that-broken', 'ind-tr3-go-range-is-yours-edited'].map(calibrationCase);
    // The fake model answers the commitments judge with the gold's reading of the case it is shown.
    const byFirstMessage = new Map(cases.map((c) => [c.messages[0]!.text.slice(0, 60), c]));
    const model = fakeModel((request) => {
      const system = request.system!;
      if (system.startsWith('You classify')) return '{"messages": []}';
      if (!system.startsWith('You read')) return '{"evidence": [], "issue": null, "primary": null}';
      const shown = request.messages.at(-1)!.content as string;
      const c = [...byFirstMessage].find(([start]) => shown.includes(start))![1];
      return JSON.stringify(goldReading(c));
    });
    const scores = await scoreLlmJudges(cases, model, { timeoutMs: 5000 });
    const broken = cases.reduce((n, c) => n + goldBrokenCommitments(c).length, 0);
    expect(scores.labels.find((l) => l.judge === 'commitments')).toEqual({
      judge: 'commitments',
      label: 'broken_checkable_commitment',
      tp: broken,
      fp: 0,
      fn: 0,
    });
    const read = Object.fromEntries(scores.commitments.map((r) => [r.label, [r.tp, r.fn]]));
    expect(read).toMatchObject({ exported: [expect.any(Number), 0], untouched_lines: [expect.any(Number), 0], accepted_request: [1, 0] });
    expect(scores.errors).toEqual([]);
  });
});

describe('calibration gold that cannot flatter', () => {
  it("reads question_no_reply's gold from the case's own times: a reply sent before the question arrived does not answer it", () => {
    const c = loadCalibrationSet()[0]!;
    const base = { ...c, agents: ['agent1', 'agent2'], gold: { ...c.gold, unanswered_question: [1] } };
    const messages = (delivered: number | null, replySent: number) => [
      { from: 'agent1', text: 'Which file do you take?', act: 'question' as const, sent: 0, delivered },
      { from: 'agent2', text: 'I take cache.py.', act: 'plan' as const, sent: replySent },
    ];
    expect(goldQuestionsWithoutReply({ ...base, messages: messages(5, 2) })).toEqual([1]);
    expect(goldQuestionsWithoutReply({ ...base, messages: messages(1, 2) })).toEqual([]);
    expect(goldQuestionsWithoutReply({ ...base, messages: messages(null, 2) })).toEqual([1]);
  });

  it('prints each case file with its split as the file writes it', () => {
    const files = caseFiles(loadCalibrationSet());
    expect(files.find((f) => f.file === 'independent-test.json')).toMatchObject({ split: 'test' });
    expect(files.every((f) => /^(?:train|test)(?: \(no split written\))?$/.test(f.split))).toBe(true);
  });
});
