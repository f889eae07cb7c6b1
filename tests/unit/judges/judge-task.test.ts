// The judges end to end: a stored run, the real model layer (createModel) talking to the fake
// OpenAI-compatible server, labels and costs in run.db, and the cache.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModel } from '../../../harness/models/index.ts';
import type { Model } from '../../../harness/models/types.ts';
import { judgeRun, judgeTask } from '../../../harness/run/judge-tasks.ts';
import { storedLabels } from '../../../harness/store/judge-results.ts';
import { hangReply, startFakeVllm, type FakeOpenAIServer, type RecordedRequest } from '../../fakes/openai-server.ts';
import { calibrationCase, openStoredRun, type StoredRun } from './stored-task.ts';
import { fakeModel } from './fake-model.ts';
import { storeDb } from '../../helpers/run-db.ts';

const CLAIM = '✓Line 26: Added BOTH parameters (fallback_processor and max_batch_size) to constructor signature.';

type Answers = { communication: unknown; symptoms: unknown; speech_acts: unknown; commitments: unknown; initiative: unknown };

const GOOD: Answers = {
  communication: { evidence: [], issue: null },
  symptoms: {
    primary: {
      symptom: 'broken_commitment',
      description: 'agent2 claims both parameters, one is missing.',
      evidence: [{ source: 'conversation', quote: CLAIM }],
    },
    secondary: [],
  },
  speech_acts: {
    messages: [
      { id: 1, act: 'question', quote: 'How do you want to split it?' },
      { id: 2, act: 'answer', quote: 'I’ll add BOTH parameters' },
      { id: 3, act: 'plan', quote: "I'll only add `_split_batches()`" },
      { id: 4, act: 'update', quote: CLAIM },
      { id: 5, act: 'update', quote: '`_split_batches()` is added at lines 90-104' },
    ],
  },
  commitments: {
    commitments: [{ message: 4, quote: CLAIM, stance: 'claim', kind: 'exists', names: ['fallback_processor', 'max_batch_size'], scope: '__init__' }],
  },
  initiative: {
    messages: [
      { id: 1, initiative: true, quote: 'How do you want to split it?' },
      { id: 2, initiative: true, quote: 'I’ll add BOTH parameters' },
      { id: 3, initiative: true, quote: "I'll only add `_split_batches()`" },
      { id: 4, initiative: true, quote: CLAIM },
      { id: 5, initiative: false, quote: '`_split_batches()` is added at lines 90-104' },
    ],
  },
};

/** Which judge a request is for, from its system prompt. */
function judgeOf(request: RecordedRequest): keyof Answers {
  const system = request.body.messages[0].content as string;
  if (system.startsWith('You diagnose')) return 'symptoms';
  if (system.startsWith('You classify')) return 'speech_acts';
  if (system.startsWith('You read')) return 'commitments';
  if (system.startsWith('You label')) return 'initiative';
  return 'communication';
}

describe('judging a stored run through the model layer', () => {
  let server: FakeOpenAIServer;
  let run: StoredRun;
  let model: Model;
  let taskId: number;

  beforeEach(async () => {
    server = await startFakeVllm({ served: ['judge', 'other-judge'] });
    run = openStoredRun();
    taskId = run.addCase(calibrationCase('broken-commitment-constructor'));
    model = createModel(`openai:judge@${server.url}`, { warn: () => {}, maxRetries: 0, timeoutMs: 5000 });
  });
  afterEach(async () => {
    run.dispose();
    await server.close();
  });

  const answerWith = (answers: Answers) => server.handle((request) => JSON.stringify(answers[judgeOf(request)]));

  it("stores every judge's labels with checked evidence, and their usage", async () => {
    answerWith(GOOD);
    const judgement = await judgeTask(run.store, taskId, { model });
    expect(judgement.outcomes.map((o) => [o.judge, o.status, o.labels.length, o.cached])).toEqual([
      ['detectors', 'ok', 0, false],
      ['communication', 'ok', 0, false],
      ['symptoms', 'ok', 1, false],
      ['speech_acts', 'ok', 5, false],
      ['commitments', 'ok', 1, false],
      ['initiative', 'ok', 5, false],
    ]);
    expect(server.requests).toHaveLength(5);

    const symptoms = storedLabels(run.store, taskId, 'symptoms');
    expect(symptoms).toEqual([
      expect.objectContaining({
        label: 'broken_commitment',
        isPrimary: true,
        messageId: 4,
        agent: 'agent2',
        model: `openai:judge@${server.url}`,
        evidence: [{ kind: 'quote', source: 'conversation', text: CLAIM, messageId: 4, agent: 'agent2' }],
      }),
    ]);
    // The model reads the promises: the detectors' own reading of them is not stored beside its labels.
    expect(storedLabels(run.store, taskId, 'detectors')).toEqual([]);
    // The model read the claim; the code check found the parameter missing from the merged `__init__`.
    expect(storedLabels(run.store, taskId, 'commitments')).toEqual([
      expect.objectContaining({
        label: 'broken_checkable_commitment',
        messageId: 4,
        model: `openai:judge@${server.url}`,
        evidence: expect.arrayContaining([
          expect.objectContaining({ kind: 'absence', source: 'merged', note: expect.stringContaining('has no parameter `max_batch_size`') }),
        ]),
      }),
    ]);
    const runs = storeDb(run.store)
      .prepare('SELECT judge, status, calls, input_tokens, output_tokens, dropped_labels, cached FROM judge_runs WHERE task = ? ORDER BY judge')
      .all(taskId);
    expect(runs).toEqual([
      { judge: 'commitments', status: 'ok', calls: 1, input_tokens: 10, output_tokens: 5, dropped_labels: 0, cached: 0 },
      { judge: 'communication', status: 'ok', calls: 1, input_tokens: 10, output_tokens: 5, dropped_labels: 0, cached: 0 },
      { judge: 'detectors', status: 'ok', calls: 0, input_tokens: 0, output_tokens: 0, dropped_labels: 0, cached: 0 },
      { judge: 'initiative', status: 'ok', calls: 1, input_tokens: 10, output_tokens: 5, dropped_labels: 0, cached: 0 },
      { judge: 'speech_acts', status: 'ok', calls: 1, input_tokens: 10, output_tokens: 5, dropped_labels: 0, cached: 0 },
      { judge: 'symptoms', status: 'ok', calls: 1, input_tokens: 10, output_tokens: 5, dropped_labels: 0, cached: 0 },
    ]);
    const metrics = JSON.parse(
      (storeDb(run.store).prepare("SELECT metrics FROM judge_runs WHERE task = ? AND judge = 'detectors'").get(taskId) as { metrics: string }).metrics,
    );
    expect(metrics).toMatchObject({ messages: 5, commitmentsReadByModel: true, lineNumberMentions: 6, filePathMentions: 1, firstTurnPlan: false });
  });

  it("keeps the detectors' reading of the promises when there is no judge model, or when its question failed", async () => {
    await judgeTask(run.store, taskId);
    // The promises name a parameter in words the detectors do not label on their own: undecided, for a judge model.
    const fallback = [
      ['undecided:broken_checkable_commitment', 2, 'deterministic'],
      ['undecided:broken_checkable_commitment', 4, 'deterministic'],
    ];
    expect(storedLabels(run.store, taskId, 'detectors').map((l) => [l.label, l.messageId, l.model])).toEqual(fallback);
    server.handle(() => 'not json');
    const judgement = await judgeTask(run.store, taskId, { model });
    expect(judgement.outcomes.find((o) => o.judge === 'commitments')?.status).toBe('error');
    expect(storedLabels(run.store, taskId, 'detectors').map((l) => [l.label, l.messageId, l.model])).toEqual(fallback);
  });

  it("reads initiative with the fallback without a judge model, replaces it with the judge's reading, and never the other way", async () => {
    await judgeTask(run.store, taskId);
    const fallback = storedLabels(run.store, taskId, 'initiative');
    expect(fallback.map((l) => l.model)).toEqual(Array(5).fill('deterministic'));
    answerWith(GOOD);
    await judgeTask(run.store, taskId, { model });
    const judged = storedLabels(run.store, taskId, 'initiative');
    expect(judged.map((l) => [l.messageId, l.label, l.agent, l.model])).toEqual([
      [1, 'initiative', 'agent1', `openai:judge@${server.url}`],
      [2, 'initiative', 'agent2', `openai:judge@${server.url}`],
      [3, 'initiative', 'agent1', `openai:judge@${server.url}`],
      [4, 'initiative', 'agent2', `openai:judge@${server.url}`],
      [5, 'no_initiative', 'agent1', `openai:judge@${server.url}`],
    ]);
    expect(judged[3]!.evidence).toEqual([{ kind: 'quote', source: 'conversation', text: CLAIM, messageId: 4, agent: 'agent2' }]);
    // Judging again without a model keeps the judge model's reading.
    await judgeTask(run.store, taskId);
    expect(storedLabels(run.store, taskId, 'initiative')).toEqual(judged);
  });

  it('makes no model call when the same run is judged again', async () => {
    answerWith(GOOD);
    await judgeTask(run.store, taskId, { model });
    const before = storedLabels(run.store, taskId);
    const again = await judgeTask(run.store, taskId, { model });
    expect(server.requests).toHaveLength(5);
    expect(again.outcomes.filter((o) => o.judge !== 'detectors').every((o) => o.cached)).toBe(true);
    expect(storedLabels(run.store, taskId)).toEqual(before);
    // The stored usage is that of the calls behind the labels, cached or not.
    expect(storeDb(run.store).prepare("SELECT cached, calls FROM judge_runs WHERE task = ? AND judge = 'symptoms'").get(taskId)).toEqual({
      cached: 1,
      calls: 1,
    });
  });

  it('drops and counts labels whose quotes the server invented', async () => {
    answerWith({
      ...GOOD,
      symptoms: {
        primary: { symptom: 'work_overlap', description: 'x', evidence: [{ source: 'conversation', quote: 'agent1: I will also add max_batch_size myself' }] },
        secondary: [],
      },
    });
    await judgeTask(run.store, taskId, { model });
    expect(storedLabels(run.store, taskId, 'symptoms')).toEqual([]);
    const row = storeDb(run.store).prepare("SELECT labels, dropped_labels, dropped FROM judge_runs WHERE task = ? AND judge = 'symptoms'").get(taskId) as {
      labels: number;
      dropped_labels: number;
      dropped: string;
    };
    expect(row).toMatchObject({ labels: 0, dropped_labels: 1 });
    expect(JSON.parse(row.dropped)).toEqual([
      { label: 'work_overlap', reason: 'conversation quote not found verbatim: "agent1: I will also add max_batch_size myself"' },
    ]);
  });

  it('reports invalid JSON as an error and keeps the labels of an earlier judgement', async () => {
    answerWith(GOOD);
    await judgeTask(run.store, taskId, { model });
    server.handle(() => 'I think this is a broken commitment.');
    const other = createModel(`openai:other-judge@${server.url}`, { warn: () => {}, maxRetries: 0 });
    const judgement = await judgeTask(run.store, taskId, { model: other, judges: ['symptoms'] });
    expect(judgement.outcomes).toEqual([
      expect.objectContaining({ judge: 'symptoms', status: 'error', reason: expect.stringContaining('invalid answer twice') }),
    ]);
    expect(storedLabels(run.store, taskId, 'symptoms').map((l) => l.model)).toEqual([`openai:judge@${server.url}`]);
  });

  it('gives up on a server that never answers', async () => {
    server.handle(() => hangReply);
    const judgement = await judgeTask(run.store, taskId, { model, judges: ['communication'], timeoutMs: 300 });
    expect(judgement.outcomes).toEqual([expect.objectContaining({ status: 'error', reason: `openai:judge@${server.url}: no answer within 300 ms` })]);
  });

  it('judges the whole run, skipping tasks that did not finish and finished tasks with passing tests for symptoms', async () => {
    answerWith(GOOD);
    const passed = run.addCase(calibrationCase('clean-role-division'));
    const running = run.store.ensureTask({
      pool: { repo: 'demo_task', taskId: 99, dir: '/x', features: [], publishedImage: 'x' },
      features: [1, 2],
      setting: 'coop',
      models: ['noop', 'noop'],
      variant: '',
    }).id;
    server.handle((request) => (judgeOf(request) === 'speech_acts' ? JSON.stringify({ messages: [] }) : JSON.stringify(GOOD[judgeOf(request)])));
    const seen: number[] = [];
    const judgements = await judgeRun(run.store, { model, concurrency: 2, onTask: (j) => seen.push(j.taskId) });
    expect(seen.sort()).toEqual([taskId, passed, running].sort());
    expect(judgements.find((j) => j.taskId === running)).toEqual({ taskId: running, skipped: 'task is pending', outcomes: [] });
    expect(judgements.find((j) => j.taskId === passed)!.outcomes.find((o) => o.judge === 'symptoms')).toMatchObject({
      status: 'skipped',
      reason: 'both features passed',
    });
  });
});

describe('judge cost', () => {
  it("sums tokens and cost of the calls behind each judge's labels", async () => {
    const run = openStoredRun();
    try {
      const taskId = run.addCase(calibrationCase('unanswered-crossed-reply'));
      let communicationCalls = 0;
      const model = fakeModel((request) => {
        if (request.system!.startsWith('You classify')) return '{"messages": []}';
        return ++communicationCalls === 1 ? 'not json' : '{"evidence": [], "issue": null}';
      });
      await judgeTask(run.store, taskId, { model, judges: ['communication', 'speech_acts'] });
      const rows = storeDb(run.store).prepare('SELECT judge, calls, input_tokens, output_tokens, cost_usd FROM judge_runs ORDER BY judge').all();
      expect(rows).toEqual([
        { judge: 'communication', calls: 2, input_tokens: 2000, output_tokens: 200, cost_usd: 0.02 },
        { judge: 'speech_acts', calls: 1, input_tokens: 1000, output_tokens: 100, cost_usd: 0.01 },
      ]);
    } finally {
      run.dispose();
    }
  });
});
