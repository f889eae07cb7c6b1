import { describe, expect, it } from 'vitest';
import { caseInput, loadCalibrationSet } from '../../../../judges/calibration/cases.ts';
import { runDetectors } from '../../../../judges/detectors/index.ts';
import type { JudgeLabel } from '../../../../judges/types.ts';

const detectCase = (id: string) => runDetectors(caseInput(loadCalibrationSet().find((c) => c.id === id)!));
const broken = (labels: JudgeLabel[]) => labels.filter((l) => /broken_checkable_commitment$/.test(l.label));

describe('broken commitments the detectors are not sure of', () => {
  it('leaves a place stated without its function undecided, says why and counts it apart from the labels', async () => {
    const { labels, metrics } = await detectCase('ind-tr4-go-closed-check-after-lock-placed-before');
    expect(broken(labels).map((l) => [l.label, l.messageId])).toEqual([
      ['undecided:broken_checkable_commitment', 1],
      ['undecided:broken_checkable_commitment', 3],
    ]);
    expect(broken(labels)[0]!.evidence.at(-1)).toMatchObject({ kind: 'fact', text: expect.stringMatching(/^undecided: .*without the function/) });
    expect(metrics.undecidedCommitments).toBe(2);
    expect(metrics.brokenCommitments).toBe(0);
  });

  it('leaves an export from a TypeScript index no patch shows undecided: it may re-export the whole module', async () => {
    const { labels } = await detectCase('ind-tr13-ts-shift-cues-star-export-clamp-in-return');
    expect(broken(labels).map((l) => l.label)).toEqual(['undecided:broken_checkable_commitment', 'undecided:broken_checkable_commitment']);
    expect(broken(labels)[0]!.evidence.at(-1)).toMatchObject({ text: expect.stringMatching(/export \* from/) });
  });

  it('leaves a promise read from free wording undecided: a function promised untouched that its patch edits', async () => {
    const { labels } = await detectCase('ind-tr2-your-function-edited-ts');
    expect(broken(labels).map((l) => [l.label, l.messageId])).toEqual([
      ['undecided:broken_checkable_commitment', 2],
      ['undecided:broken_checkable_commitment', 3],
    ]);
    expect(broken(labels)[0]!.evidence.at(-1)).toMatchObject({ text: expect.stringMatching(/^undecided: .*free wording.*--judge-model/) });
  });

  it('labels a broken promise whose target is written out: a line range the sender promised to stay out of and edited', async () => {
    const { labels } = await detectCase('ind-tr-bc-untouched-range-edited-p2a');
    expect(broken(labels).map((l) => [l.label, l.messageId])).toEqual([
      ['broken_checkable_commitment', 2],
      ['broken_checkable_commitment', 4],
    ]);
  });

  it('labels an export promised from a module the message names and missing from it', async () => {
    const { labels } = await detectCase('ind-tr3-ts-exported-not-exported-p2a');
    expect(broken(labels).map((l) => l.label)).toContain('broken_checkable_commitment');
  });
});
