// Judges' results in run.db: labels in judge_labels (what the report reads), one judge_runs row
// per task and judge, and the answer cache. A task's result for one judge replaces the earlier
// one in a single transaction.
import type Database from 'better-sqlite3';
import { boundText } from '../harness/errors.ts';
import type { AnswerCache, CachedAnswer, JudgeOutcome } from './run-judge.ts';
import type { Evidence, JudgeLabel, JudgeName } from './types.ts';

/** Labels and evidence come from agents' text and models' answers: stored bounded. */
const MAX_DESCRIPTION = 1000;
const MAX_EVIDENCE_TEXT = 2000;

function boundEvidence(evidence: Evidence): Evidence {
  const text = boundText(evidence.text, MAX_EVIDENCE_TEXT);
  return evidence.kind === 'absence' ? { ...evidence, text, note: boundText(evidence.note, MAX_EVIDENCE_TEXT) } : { ...evidence, text };
}

export function sqliteCache(db: Database.Database): AnswerCache {
  return {
    get(inputHash) {
      const row = db.prepare('SELECT * FROM judge_cache WHERE input_hash = ?').get(inputHash) as Record<string, unknown> | undefined;
      if (!row) return undefined;
      let answer: unknown;
      try {
        answer = JSON.parse(row.answer as string);
      } catch {
        return undefined;
      }
      const usage = {
        calls: row.calls as number,
        inputTokens: row.input_tokens as number,
        outputTokens: row.output_tokens as number,
        costUsd: row.cost_usd as number,
        latencyMs: row.latency_ms as number,
      };
      return { answer, usage } satisfies CachedAnswer;
    },
    put(inputHash, entry) {
      db.prepare(
        `INSERT OR REPLACE INTO judge_cache (input_hash, judge, model, prompt_version, answer, calls, input_tokens, output_tokens, cost_usd, latency_ms, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        inputHash,
        entry.judge,
        entry.model,
        entry.promptVersion,
        JSON.stringify(entry.answer),
        entry.usage.calls,
        entry.usage.inputTokens,
        entry.usage.outputTokens,
        entry.usage.costUsd,
        Math.round(entry.usage.latencyMs),
        new Date().toISOString(),
      );
    },
  };
}

/** Replaces the task's labels and judge_runs row for the outcome's judge. */
export function saveOutcome(db: Database.Database, taskId: number, outcome: JudgeOutcome): void {
  const now = new Date().toISOString();
  db.transaction(() => {
    db.prepare('DELETE FROM judge_labels WHERE task = ? AND judge = ?').run(taskId, outcome.judge);
    const insert = db.prepare(
      `INSERT INTO judge_labels (task, judge, label, is_primary, message_id, agent, description, evidence, model, input_hash, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const l of outcome.labels) {
      insert.run(
        taskId,
        l.judge,
        l.label,
        l.isPrimary ? 1 : 0,
        l.messageId ?? null,
        l.agent ?? null,
        boundText(l.description, MAX_DESCRIPTION),
        JSON.stringify(l.evidence.map(boundEvidence)),
        outcome.model,
        outcome.inputHash,
        now,
      );
    }
    const u = outcome.usage;
    db.prepare(
      `INSERT OR REPLACE INTO judge_runs (task, judge, status, reason, model, prompt_version, input_hash, labels, dropped_labels, dropped, metrics, cached,
         calls, input_tokens, output_tokens, cost_usd, latency_ms, judged_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      taskId,
      outcome.judge,
      outcome.status,
      outcome.reason ? boundText(outcome.reason, MAX_DESCRIPTION) : null,
      outcome.model,
      outcome.promptVersion,
      outcome.inputHash,
      outcome.labels.length,
      outcome.dropped.length,
      JSON.stringify(outcome.dropped.map((d) => ({ label: d.label, reason: boundText(d.reason, 500) }))),
      JSON.stringify(outcome.metrics),
      outcome.cached ? 1 : 0,
      u.calls,
      u.inputTokens,
      u.outputTokens,
      u.costUsd,
      Math.round(u.latencyMs),
      now,
    );
  })();
}

export interface StoredLabel extends JudgeLabel {
  model: string;
}

export function storedLabels(db: Database.Database, taskId: number, judge?: JudgeName): StoredLabel[] {
  const rows = db
    .prepare(`SELECT * FROM judge_labels WHERE task = ? ${judge ? 'AND judge = ?' : ''} ORDER BY id`)
    .all(...(judge ? [taskId, judge] : [taskId])) as Record<string, unknown>[];
  return rows.map((r) => ({
    judge: r.judge as JudgeName,
    label: r.label as string,
    isPrimary: r.is_primary === 1,
    messageId: (r.message_id as number | null) ?? undefined,
    agent: (r.agent as string | null) ?? undefined,
    description: (r.description as string | null) ?? '',
    evidence: JSON.parse(r.evidence as string) as Evidence[],
    model: r.model as string,
  }));
}
