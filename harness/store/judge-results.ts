// Judges' results in run.db: labels in judge_labels (what the report reads), one judge_runs row
// per task and judge, and the answer cache. A task's result for one judge replaces the earlier
// one in a single transaction. Labels are read back as the judges' own JudgeLabel type.
import { z } from 'zod';
import { boundText } from '../errors.ts';
import type { AnswerCache, CachedAnswer, JudgeOutcome } from '../../judges/run-judge.ts';
import { judgeNames } from '../../judges/llm/registry.ts';
import type { Evidence, JudgeLabel, JudgeName } from '../../judges/types.ts';
import type { RunStore } from './run-store.ts';
import { sqlOf } from './database.ts';
import { DamagedRowError, flag, json, oneOf, parseRow } from './columns.ts';

/** Labels and evidence come from agents' text and models' answers: stored bounded. */
const MAX_DESCRIPTION = 1000;
const MAX_EVIDENCE_TEXT = 2000;

function boundEvidence(evidence: Evidence): Evidence {
  const text = boundText(evidence.text, MAX_EVIDENCE_TEXT);
  return evidence.kind === 'absence' ? { ...evidence, text, note: boundText(evidence.note, MAX_EVIDENCE_TEXT) } : { ...evidence, text };
}

const cacheRow = z.object({
  answer: json(z.unknown()),
  calls: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cost_usd: z.number(),
  latency_ms: z.number(),
});

/** The judges' answer cache in the run's store; a damaged entry is a miss (the question is asked again). */
export function judgeAnswerCache(store: RunStore): AnswerCache {
  const db = sqlOf(store);
  return {
    get(inputHash) {
      const parsed = cacheRow.safeParse(db.prepare('SELECT * FROM judge_cache WHERE input_hash = ?').get(inputHash));
      if (!parsed.success) return undefined;
      const row = parsed.data;
      const usage = { calls: row.calls, inputTokens: row.input_tokens, outputTokens: row.output_tokens, costUsd: row.cost_usd, latencyMs: row.latency_ms };
      return { answer: row.answer, usage } satisfies CachedAnswer;
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
export function saveJudgeOutcome(store: RunStore, taskId: number, outcome: JudgeOutcome): void {
  const db = sqlOf(store);
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

/** A label as stored: the judge's label and the model that gave it. */
export interface StoredLabel extends JudgeLabel {
  model: string;
}

const SOURCES = ['conversation', 'patch', 'merged', 'tests'] as const;
const evidenceItem = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('quote'),
    source: z.enum(SOURCES),
    text: z.string(),
    messageId: z.number().optional(),
    agent: z.string().optional(),
    file: z.string().optional(),
    feature: z.number().optional(),
  }),
  z.object({
    kind: z.literal('absence'),
    source: z.enum(['patch', 'merged']),
    text: z.string(),
    note: z.string(),
    agent: z.string().optional(),
    file: z.string().optional(),
  }),
  z.object({ kind: z.literal('fact'), text: z.string() }),
]);
/** Evidence as the judges store it; a plain string (early stores) reads as a fact of that text. */
const evidence: z.ZodType<Evidence, unknown> = z.union([evidenceItem, z.string().transform((text) => ({ kind: 'fact' as const, text }))]);

const labelRow = z
  .object({
    task: z.number(),
    // Read at each row: a judge registered after this module loaded (a test's) is known too.
    judge: z.lazy(() => oneOf(judgeNames())),
    label: z.string(),
    is_primary: flag,
    message_id: z.number().nullable(),
    agent: z.string().nullable(),
    description: z.string().nullable(),
    evidence: json(z.array(evidence)),
    model: z.string(),
  })
  .transform((r) => ({
    task: r.task,
    label: {
      judge: r.judge,
      label: r.label,
      isPrimary: r.is_primary,
      messageId: r.message_id ?? undefined,
      agent: r.agent ?? undefined,
      description: r.description ?? '',
      evidence: r.evidence,
      model: r.model,
    } satisfies StoredLabel,
  }));

/** A task's labels (of one judge, or all), in the order they were given. */
export function storedLabels(store: RunStore, taskId: number, judge?: JudgeName): StoredLabel[] {
  return sqlOf(store)
    .prepare(`SELECT * FROM judge_labels WHERE task = ? ${judge ? 'AND judge = ?' : ''} ORDER BY id`)
    .all(...(judge ? [taskId, judge] : [taskId]))
    .map((row) => parseRow(labelRow, row, { table: 'judge_labels', of: `task #${taskId}` }).label);
}

/** Every task's labels, by task; a damaged label is left out and named in `damaged`. */
export function labelsByTask(store: RunStore, keyOf: (task: number) => string, damaged: string[]): Map<number, StoredLabel[]> {
  const byTask = new Map<number, StoredLabel[]>();
  for (const row of sqlOf(store).prepare('SELECT * FROM judge_labels ORDER BY task, judge, id').all() as { task: number }[]) {
    try {
      const { task, label } = parseRow(labelRow, row, { table: 'judge_labels', of: `task ${keyOf(row.task)}` });
      byTask.set(task, [...(byTask.get(task) ?? []), label]);
    } catch (error) {
      if (!(error instanceof DamagedRowError)) throw error;
      damaged.push(`${error.message}: that label is left out of the report`);
    }
  }
  return byTask;
}
