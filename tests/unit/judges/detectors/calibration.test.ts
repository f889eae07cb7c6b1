import { beforeAll, describe, expect, it } from 'vitest';
import { caseFiles, caseInput, casesOfSplit, loadCalibrationSet } from '../../../../judges/calibration/cases.ts';
import { precision, recall, scoreDetectors, type DetectorScores } from '../../../../judges/calibration/score.ts';
import { readStoredScores } from '../../../../judges/calibration/stored-scores.ts';
import { runDetectors } from '../../../../judges/detectors/index.ts';
import { loadLanguage } from '../../../../judges/detectors/language.ts';

beforeAll(async () => {
  await loadLanguage();
});

describe('deterministic detectors on the calibration set', () => {
  const cases = loadCalibrationSet();
  const train = casesOfSplit(cases, 'train');

  it('has train and test conversations, clean ones included', () => {
    expect(train.length).toBeGreaterThanOrEqual(30);
    const clean = train.filter(
      (c) =>
        c.gold.communication === null &&
        !c.gold.symptoms &&
        c.gold.unanswered_question.length === 0 &&
        c.gold.near_duplicate.length === 0 &&
        c.gold.broken_commitment.length === 0,
    );
    expect(clean.length).toBeGreaterThanOrEqual(10);
  });

  // One test per case file: each scores its own cases (a file's failure names the file), and the
  // split's figures below reuse those results (the detectors' results are kept per case).
  it.each(caseFiles(train).map((f) => f.file))('scores every case of %s', async (file) => {
    const mine = train.filter((c) => c.file === file);
    const scored = await scoreDetectors(mine);
    expect(scored.cases).toBe(mine.length);
    expect(scored.counts.map((c) => c.cases)).toEqual(scored.counts.map(() => mine.length));
  });

  let scored: Promise<DetectorScores> | undefined;
  const trainScores = () => (scored ??= scoreDetectors(train));

  it('reaches precision 0.9 on the training split, recall 0.8 for plans, questions and duplicates, mentions counted exactly', async () => {
    const scores = await trainScores();
    for (const r of scores.labels) {
      expect(precision(r), r.label).toBeGreaterThanOrEqual(0.9);
      if (r.label !== 'broken_checkable_commitment') expect(recall(r), r.label).toBeGreaterThanOrEqual(0.8);
    }
    expect(scores.undecided.map((u) => u.label)).toEqual(['first_turn_plan', 'question_no_reply', 'near_duplicate', 'broken_checkable_commitment']);
    // Broken commitments: the detectors label only targets written out (line ranges, exports from a named module) and leave
    // the rest undecided for a judge model (judges/README.md); labelled or undecided, they find most broken promises.
    const commitments = scores.labels.find((r) => r.label === 'broken_checkable_commitment')!;
    const undecided = scores.undecided.find((u) => u.label === 'broken_checkable_commitment')!;
    expect((commitments.tp + undecided.positives) / (commitments.tp + commitments.fn)).toBeGreaterThanOrEqual(0.65);
    for (const c of scores.counts) expect(c.exact / c.cases, c.label).toBeGreaterThanOrEqual(0.95);
  });

  it('gives the paraphrases of the training split the labels of their original', async () => {
    const scores = await trainScores();
    // Not all yet: of independent-paraphrases-2.json (written blind to the detectors), 12 of the 87
    // are labelled otherwise than their original (judges/README.md). A paraphrase that agrees must keep agreeing: raise this as more do.
    expect(scores.paraphrases.of).toBeGreaterThanOrEqual(87);
    expect(scores.paraphrases.same, scores.paraphrases.differing.join('; ')).toBeGreaterThanOrEqual(75);
  });

  it('scores broken_checkable_commitment by the kind of each broken promise too, counting every broken gold commitment under its kind', async () => {
    const scores = await trainScores();
    const brokenGold = train
      .filter((c) => c.patches && c.gold.commitments)
      .flatMap((c) => [...new Set(c.gold.commitments!.filter((x) => !x.kept && x.withdrawn === undefined).map((x) => `${x.message} ${x.as ?? x.kind}`))]);
    expect(scores.brokenByKind.reduce((n, r) => n + r.tp + r.fn, 0)).toBe(brokenGold.length);
    // Two messages about a method shipped under another name and one about a check placed after the call it was to precede,
    // left undecided (read from free wording); two about a line range the sender's patch edits, labelled.
    const two = await scoreDetectors(
      ['ind-tr10-py-peek-shipped-as-first-and-dup-check-after-push', 'ind-tr-bc-untouched-range-edited-p2a'].map((id) => train.find((c) => c.id === id)!),
    );
    expect(two.brokenByKind.filter((r) => r.tp + r.fp + r.fn > 0)).toEqual([
      { judge: 'detectors', label: 'exists', tp: 0, fp: 0, fn: 2 },
      { judge: 'detectors', label: 'untouched_lines', tp: 2, fp: 0, fn: 0 },
      { judge: 'detectors', label: 'placement', tp: 0, fp: 0, fn: 1 },
    ]);
  });

  it('stores the figures the report shows, as a fresh scoring gives them', async () => {
    const scores = await trainScores();
    const stored = readStoredScores();
    expect(stored, 'run coop-bench judge --calibrate --write-scores').toBeDefined();
    expect(stored!.splits.train).toEqual({ cases: scores.cases, labels: scores.labels.map(({ label, tp, fp, fn }) => ({ label, tp, fp, fn })) });
  });

  it.each(train.filter((x) => x.id.startsWith('clean-')))('gives the clean conversation $id no error label', async (c) => {
    const errors = (await runDetectors(caseInput(c))).labels.filter((l) => l.label !== 'first_turn_plan');
    expect(errors).toEqual([]);
  });
});

describe('undecided findings', () => {
  it('counts what it left undecided in the metrics, apart from the labels', async () => {
    const { labels, metrics } = await runDetectors(caseInput(loadCalibrationSet().find((c) => c.id === 'ind-tr-bc-export-not-exported-py-p2a')!));
    expect(metrics.firstTurnPlan).toBe(false);
    expect(metrics.undecidedPlan).toBe(labels.filter((l) => l.label === 'undecided:first_turn_plan').length);
  });
});
