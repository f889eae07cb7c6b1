import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { writeReport } from '../../../../harness/run/write-report.ts';
import { storedLabels } from '../../../../harness/store/judge-results.ts';
import { withMeasurements } from '../../../../judges/calibration/model-scores.ts';
import { loadReadings, RUN_READINGS, saveReadings } from '../../../../judges/calibration/readings.ts';
import { scoreLlmJudges } from '../../../../judges/calibration/score.ts';
import { judgeNames, registerLlmJudge, unregisterLlmJudge } from '../../../../judges/llm/registry.ts';
import { startFakeVllm, type FakeOpenAIServer } from '../../../fakes/openai-server.ts';
import { DUMMY_SYSTEM, dummyJudge } from '../dummy-judge.ts';
import { fakeModel } from '../fake-model.ts';
import { runJudge } from '../run-judge-command.ts';
import { calibrationCase, openStoredRun, type StoredRun } from '../stored-task.ts';

/** The judge model's answers: a plan to the dummy judge, nothing to the others. */
function answer(system: string): string {
  if (system === DUMMY_SYSTEM) return '{"plan": true}';
  return system.startsWith('You classify') ? '{"messages": []}' : '{"evidence": [], "issue": null, "primary": null}';
}

describe('an LLM judge added with one registry line', () => {
  let run: StoredRun;
  let server: FakeOpenAIServer;
  let warn: ReturnType<typeof vi.spyOn>;
  beforeAll(() => registerLlmJudge(dummyJudge));
  afterAll(() => unregisterLlmJudge(dummyJudge.name));
  beforeEach(async () => {
    run = openStoredRun('demo');
    run.addCase(calibrationCase('broken-commitment-constructor'));
    server = await startFakeVllm({ served: ['judge'], handler: (request) => answer(String(request.body.messages[0].content)) });
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  });
  afterEach(async () => {
    warn.mockRestore();
    await server.close();
    run.dispose();
    process.exitCode = undefined;
  });

  it('is named by --only, and its labels are stored', async () => {
    expect(judgeNames()).toContain('opening_plan');
    const spec = `openai:judge@${server.url}`;
    const out = await runJudge(['--name', 'demo', '--runs-dir', run.runsDir, '--judge-model', spec, '--only', 'opening_plan']);
    expect(out).toContain(`  opening_plan [${spec}]: `);
    expect(out).not.toContain('  communication [');
    expect(server.requests.map((r) => r.body.messages[0].content)).toEqual([DUMMY_SYSTEM]);
    expect(storedLabels(run.store, 1, 'opening_plan')).toMatchObject([{ judge: 'opening_plan', label: 'opening_plan', messageId: 1, model: spec }]);
    expect(process.exitCode).toBe(0);
  });

  it('is calibrated on the cases, and the report shows its labels beside its figures', async () => {
    const spec = `openai:judge@${server.url}`;
    const cases = [calibrationCase('broken-commitment-constructor'), calibrationCase('unanswered-crossed-reply')];
    const scores = await scoreLlmJudges(
      cases,
      fakeModel((request) => answer(request.system ?? ''), spec),
      { timeoutMs: 5000 },
    );
    const plans = cases.filter((c) => c.gold.first_turn_plan).length;
    expect(scores.labels.find((l) => l.judge === 'opening_plan')).toEqual({
      judge: 'opening_plan',
      label: 'opening_plan',
      tp: plans,
      fp: cases.length - plans,
      fn: 0,
    });
    // The figures a report shows come from the model's readings file in the runs folder.
    const readings = loadReadings(join(run.runsDir, RUN_READINGS), spec);
    saveReadings({
      ...readings,
      scores: withMeasurements(readings.scores, spec, { train: { cases: 0, labels: [] }, test: { cases: cases.length, labels: scores.labels } }),
    });

    await runJudge(['--name', 'demo', '--runs-dir', run.runsDir, '--judge-model', spec, '--only', 'opening_plan']);
    const html = readFileSync(writeReport({ runsDir: run.runsDir, name: 'demo', format: 'html' }).path, 'utf8');
    const precision = (plans / cases.length).toFixed(2);
    expect(html).toMatch(
      new RegExp(
        `<td>opening_plan</td><td>an opening plan</td><td class="num">1</td><td class="num">1</td><td>opening_plan</td><td class="num">1</td><td class="num">${precision}`,
      ),
    );
  });
});
