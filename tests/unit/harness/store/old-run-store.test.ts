// A run.db written before the merge cascade was stored as attempts (schema 6: stage columns on
// `merges`) opens, migrates, and still reports: every merge becomes its attempts, the report's
// merge table counts as before, and the union order is "not measured" until `coop-bench eval`.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeLegacyRun, type LegacyTask } from '../../../helpers/legacy-run.ts';
import { RunStore } from '../../../../harness/store/run-store.ts';
import { loadTaskRecord } from '../../../../harness/store/records.ts';
import { attemptsOf } from '../../../../harness/store/stored-attempts.ts';
import { formatSummary, summarize } from '../../../../harness/run/summary.ts';
import { summarizeRun } from '../../../../reports/summary.ts';
import { loadRunData, writeReport } from '../../../../harness/run/write-report.ts';
import { storeDb } from '../../../helpers/run-db.ts';

const features = (i: number) => [1, i + 2];
const legacy: LegacyTask[] = [
  { features: features(0), merge: { status: 'clean' }, passed: true, patches: ['patch a\n', 'patch b\n'] },
  { features: features(1), merge: { status: 'union' }, passed: true },
  { features: features(2), merge: { status: 'union', llm: { outcome: 'skipped', reason: 'no resolver configured' } }, passed: false },
  {
    features: features(3),
    merge: { status: 'union', llm: { outcome: 'rejected', reason: 'changed text outside the region', regions: '[{"accepted": false, "answer": "cut off…' } },
    passed: false,
  },
  { features: features(4), merge: { status: 'llm', llm: { outcome: 'accepted', regions: '[{"accepted":true}]' } }, passed: true },
  { features: features(5), merge: { status: 'conflict' }, passed: false },
  { features: features(6), merge: { status: 'missing_input' }, passed: false },
  { features: features(7), setting: 'solo', merge: { status: 'clean' }, passed: true },
];

describe('a run.db from before merge attempts', () => {
  const runs = mkdtempSync(join(tmpdir(), 'old-run-store-'));
  writeLegacyRun(runs, 'old', legacy);
  const store = RunStore.open(runs, 'old', { create: false });
  const ids = store.tasks().map((t) => t.id);

  it('migrates every merge to its attempts, with the hash of the tested patch', () => {
    const stages = ids.map((id) =>
      attemptsOf(store, id).map((a) => `${a.stage} ${a.outcome}${a.final ? ' final' : ''}${a.passed === null ? '' : a.passed ? ' pass' : ' fail'}`),
    );
    expect(stages).toEqual([
      ['naive merged final pass'],
      ['naive conflict', 'union merged final pass'],
      ['naive conflict', 'union merged final fail', 'llm skipped'],
      ['naive conflict', 'union merged final fail', 'llm rejected'],
      ['naive conflict', 'union merged fail', 'llm merged final pass'],
      ['naive conflict', 'union conflict'],
      [],
      ['naive merged final pass'],
    ]);
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(attemptsOf(store, ids[1]!)[1]).toMatchObject({
      patchHash: sha('patch 1\n'),
      tests: [
        { feature: 1, passed: true, cached: false },
        { feature: 3, passed: true, cached: false },
      ],
      durationMs: 2,
    });
    const llm = attemptsOf(store, ids[4]!)[2]!;
    expect(llm).toMatchObject({
      patchHash: sha('patch 4\n'),
      details: { model: 'resolver@http://127.0.0.1:8080/v1', latencyMs: 12.5, regions: [{ accepted: true }] },
    });
    // A regions column cut off when it was stored is kept out, not a failed migration.
    expect(attemptsOf(store, ids[3]!)[2]).toMatchObject({ reason: 'changed text outside the region', details: { regions: [] } });
    expect((storeDb(store).prepare('PRAGMA table_info(merges)').all() as { name: string }[]).map((c) => c.name)).toEqual([
      'task',
      'status',
      'strategy',
      'conflict_regions',
      'files',
      'dropped_test_files',
      'reason',
      'patch',
      'timings',
    ]);
  });

  it('still reports: merge table as before, union order not measured', () => {
    const record = loadTaskRecord(store, ids[4]!);
    expect(record.merge).toMatchObject({ status: 'llm', naiveClean: false, patch: 'patch 4\n' });
    const coop = summarizeRun(loadRunData(store)).merges.rows[0]!.byVariant['']!;
    expect(coop.passedBy.map((p) => p.rate.k)).toEqual([1, 2, 3]);
    expect(coop.tasks).toBe(7);
    expect(coop.conflictRate).toMatchObject({ k: 5, n: 6 });
    expect(coop.order).toEqual({ measured: 0, decided: 0, unmeasured: 4 });
    const summary = formatSummary('old', summarize(store));
    expect(summary).toMatch(/merge clean\/structural\/union\/llm\/conflict\/missing_input\s+union order decided\s+pass after structural/);
    expect(summary).toMatch(/oracle\s+coop\s+7\s+7\s+3\/7 \(42\.9%\)\s+0\s+0\s+0\s+1\/0\/3\/1\/1\/1\s+-\s+1\/1 \(100\.0%\), 5 not measured/);
    expect(coop.structural).toMatchObject({ rate: { k: 1, n: 1 }, unmeasured: 5 });
  });

  it("reads every agent of the old run as a model's seat, with no active time", () => {
    const agents = ids.flatMap((id) => loadTaskRecord(store, id).agents);
    expect(agents.length).toBeGreaterThan(0);
    expect(new Set(agents.map((a) => `${a.seat} ${a.activeMs}`))).toEqual(new Set(['model null']));
  });

  it('renders the HTML report', () => {
    store.close();
    const html = readFileSync(writeReport({ runsDir: runs, name: 'old', format: 'html' }).path, 'utf8');
    expect(html).toContain('Union order decided');
    expect(html).toContain('not measured (4)');
  });
});
