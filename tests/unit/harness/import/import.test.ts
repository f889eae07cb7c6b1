// `coop-bench import` on the shipped CooperBench-layout fixtures and on hostile logs: what lands in
// the store, what each task is reported to lack, and what is never read.
import { afterAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../../harness/paths.ts';
import { importLogs, type ImportReport } from '../../../../harness/import/import-logs.ts';
import { isoTime } from '../../../../harness/import/log-files.ts';
import { inferZone, parseZone } from '../../../../harness/import/time-zone.ts';
import { RunStore } from '../../../../harness/store/run-store.ts';
import { loadTaskRecord, type TaskRecord } from '../../../../harness/store/records.ts';

const FIXTURES = join(PROJECT_ROOT, 'tests/fixtures/cooperbench-logs');
const temp = mkdtempSync(join(tmpdir(), 'coop-bench-import-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

let counter = 0;
function importInto(source: string, variant?: string): { report: ImportReport; records: TaskRecord[] } {
  const runsDir = join(temp, `runs${counter++}`);
  const report = importLogs(source, { runsDir, name: 'imported', variant });
  const store = RunStore.open(runsDir, 'imported', { create: false });
  try {
    return { report, records: store.tasks().map((t) => loadTaskRecord(store, t.id)) };
  } finally {
    store.close();
  }
}

const byFolder = (report: ImportReport, folder: string) => report.tasks.find((t) => t.folder === folder)!;
const byKey = (records: TaskRecord[], key: string) => records.find((r) => r.key === key)!;

describe('import of CooperBench logs', () => {
  const { report, records } = importInto(FIXTURES);

  it('stores every task folder of both runs under coop-bench task keys', () => {
    expect(report.runs).toEqual(['gpt5-coop', 'gpt5-solo']);
    expect(records.map((r) => r.key).sort()).toEqual([
      'gpt-5+gpt-5|coop|dspy_task/task8394|f1_f2',
      'gpt-5+gpt-5|coop|dspy_task/task8394|f1_f3',
      'gpt-5+gpt-5|coop|dspy_task/task8394|f2_f3',
      'gpt-5+gpt-5|coop|go_chi_task/task26|f1_f2',
      'gpt-5+gpt-5|coop|go_chi_task/task26|f1_f3',
      'gpt-5+gpt-5|coop|go_chi_task/task26|f2_f3',
      'gpt-5|solo|dspy_task/task8394|f1_f2',
      'gpt-5|solo|dspy_task/task8394|f1_f3',
      'gpt-5|solo|go_chi_task/task26|f1_f2',
    ]);
  });

  it('takes the verdicts from eval.json and maps the merge outcome', () => {
    const clean = byKey(records, 'gpt-5+gpt-5|coop|dspy_task/task8394|f1_f2');
    expect(clean).toMatchObject({ status: 'done', bothPassed: true, merge: { status: 'clean', naiveClean: true } });
    expect(clean.evaluations.map((e) => [e.feature, e.passed])).toEqual([
      [1, true],
      [2, true],
    ]);
    const union = byKey(records, 'gpt-5+gpt-5|coop|dspy_task/task8394|f1_f3');
    expect(union).toMatchObject({ bothPassed: false, merge: { status: 'union', naiveClean: false } });
    expect(union.merge!.attempts.map((a) => [a.stage, a.outcome, a.passed, a.final])).toEqual([
      ['naive', 'conflict', null, false],
      ['union', 'merged', false, true],
    ]);
    expect(union.evaluations.map((e) => [e.feature, e.passed])).toEqual([
      [1, true],
      [3, false],
    ]);
    expect(byKey(records, 'gpt-5+gpt-5|coop|dspy_task/task8394|f2_f3').merge).toMatchObject({ status: 'clean', reason: expect.stringContaining('identical') });
    const lead = byKey(records, 'gpt-5+gpt-5|coop|go_chi_task/task26|f1_f2');
    expect(lead).toMatchObject({ bothPassed: true, merge: { status: 'conflict', reason: expect.stringContaining("agent1's patch alone") } });
  });

  it('keeps patches by feature (agent<feature>.patch), the conversation with its times, and each agent\u2019s cost', () => {
    const task = byKey(records, 'gpt-5+gpt-5|coop|dspy_task/task8394|f1_f3');
    expect(task.agents.map((a) => [a.agent, a.features, a.status])).toEqual([
      ['agent1', [1], 'finished'],
      ['agent2', [3], 'finished'],
    ]);
    expect(task.agents[1]!.patch).toContain('+feature 3');
    expect(task.conversation.map((m) => [m.from, m.to, m.sentAt])).toEqual([
      ['agent1', ['agent2'], '2025-11-02T09:00:01.250Z'],
      ['agent2', ['agent1'], '2025-11-02T09:00:10.500Z'],
    ]);
    expect(task.modelCalls.map((c) => [c.agent, c.costUsd])).toEqual([
      ['agent1', 0.12],
      ['agent2', 0.08],
    ]);
    expect(task.steps.filter((s) => s.agent === 'agent1').map((s) => s.kind)).toEqual(['note', 'model', 'note']);
    expect(task.startedAt).toBe('2025-11-02T09:00:00.000Z');
    const limits = byKey(records, 'gpt-5+gpt-5|coop|go_chi_task/task26|f1_f2').agents[1]!;
    // mini.yaml's only limit is a $3 cost limit: an agent stopped under it hit a step limit of the run's config.
    expect(limits).toMatchObject({
      status: 'step_limit',
      error: "CooperBench status LimitsExceeded: cost $0.08 stayed under mini.yaml's cost_limit of $3: a step_limit from the run's config",
    });
  });

  it('stores an unevaluated task as interrupted and a failed evaluation as an error, saying why, instead of guessing verdicts', () => {
    const unevaluated = byKey(records, 'gpt-5+gpt-5|coop|go_chi_task/task26|f1_f3');
    expect(unevaluated).toMatchObject({ status: 'interrupted', bothPassed: null, evaluations: [] });
    expect(unevaluated.error).toMatch(/no eval\.json/);
    expect(unevaluated.agents).toHaveLength(2);
    expect(byFolder(report, 'gpt5-coop/coop/go_chi_task/26/f1_f3')).toMatchObject({ outcome: 'interrupted', notes: [expect.stringMatching(/no eval\.json/)] });
    const failed = byKey(records, 'gpt-5+gpt-5|coop|go_chi_task/task26|f2_f3');
    expect(failed).toMatchObject({ status: 'error', error: 'CooperBench evaluation error: Sandbox timed out' });
  });

  it('reports a missing conversation for its task and stores the rest of it', () => {
    expect(byFolder(report, 'gpt5-coop/coop/dspy_task/8394/f2_f3')).toMatchObject({
      outcome: 'done',
      notes: [expect.stringMatching(/no conversation\.json: the conversation is unknown/)],
    });
    expect(byFolder(report, 'gpt5-coop/coop/dspy_task/8394/f1_f2').notes).toEqual([]);
  });

  it('stores Solo as one agent with solo.patch', () => {
    const solo = byKey(records, 'gpt-5|solo|go_chi_task/task26|f1_f2');
    expect(solo).toMatchObject({ status: 'done', bothPassed: false, models: ['gpt-5'] });
    expect(solo.agents.map((a) => [a.agent, a.features])).toEqual([['agent1', [1, 2]]]);
    expect(solo.agents[0]!.patch).toContain('+features 1 2');
  });

  it('imports one run given by its own folder, with the ablation the logs do not record', () => {
    const one = importInto(join(FIXTURES, 'gpt5-solo'), 'no-messaging');
    expect(one.report.runs).toEqual(['gpt5-solo']);
    expect(one.records.map((r) => r.variant)).toEqual(['no-messaging', 'no-messaging', 'no-messaging']);
  });

  it('refuses to write into an existing run, and a folder with no task logs', () => {
    const runsDir = join(temp, 'existing');
    importLogs(join(FIXTURES, 'gpt5-solo'), { runsDir, name: 'r' });
    expect(() => importLogs(join(FIXTURES, 'gpt5-solo'), { runsDir, name: 'r' })).toThrow(/already exists/);
    expect(() => importLogs(join(PROJECT_ROOT, 'docs'), { runsDir, name: 'r2' })).toThrow(/no task logs under/);
  });
});

describe('import of hostile logs', () => {
  const logs = join(temp, 'hostile');
  const task = join(logs, 'run', 'coop', 'dspy_task', '8394');
  cpSync(join(FIXTURES, 'gpt5-coop', 'coop', 'dspy_task', '8394'), task, { recursive: true });
  const secret = join(temp, 'secret.txt');
  writeFileSync(secret, 'SECRET OUTSIDE THE LOGS');
  // A patch that is a link out of the logs folder; a task folder that is a link; a wrong field type.
  rmSync(join(task, 'f1_f2', 'agent1.patch'));
  symlinkSync(secret, join(task, 'f1_f2', 'agent1.patch'));
  mkdirSync(join(temp, 'outside', 'f1_f4'), { recursive: true });
  cpSync(join(task, 'f1_f3'), join(temp, 'outside', 'f1_f4'), { recursive: true });
  symlinkSync(join(temp, 'outside', 'f1_f4'), join(task, 'f1_f4'));
  writeFileSync(join(task, 'f1_f3', 'result.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(task, 'f1_f3', 'result.json'), 'utf8')), model: 42 }));
  writeFileSync(join(task, 'f2_f3', 'eval.json'), '{"both_passed": tru');
  mkdirSync(join(task, 'notes'));
  const { report, records } = importInto(logs);

  it('never reads through a link, and says so', () => {
    const f12 = byFolder(report, 'run/coop/dspy_task/8394/f1_f2');
    expect(f12.notes).toContain('agent1: agent1.patch is a link: not followed (evaluated as an empty patch, as CooperBench does)');
    const stored = JSON.stringify(records);
    expect(stored).not.toContain('SECRET OUTSIDE');
    expect(report.ignored).toContain('run/coop/dspy_task/8394/f1_f4: a link: not followed');
    expect(records.some((r) => r.features.includes(4))).toBe(false);
  });

  it('skips a task whose result.json has wrong fields, naming the field, and stores broken JSON as an error', () => {
    expect(byFolder(report, 'run/coop/dspy_task/8394/f1_f3')).toMatchObject({
      outcome: 'skipped',
      reason: expect.stringMatching(/^result\.json does not have the expected fields: model:/),
    });
    expect(byFolder(report, 'run/coop/dspy_task/8394/f2_f3')).toMatchObject({
      outcome: 'error',
      notes: expect.arrayContaining([expect.stringMatching(/eval\.json is not JSON/)]),
    });
    expect(report.ignored).toContain('run/coop/dspy_task/8394/notes: not a features folder (f<i>_f<j>)');
  });
});

describe('times in the logs', () => {
  it('reads Python isoformat (no zone, microseconds) as UTC and epoch seconds', () => {
    expect(isoTime('2025-11-02T09:00:00.123456')).toBe('2025-11-02T09:00:00.123Z');
    expect(isoTime('2025-11-02T09:00:00+02:00')).toBe('2025-11-02T07:00:00.000Z');
    expect(isoTime(1762074001.25)).toBe('2025-11-02T09:00:01.250Z');
    expect(isoTime('yesterday')).toBeUndefined();
    expect(isoTime(null)).toBeUndefined();
  });
});

describe('the zone of zone-less local times', () => {
  const wall = (text: string) => Date.parse(`${text}Z`);
  const utc = (text: string) => Date.parse(text);

  it('takes the offset that puts every epoch time inside its task, the first event just after the start', () => {
    // A task from 14:00 to 16:00 local whose events run 12:01..13:58 UTC: UTC+02:00, not another offset the long task also fits.
    const zone = inferZone([
      { startWall: wall('2026-03-02T14:00:00'), endWall: wall('2026-03-02T16:00:00'), epochs: [utc('2026-03-02T12:01:00Z'), utc('2026-03-02T13:58:00Z')] },
    ])!;
    expect(zone.label).toMatch(/^UTC\+02:00 \(inferred from 2 epoch timestamps in 1 task folder\)$/);
    expect(new Date(zone.toUtc(wall('2026-03-02T14:00:00'))).toISOString()).toBe('2026-03-02T12:00:00.000Z');
    const half = inferZone([{ startWall: wall('2026-03-04T12:00:00'), endWall: wall('2026-03-04T12:04:00'), epochs: [utc('2026-03-04T06:30:20Z')] }])!;
    expect(half.label).toMatch(/^UTC\+05:30/);
    expect(inferZone([{ startWall: 0, endWall: 1, epochs: [] }])).toBeUndefined();
  });

  it('reads --timezone as UTC, an offset or a zone name with its daylight saving', () => {
    expect(new Date(parseZone('-05:00').toUtc(wall('2026-03-03T10:00:00'))).toISOString()).toBe('2026-03-03T15:00:00.000Z');
    expect(new Date(parseZone('Europe/Berlin').toUtc(wall('2026-01-15T12:00:00'))).toISOString()).toBe('2026-01-15T11:00:00.000Z');
    expect(new Date(parseZone('Europe/Berlin').toUtc(wall('2026-07-15T12:00:00'))).toISOString()).toBe('2026-07-15T10:00:00.000Z');
    expect(parseZone('UTC').toUtc(5)).toBe(5);
    expect(() => parseZone('Mars/Olympus')).toThrow(/is not a time zone/);
    expect(() => parseZone('+15:00')).toThrow(/offsets run from/);
  });
});
