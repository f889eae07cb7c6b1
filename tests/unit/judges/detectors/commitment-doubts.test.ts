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

  it('labels a broken promise it is sure of: a function promised untouched that its patch edits', async () => {
    const { labels } = await detectCase('ind-tr2-your-function-edited-ts');
    expect(labels.map((l) => l.label)).toContain('broken_checkable_commitment');
  });
});
