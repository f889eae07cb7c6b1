// A real run store in a temp folder holding calibration cases as finished Coop tasks, as the
// harness would have stored them (messages with deliveries, patches, merge, test results).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunStore } from '../../../harness/store/run-store.ts';
import type { Pool } from '../../../tasks/types.ts';
import { caseInput, loadCalibrationSet, type CalibrationCase } from '../../../judges/calibration/cases.ts';
import { storeDb } from '../../helpers/run-db.ts';

export interface StoredRun {
  runsDir: string;
  name: string;
  store: RunStore;
  /** Stores the case as a finished task; returns its task id. */
  addCase(c: CalibrationCase, taskId?: number): number;
  dispose(): void;
}

export function calibrationCase(id: string): CalibrationCase {
  const found = loadCalibrationSet().find((c) => c.id === id);
  if (!found) throw new Error(`no calibration case ${id}`);
  return found;
}

export function openStoredRun(name = 'judged'): StoredRun {
  const runsDir = mkdtempSync(join(tmpdir(), 'coop-bench-judges-'));
  const store = RunStore.open(runsDir, name, { create: true });
  let next = 1;
  return {
    runsDir,
    name,
    store,
    addCase(c, taskId = next++) {
      const pool: Pool = { repo: 'demo_task', taskId, dir: '/nonexistent', features: [], publishedImage: `demo:task${taskId}` };
      const id = store.ensureTask({ pool, features: [1, 2], setting: 'coop', models: ['noop', 'noop'], variant: '' }).id;
      const input = caseInput(c);
      const db = storeDb(store);
      const insertMessage = db.prepare('INSERT INTO messages (task, sender, recipients, body, sent_at) VALUES (?, ?, ?, ?, ?)');
      const insertDelivery = db.prepare('INSERT INTO message_deliveries (message, recipient, delivered_at) VALUES (?, ?, ?)');
      for (const m of input.conversation) {
        const row = insertMessage.run(id, m.from, JSON.stringify(m.to), m.message, m.sentAt);
        for (const [recipient, at] of Object.entries(m.deliveredAt)) insertDelivery.run(row.lastInsertRowid, recipient, at);
      }
      const agents = c.agents.map((agent) => ({ agent, patch: input.patches.find((p) => p.agent === agent)?.patch ?? '' }));
      for (const [i, a] of agents.entries()) {
        db.prepare('INSERT INTO agents (task, agent, model, features, status, error, steps, patch) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
          id,
          a.agent,
          'noop',
          JSON.stringify([i + 1]),
          'finished',
          null,
          3,
          a.patch,
        );
      }
      if (input.merge) {
        db.prepare(
          `INSERT INTO merges (task, status, strategy, conflict_regions, files, dropped_test_files, reason, patch, timings)
           VALUES (?, ?, ?, 0, '[]', '[]', NULL, ?, '{}')`,
        ).run(id, input.merge.status, input.merge.status, input.merge.patch);
      }
      for (const e of input.evaluations) {
        db.prepare(
          `INSERT INTO evaluations (task, feature, passed, exit_code, timed_out, framework, tests_passed, tests_failed, cause, output, duration_ms)
           VALUES (?, ?, ?, ?, 0, 'pytest', NULL, NULL, ?, ?, 100)`,
        ).run(id, e.feature, e.passed ? 1 : 0, e.passed ? 0 : 1, e.cause, e.output);
      }
      db.prepare(`UPDATE tasks SET status = 'done', both_passed = ?, finished_at = ? WHERE id = ?`).run(
        input.bothPassed === false ? 0 : 1,
        new Date().toISOString(),
        id,
      );
      return id;
    },
    dispose() {
      store.close();
      rmSync(runsDir, { recursive: true, force: true });
    },
  };
}
