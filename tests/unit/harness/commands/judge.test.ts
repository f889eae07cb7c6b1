import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UserError } from '../../../../harness/errors.ts';
import { casesOfSplit, loadCalibrationSet, SPLITS } from '../../../../judges/calibration/cases.ts';
import { goldBrokenCommitments } from '../../../../judges/calibration/score.ts';
import { brokenTargetItems } from '../../../../judges/calibration/targets.ts';
import { modelTestScores } from '../../../../judges/calibration/model-scores.ts';
import { loadReadings, readMeasurements, RUN_READINGS } from '../../../../judges/calibration/readings.ts';
import { join } from 'node:path';
import { errorReply, startFakeVllm, type FakeOpenAIServer } from '../../../fakes/openai-server.ts';
import { calibrationCase, openStoredRun, type StoredRun } from '../../judges/stored-task.ts';
import { runJudge } from '../../judges/run-judge-command.ts';

const LLM_ONLY = 'communication,symptoms,speech_acts,commitments';

describe('coop-bench judge', () => {
  let run: StoredRun;
  beforeEach(() => {
    run = openStoredRun('demo');
    run.addCase(calibrationCase('broken-commitment-constructor'));
    run.addCase(calibrationCase('unanswered-crossed-reply'));
  });
  afterEach(() => {
    run.dispose();
    process.exitCode = undefined;
  });

  it('labels a stored run without a model and shows each label with its evidence', async () => {
    const out = await runJudge(['--name', 'demo', '--runs-dir', run.runsDir]);
    expect(out).toContain('task 1 ');
    expect(out).toContain(
      '  detectors: 5 messages, 1 questions (0 without reply), 6 line-number and 1 file-path mentions, first-turn plan: no, 8 commitments checked',
    );
    // A parameter promised in words: the detectors are not sure of their reading, so the label is undecided, with its evidence.
    expect(out).toContain(
      '    undecided:broken_checkable_commitment (message 4, agent2): agent2 claimed `max_batch_size` in `__init__`, missing from the code',
    );
    expect(out).toContain('      “✓Line 26: Added BOTH parameters (fallback_processor and max_batch_size) to constructor signature.” (message 4, agent2)');
    expect(out).toContain('      missing: max_batch_size: `__init__` in the merged code (outlines/processors/base.py:22) has no parameter `max_batch_size`');
    expect(out).toContain('      `max_batch_size` is still used in process() at outlines/processors/base.py:63');
    // Message ids are the store's: the second task's messages come after the first's five.
    expect(out).toContain('    question_no_reply (message 6, agent1): agent1 asked agent2 a question and got no reply');
    expect(out).toContain(
      'Judged 2 tasks (0 skipped): 7 labels, 5 left undecided by the deterministic judges, 0 dropped because their evidence did not check out, 0 judge errors.',
    );
    // The initiative fallback reads the messages it is sure of and leaves the rest undecided.
    expect(out).toContain('  initiative [deterministic]: 4 taking initiative, 0 not, 1 undecided (the report needs a judge model to measure this team)');
    expect(out).toContain('    initiative (message 3, agent1): message 3: it plans the work (task initiative)');
    expect(out).toContain('No --judge-model: only the deterministic detectors and the initiative fallback ran (no model calls, $0).');
    expect(process.exitCode).toBe(0);
  });

  describe('with a judge model', () => {
    let server: FakeOpenAIServer;
    beforeEach(async () => {
      server = await startFakeVllm({
        served: ['judge'],
        handler: (request) =>
          /^You (?:classify|label)/.test(String(request.body.messages[0].content)) ? '{"messages": []}' : '{"evidence": [], "issue": null, "primary": null}',
      });
    });
    afterEach(() => server.close());

    it("prints the judges' cost, and answers a second run from the cache", async () => {
      const spec = `openai:judge@${server.url}`;
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      try {
        const first = await runJudge(['--name', 'demo', '--runs-dir', run.runsDir, '--judge-model', spec]);
        expect(first).toContain(`  communication [${spec}]: no label`);
        expect(first).toContain(`Judge model ${spec}: 9 model calls, 90 input + 45 output tokens, $0.0000 (0 answers from the cache, no call).`);
        const calls = server.requests.length;
        const second = await runJudge(['--name', 'demo', '--runs-dir', run.runsDir, '--judge-model', spec]);
        expect(server.requests).toHaveLength(calls);
        expect(second).toContain(`  communication [${spec}, cached]: no label`);
        expect(second).toContain(`Judge model ${spec}: 0 model calls, 0 input + 0 output tokens, $0.0000 (9 answers from the cache, no call).`);
      } finally {
        warn.mockRestore();
      }
    });
  });

  it('prints the definitions and the calibration table of the detectors for both splits', { timeout: 300_000 }, async () => {
    const out = await runJudge(['--calibrate']);
    expect(out).toMatch(/^Detector labels \(judges\/definitions\.ts\):\n {2}first_turn_plan: /);
    expect(out).toMatch(/\nDeterministic detectors, train split \(\d+ calibration conversations\)\n {2}label {26}TP {2}FP {2}FN {2}precision {2}recall\n/);
    expect(out).toMatch(/\nDeterministic detectors, test split \(\d+ calibration conversations\)\n/);
    expect(out).toMatch(/\n {2}broken_checkable_commitment +\d+ +\d+ +\d+ +\d\.\d\d +\d\.\d\d\n/);
    expect(out).toContain('  line_number_mentions: exact on');
    expect(out).toContain('  paraphrases labelled like their original: ');
    // Each rule of the detectors' tables with its decisions, right and wrong, for each split.
    expect(out.match(/\n {4}question_no_reply lead-in-request +\d+ +\d+ +\d+\n/g)).toHaveLength(2);
    // The label by the kind of each broken promise, for each split.
    expect(
      out.match(/\n {2}broken_checkable_commitment by the kind of the broken promise.*\n.*\n {4}exists +\d+ +\d+ +\d+ .*\n(.*\n){3} {4}placement +\d+/g),
    ).toHaveLength(2);
    // The code checks scored alone, on every commitment as the gold reads it, for each split.
    expect(
      out.match(
        /\n {2}the code checks alone, on the gold's reading of every commitment .*\n.*\n {4}broken_checkable_commitment +\d+ +\d+ +\d+ +\d\.\d\d +\d\.\d\d\n/g,
      ),
    ).toHaveLength(2);
  });

  it('prints the calibration table of the LLM judges too, with a judge model, split by split, and stores it for reports', { timeout: 300_000 }, async () => {
    // A judge that calls every message a plan and finds no communication error or symptom.
    const server = await startFakeVllm({
      served: ['judge'],
      handler: (request) => {
        const system = String(request.body.messages[0].content);
        const user = String(request.body.messages.at(-1).content);
        if (!system.startsWith('You classify')) return '{"evidence": [], "issue": null, "primary": null}';
        // The quote: the message's first 40 characters, lines joined (quotes are compared whitespace-normalised).
        const messages = [...user.matchAll(/<<<\w+ BEGIN message id=(\d+)[^\n]*>>>\n((?:(?!\n<<<)[\s\S]){1,40})/g)];
        return JSON.stringify({ messages: messages.map((m) => ({ id: Number(m[1]), act: 'plan', quote: m[2]!.replace(/\s+/g, ' ').trim() })) });
      },
    });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const cases = loadCalibrationSet();
      const spec = `openai:judge@${server.url}`;
      const readingsDir = join(run.runsDir, RUN_READINGS);
      const out = await runJudge(['--calibrate', '--judge-model', spec, '--record', '--write-scores', '--only', LLM_ONLY, '--readings-dir', readingsDir]);
      const readings = loadReadings(readingsDir, spec);
      expect(out).toContain(`Wrote ${spec}'s calibration figures, scored from its readings (shown in reports beside the labels it gave), to ${readings.file}`);
      const stored = readings.scores;
      for (const split of SPLITS) {
        const part = out.slice(out.indexOf(`LLM judges (openai:judge@${server.url}), ${split} split`));
        const mine = casesOfSplit(cases, split);
        const clean = mine.filter((c) => c.gold.communication === null).length;
        const plans = mine.flatMap((c) => c.messages).filter((m) => m.act === 'plan').length;
        const c1a = mine.filter((c) => c.gold.communication === 'C1a').length;
        // The model lists no commitment: every broken one of the cases with patches is missed, counted
        // per target where the case lists its commitments, per message where it gives only those.
        const broken = mine
          .filter((c) => c.patches)
          .reduce((n, c) => n + (c.gold.commitments ? brokenTargetItems(c, []).gold.length : goldBrokenCommitments(c).length), 0);
        expect(part).toContain(`  clean conversations left without a communication error: ${clean}/${clean}`);
        expect(part).toMatch(new RegExp(`speech_acts\\s+plan\\s+${plans}\\s+\\d+\\s+0 `));
        expect(part).toMatch(new RegExp(`communication\\s+C1a\\s+0\\s+0\\s+${c1a}\\s+-\\s+0\\.00`));
        expect(part).toMatch(new RegExp(`commitments\\s+broken_checkable_commitment\\s+0\\s+0\\s+${broken}\\s+-\\s+0\\.00`));
        const exists = mine.reduce((n, c) => n + new Set((c.gold.commitments ?? []).filter((x) => x.kind === 'exists').map((x) => x.message)).size, 0);
        expect(part).toMatch(new RegExp(`commitments the commitments judge read, by kind and message .*\\n.*\\n\\s+exists\\s+0\\s+0\\s+${exists}\\s`));
        expect(part).toContain('labels dropped because their evidence did not check out: 0; judge errors: 0');
        // What the report shows beside the labels this model gives: the same counts, of this prompt and these checks.
        if (split === 'test') {
          expect(modelTestScores(stored, 'commitments', spec)).toEqual({
            cases: mine.length,
            labels: [{ label: 'broken_checkable_commitment', tp: 0, fp: 0, fn: broken }],
          });
        }
        expect(stored.find((m) => m.judge === 'communication')!.splits[split].labels.find((l) => l.label === 'C1a')).toEqual({
          label: 'C1a',
          tp: 0,
          fp: 0,
          fn: c1a,
        });
      }
    } finally {
      warn.mockRestore();
      await server.close();
    }
  });

  it("does not store a model's figures when some of its answers failed", { timeout: 300_000 }, async () => {
    // A judge model that rejects every question: its figures would count each failure as no label.
    const server = await startFakeVllm({ served: ['judge'], handler: () => errorReply(400, 'context too long') });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const spec = `openai:judge@${server.url}`;
      const readingsDir = join(run.runsDir, RUN_READINGS);
      const out = await runJudge(['--calibrate', '--judge-model', spec, '--record', '--write-scores', '--only', LLM_ONLY, '--readings-dir', readingsDir]);
      expect(out).toMatch(
        new RegExp(`Not saved: \\d+ question\\(s\\) to ${spec.replace(/[.:/]/g, '\\$&')} failed \\(listed above\\); run again to measure it whole\\.`),
      );
      expect(readMeasurements([readingsDir])).toEqual([]);
      expect(process.exitCode).toBe(1);
    } finally {
      warn.mockRestore();
      await server.close();
    }
  });

  it('asks for a run name', async () => {
    await expect(runJudge([])).rejects.toThrow(UserError);
  });
});
