import { describe, expect, it } from 'vitest';
import type { LabelView, TaskOutcome } from '../../../../reports/run-data.ts';
import { pairName } from '../../../../reports/run-data.ts';
import { headline } from '../../../../reports/analysis/headline.ts';
import { difficultyAnalysis } from '../../../../reports/analysis/difficulty.ts';
import { ALL_MODELS, mergeAnalysis } from '../../../../reports/analysis/merges.ts';
import { communicationAnalysis, communicationLabelId } from '../../../../reports/analysis/communication.ts';
import { readStoredScores } from '../../../../judges/calibration/stored-scores.ts';
import { judgeVersion, type ModelMeasurement } from '../../../../judges/calibration/model-scores.ts';
import { costRows } from '../../../../reports/analysis/cost.ts';
import { conditionOf } from '../../../../reports/analysis/conditions.ts';
import { summarizeRun } from '../../../../reports/summary.ts';

let nextId = 1;
function outcome(o: Partial<TaskOutcome> & { team: string; setting: 'coop' | 'solo'; pairNo: number }): TaskOutcome {
  const features = o.features ?? [1, 2];
  return {
    id: nextId++,
    key: `${o.team}|${o.setting}|${o.pairNo}`,
    variant: '',
    repo: 'r_task',
    taskId: o.pairNo,
    features,
    pair: pairName('r_task', o.pairNo, features),
    status: 'done',
    error: null,
    errorKind: null,
    agentConfig: 'cfg',
    agentEndings: ['finished'],
    passed: false,
    mergeStatus: o.setting === 'coop' ? 'union' : 'clean',
    naiveClean: o.setting === 'solo',
    mergeAttempts: [],
    steps: 10,
    messages: 0,
    modelCalls: 0,
    inputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    labels: [],
    testRuns: { total: 2, cached: 0 },
    ...o,
  };
}

const label = (judge: LabelView['judge'], l: string, extra: Partial<LabelView> = {}): LabelView => ({
  judge,
  label: l,
  isPrimary: false,
  messageId: null,
  agent: null,
  description: '',
  evidence: [],
  model: 'm',
  ...extra,
});

/** Model A: Solo passes pairs 1-3, Coop only pair 1. Model B: Solo passes pairs 1-2, Coop none. */
function twoModels(): TaskOutcome[] {
  const tasks: TaskOutcome[] = [];
  for (let pairNo = 1; pairNo <= 4; pairNo++) {
    tasks.push(outcome({ team: 'A', setting: 'solo', pairNo, passed: pairNo <= 3 }));
    tasks.push(outcome({ team: 'A', setting: 'coop', pairNo, passed: pairNo === 1, mergeStatus: pairNo === 1 ? 'clean' : 'union', naiveClean: pairNo === 1 }));
    tasks.push(outcome({ team: 'B', setting: 'solo', pairNo, passed: pairNo <= 2 }));
    tasks.push(outcome({ team: 'B', setting: 'coop', pairNo, passed: false }));
  }
  return tasks;
}

describe('headline', () => {
  it('gives each model and condition its rate over finished tasks, and the gap on shared pairs', () => {
    const tasks = [...twoModels(), outcome({ team: 'A', setting: 'coop', pairNo: 9, status: 'error', passed: null })];
    const h = headline(tasks);
    expect(h.conditions).toEqual(['Solo', 'Coop']);
    const a = h.teams.find((t) => t.team === 'A')!;
    expect(a.results.map((r) => [r.condition, r.tasks, r.done, r.passed])).toEqual([
      ['Solo', 4, 4, 3],
      ['Coop', 5, 4, 1],
    ]);
    expect(a.gap!.pairs).toBe(4);
    expect(a.gap!.gap.diff).toBeCloseTo(0.5);
    expect(a.gap!.relativeLoss).toBeCloseTo(2 / 3);
  });

  it('names ablations and agent counts as their own conditions', () => {
    expect(conditionOf({ setting: 'coop', variant: 'no-messaging', features: [1, 2] })).toBe('Coop no-messaging');
    expect(conditionOf({ setting: 'coop', variant: '', features: [1, 2, 3] })).toBe('Coop, 3 agents');
    expect(conditionOf({ setting: 'solo', variant: '', features: [1, 2, 3] })).toBe('Solo, 3 features');
  });

  it('has no gap without Solo results', () => {
    const h = headline(twoModels().filter((t) => t.setting === 'coop'));
    expect(h.teams.every((t) => t.gap === null)).toBe(true);
  });
});

describe('difficulty (Algorithm 1)', () => {
  it('rates pairs by mean Solo success over models, buckets them, and pools counts', () => {
    const d = difficultyAnalysis(twoModels());
    // pairs 1, 2: both models pass Solo (d = 0); pair 3: one of two (0.5); pair 4: none (1)
    expect(Object.values(d.difficulty)).toEqual([0, 0, 0.5, 1]);
    const a = d.teams.find((t) => t.team === 'A')!;
    expect(a.points.map((p) => [p.bucket, p.solo.k, p.coop.k, p.solo.n])).toEqual([
      [0, 2, 1, 2],
      [5, 1, 0, 1],
      [9, 0, 0, 1],
    ]);
    expect(a.summary).toMatchObject({ n: 4, kSolo: 3, kCoop: 1 });
    expect(a.summary.retention).toBeCloseTo(a.summary.aucCoop / a.summary.aucSolo);
    expect(d.pooled!.buckets[0]).toEqual({ n: 4, kSolo: 4, kCoop: 1 });
    expect(d.pooled!.summary.n).toBe(8);
  });

  it('leaves out Coop pairs without any Solo result and counts them', () => {
    const tasks = [...twoModels(), outcome({ team: 'A', setting: 'coop', pairNo: 7, passed: true })];
    const d = difficultyAnalysis(tasks);
    expect(d.unratedCoopPairs).toBe(1);
    expect(d.teams.find((t) => t.team === 'A')!.summary.n).toBe(4);
  });

  it('has no curves for a Coop-only run', () => {
    const d = difficultyAnalysis(twoModels().filter((t) => t.setting === 'coop'));
    expect(d.pooled).toBeNull();
    expect(d.unratedCoopPairs).toBe(4);
  });
});

describe('merge strategies (table 6) and messaging on/off (figure 5 a, b)', () => {
  it('accumulates success over naive, union and LLM merges per variant', () => {
    const tasks = [
      outcome({ team: 'A', setting: 'coop', pairNo: 1, passed: true, mergeStatus: 'clean', naiveClean: true }),
      outcome({ team: 'A', setting: 'coop', pairNo: 2, passed: true, mergeStatus: 'union', naiveClean: false }),
      outcome({ team: 'A', setting: 'coop', pairNo: 3, passed: true, mergeStatus: 'llm', naiveClean: false }),
      outcome({ team: 'A', setting: 'coop', pairNo: 4, passed: false, mergeStatus: 'conflict', naiveClean: false }),
      outcome({ team: 'A', setting: 'coop', pairNo: 1, variant: 'no-messaging', passed: false, mergeStatus: 'union', naiveClean: false }),
      outcome({ team: 'A', setting: 'coop', pairNo: 2, variant: 'no-messaging', passed: true, mergeStatus: 'union', naiveClean: false }),
      outcome({ team: 'A', setting: 'coop', pairNo: 3, variant: 'no-messaging', passed: false, mergeStatus: 'missing_input', naiveClean: false }),
      outcome({ team: 'A', setting: 'solo', pairNo: 1, passed: true }),
    ];
    const m = mergeAnalysis(tasks);
    expect(m.variants).toEqual(['no-messaging', '']);
    const row = m.rows[0];
    const on = row.byVariant[''];
    expect(on.passedBy.map((p) => [p.stage, p.label])).toEqual([
      ['naive', 'Naive'],
      ['union', 'Union'],
      ['llm', 'LLM'],
    ]);
    expect([...on.passedBy.map((p) => p.rate.k), on.tasks]).toEqual([1, 2, 3, 4]);
    expect(on.conflictRate).toMatchObject({ k: 3, n: 4 });
    const off = row.byVariant['no-messaging'];
    expect(off.passedBy.map((p) => p.rate.k)).toEqual([0, 1, 1]);
    expect(off.conflictRate).toMatchObject({ k: 2, n: 2 });
    expect(row.successEffect!.diff).toBeCloseTo(3 / 4 - 1 / 3);
    expect(row.conflictEffect!.diff).toBeCloseTo(3 / 4 - 1);
  });

  it('counts the union outcomes the union order decided, and those it could not measure', () => {
    const union = (passed: boolean, other?: boolean) => [
      { stage: 'naive', outcome: 'conflict', passed: null, final: false },
      { stage: 'union', outcome: 'merged', passed, final: true },
      ...(other === undefined ? [] : [{ stage: 'union-reversed', outcome: 'merged', passed: other, final: false }]),
    ];
    const tasks = [
      outcome({ team: 'A', setting: 'coop', pairNo: 1, passed: true, mergeStatus: 'union', mergeAttempts: union(true, false) }),
      outcome({ team: 'A', setting: 'coop', pairNo: 2, passed: false, mergeStatus: 'union', mergeAttempts: union(false, true) }),
      outcome({ team: 'A', setting: 'coop', pairNo: 3, passed: true, mergeStatus: 'union', mergeAttempts: union(true, true) }),
      outcome({ team: 'A', setting: 'coop', pairNo: 4, passed: true, mergeStatus: 'union', mergeAttempts: union(true) }),
      outcome({
        team: 'A',
        setting: 'coop',
        pairNo: 5,
        passed: true,
        mergeStatus: 'clean',
        naiveClean: true,
        mergeAttempts: [{ stage: 'naive', outcome: 'merged', passed: true, final: true }],
      }),
      outcome({
        team: 'A',
        setting: 'coop',
        pairNo: 6,
        passed: false,
        mergeStatus: 'union',
        mergeAttempts: [...union(false), { stage: 'union-reversed', outcome: 'conflict', passed: null, final: false }],
      }),
    ];
    expect(mergeAnalysis(tasks).rows[0].byVariant[''].order).toEqual({ measured: 4, decided: 2, unmeasured: 1 });
  });

  it('adds a pooled row for several models and has no effect without the ablation', () => {
    const m = mergeAnalysis(twoModels());
    expect(m.rows.map((r) => r.team)).toEqual(['A', 'B', ALL_MODELS]);
    expect(m.rows[2].byVariant[''].tasks).toBe(8);
    expect(m.rows[0].successEffect).toBeNull();
  });
});

describe('communication', () => {
  it('measures overhead as messages over steps, split by speech act', () => {
    const tasks = [
      outcome({
        team: 'A',
        setting: 'coop',
        pairNo: 1,
        steps: 20,
        messages: 3,
        labels: [
          label('speech_acts', 'plan', { messageId: 1 }),
          label('speech_acts', 'Question', { messageId: 2 }),
          label('speech_acts', 'answer', { messageId: 2, isPrimary: true }),
        ],
      }),
      outcome({ team: 'A', setting: 'coop', pairNo: 2, steps: 20, messages: 1 }),
      outcome({ team: 'A', setting: 'coop', pairNo: 3, variant: 'no-messaging', steps: 20, messages: 0 }),
    ];
    const c = communicationAnalysis(tasks);
    const a = c.teams[0];
    expect(a).toMatchObject({ tasks: 2, conversations: 2, messages: 4, steps: 40 });
    expect(a.overhead).toBeCloseTo(0.1);
    expect(a.speechActs).toMatchObject({ plan: 1, answer: 1, question: 0, unlabeled: 2 });
  });

  it('counts communication errors per conversation and symptoms per failed task', () => {
    const tasks = [
      outcome({ team: 'A', setting: 'coop', pairNo: 1, messages: 4, labels: [label('communication', 'C1a'), label('communication', 'c4b: near-duplicate')] }),
      outcome({ team: 'A', setting: 'coop', pairNo: 2, messages: 2, labels: [label('communication', 'C1a')] }),
      outcome({ team: 'A', setting: 'coop', pairNo: 3, messages: 0 }),
      outcome({ team: 'A', setting: 'coop', pairNo: 4, labels: [label('symptoms', 'work_overlap', { isPrimary: true }), label('symptoms', 'Repetition')] }),
      outcome({ team: 'A', setting: 'coop', pairNo: 5, labels: [label('symptoms', 'implementation failure', { isPrimary: true })] }),
      outcome({ team: 'A', setting: 'coop', pairNo: 6, passed: true, labels: [label('detectors', 'first_turn_plan')] }),
    ];
    const c = communicationAnalysis(tasks);
    expect(c.errors[0]).toEqual({ team: 'A', conversations: 2, byLabel: { C1a: 2, C4b: 1 } });
    expect(c.symptoms.failedTasks).toBe(5);
    expect(c.symptoms.labeledTasks).toBe(2);
    const row = (name: string) => c.symptoms.rows.find((r) => r.label === name)!;
    expect(row('Work overlap')).toMatchObject({ primary: 1, secondary: 0 });
    expect(row('Repetition')).toMatchObject({ primary: 0, secondary: 1 });
    expect(row('Implementation failure').primary).toBe(1);
    expect(c.detectors).toEqual([
      expect.objectContaining({
        label: 'first_turn_plan',
        tasks: 1,
        successWith: expect.objectContaining({ k: 1, n: 1 }),
        successWithout: expect.objectContaining({ k: 0, n: 5 }),
      }),
    ]);
    expect(c.labelCounts).toEqual({ communication: 3, symptoms: 3, detectors: 1 });
  });

  it('shows beside each detector label its definition and its precision and recall on the held-out split', () => {
    const stored = readStoredScores()!;
    const test = stored.splits.test.labels.find((l) => l.label === 'first_turn_plan')!;
    const [row] = communicationAnalysis([
      outcome({ team: 'A', setting: 'coop', pairNo: 1, messages: 2, labels: [label('detectors', 'first_turn_plan')] }),
    ]).detectors;
    expect(row!.definition).toContain("The conversation's first message is a plan");
    expect(row!.calibration).toEqual({
      split: 'test',
      cases: stored.splits.test.cases,
      tp: test.tp,
      fp: test.fp,
      fn: test.fn,
      precision: test.tp / (test.tp + test.fp),
      recall: test.tp / (test.tp + test.fn),
    });
  });

  it('counts the tasks a detector left undecided apart from those with and without its label', () => {
    const [row] = communicationAnalysis([
      outcome({ team: 'A', setting: 'coop', pairNo: 1, messages: 2, passed: true, labels: [label('detectors', 'first_turn_plan')] }),
      outcome({ team: 'A', setting: 'coop', pairNo: 2, messages: 2, passed: false, labels: [label('detectors', 'undecided:first_turn_plan')] }),
      outcome({ team: 'A', setting: 'coop', pairNo: 3, messages: 2, passed: false, labels: [] }),
    ]).detectors;
    expect(row).toMatchObject({
      label: 'first_turn_plan',
      tasks: 1,
      undecided: 1,
      successWith: expect.objectContaining({ k: 1, n: 1 }),
      successWithout: expect.objectContaining({ k: 0, n: 1 }),
    });
  });

  it("shows the commitments judge's broken commitments as their own row, without the detector's calibration", () => {
    const rows = communicationAnalysis([
      outcome({ team: 'A', setting: 'coop', pairNo: 1, messages: 2, labels: [label('detectors', 'broken_checkable_commitment')] }),
      outcome({ team: 'A', setting: 'coop', pairNo: 2, messages: 2, labels: [label('commitments', 'broken_checkable_commitment')] }),
      outcome({ team: 'A', setting: 'coop', pairNo: 3, messages: 2, labels: [label('commitments', 'broken_checkable_commitment')] }),
    ]).detectors;
    expect(rows.map((r) => [r.judge, r.label, r.tasks, r.calibration === null])).toEqual([
      ['detectors', 'broken_checkable_commitment', 1, false],
      ['commitments', 'broken_checkable_commitment (promises read by the judge model)', 2, true],
    ]);
    expect(rows[1]!.definition).toBe(rows[0]!.definition);
  });

  it("shows beside the commitments judge's row the figures of the model that gave its labels, measured with this prompt and these checks", () => {
    const model = 'openai:judge';
    const measured = (version: string): ModelMeasurement => ({
      judge: 'commitments',
      model,
      version,
      measuredAt: '2026-11-27T00:00:00.000Z',
      splits: {
        train: { cases: 9, labels: [] },
        test: { cases: 150, labels: [{ label: 'broken_checkable_commitment', tp: 82, fp: 10, fn: 6 }] },
      },
    });
    const tasks = (...models: string[]) =>
      models.map((m, i) =>
        outcome({ team: 'A', setting: 'coop', pairNo: i + 1, messages: 2, labels: [label('commitments', 'broken_checkable_commitment', { model: m })] }),
      );
    const row = (t: TaskOutcome[], m: ModelMeasurement[]) => communicationAnalysis(t, m).detectors[0]!.calibration;
    expect(row(tasks(model, model), [measured(judgeVersion('commitments')!)])).toEqual({
      split: 'test',
      model,
      cases: 150,
      tp: 82,
      fp: 10,
      fn: 6,
      precision: 82 / 92,
      recall: 82 / 88,
    });
    // Another prompt or other code checks, labels of two models, or a model never measured: no figures.
    expect(row(tasks(model), [measured('commitments-0+detectors-1')])).toBeNull();
    expect(row(tasks(model, 'anthropic:other'), [measured(judgeVersion('commitments')!)])).toBeNull();
    expect(row(tasks('anthropic:other'), [measured(judgeVersion('commitments')!)])).toBeNull();
  });

  it("shows beside the communication, symptom and speech-act labels the figures of the one model that gave them, keyed as the report's tables key them", () => {
    const model = 'openai:judge';
    const measured = (judge: string, labels: ModelMeasurement['splits']['test']['labels']): ModelMeasurement => ({
      judge,
      model,
      version: judgeVersion(judge)!,
      measuredAt: '2026-11-27T00:00:00.000Z',
      splits: { train: { cases: 9, labels: [] }, test: { cases: 150, labels } },
    });
    const measurements = [
      measured('communication', [{ label: 'C1a', tp: 3, fp: 1, fn: 2 }]),
      measured('symptoms', [{ label: 'work_overlap', tp: 4, fp: 0, fn: 1 }]),
      measured('speech_acts', [{ label: 'plan', tp: 40, fp: 2, fn: 0 }]),
    ];
    const tasks = (m: string) => [
      outcome({
        team: 'A',
        setting: 'coop',
        pairNo: 1,
        messages: 2,
        labels: [label('communication', 'C1a', { model: m }), label('speech_acts', 'Plan', { model: m })],
      }),
      outcome({ team: 'A', setting: 'coop', pairNo: 2, labels: [label('symptoms', 'Work overlap', { model: m, isPrimary: true })] }),
    ];
    const { trust } = communicationAnalysis(tasks(model), measurements);
    expect(trust.communication).toEqual({
      model,
      cases: 150,
      labels: { C1a: { split: 'test', model, cases: 150, tp: 3, fp: 1, fn: 2, precision: 0.75, recall: 0.6 } },
    });
    expect(trust.symptoms?.labels['work overlap']).toMatchObject({ precision: 1, recall: 0.8 });
    expect(trust.speechActs?.labels.plan).toMatchObject({ tp: 40, fp: 2 });
    // Labels of a model never measured: no figures.
    expect(communicationAnalysis(tasks('anthropic:other'), measurements).trust).toEqual({ communication: null, symptoms: null, speechActs: null });
  });

  it('maps label spellings to the taxonomy ids', () => {
    expect(communicationLabelId('c1b')).toBe('C1b');
    expect(communicationLabelId('C2 vague answer')).toBe('C2');
    expect(communicationLabelId('C20')).toBe('C20');
    expect(communicationLabelId('something else')).toBe('something else');
  });
});

describe('cost', () => {
  it('sums usage per model and condition over finished tasks', () => {
    const rows = costRows([
      outcome({ team: 'A', setting: 'coop', pairNo: 1, modelCalls: 4, inputTokens: 1000, outputTokens: 100, costUsd: 0.5, passed: true }),
      outcome({ team: 'A', setting: 'coop', pairNo: 2, modelCalls: 2, inputTokens: 500, outputTokens: 50, costUsd: 0.25 }),
      outcome({ team: 'A', setting: 'coop', pairNo: 3, status: 'error', passed: null, costUsd: 9 }),
      outcome({ team: 'A', setting: 'solo', pairNo: 1, modelCalls: 1, costUsd: 0.1 }),
    ]);
    expect(rows.map((r) => [r.condition, r.tasks, r.modelCalls, r.inputTokens, r.costUsd, r.passed])).toEqual([
      ['Solo', 1, 1, 0, 0.1, 0],
      ['Coop', 2, 6, 1500, 0.75, 1],
    ]);
  });
});

describe('summary of a partial run', () => {
  it('summarises a run where nothing has finished', () => {
    const s = summarizeRun({
      run: { name: 'r', status: 'running', createdAt: null, updatedAt: null, options: null },
      damaged: [],
      judgeCalibration: [],
      tasks: [outcome({ team: 'A', setting: 'coop', pairNo: 1, status: 'pending', passed: null, mergeStatus: null, naiveClean: null })],
    });
    expect(s.taskCounts.pending).toBe(1);
    expect(s.headline.teams[0].results[0].rate).toBeNull();
    expect(s.difficulty.pooled).toBeNull();
    expect(s.merges.rows).toEqual([]);
    expect(s.communication.teams).toEqual([]);
    expect(s.cost).toEqual([]);
  });
});
