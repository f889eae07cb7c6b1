// Belief probes in run.db (schema.ts, probes): written as each is answered, read back per task for
// the report's scoring (reports/analysis/probes.ts).
import { z } from 'zod';
import type { RunStore } from './run-store.ts';
import { sqlOf } from './database.ts';
import { STRING_LIST, jsonColumn, oneOf, parseRow } from './columns.ts';
import { boundText } from '../errors.ts';
import { MAX_ANSWER_CHARS, type Belief, type StoredProbe, type Touched } from '../../reports/analysis/probes.ts';
import type { Usage } from '../models/types.ts';

export interface ProbeRow {
  agentId: string;
  model: string;
  step: number;
  status: StoredProbe['status'];
  /** The model's answer, or the error of a call that failed. */
  answer: string;
  belief: Belief | null;
  partnersThen: Touched;
  usage: Pick<Usage, 'inputTokens' | 'outputTokens' | 'costUsd'>;
}

export function recordProbe(store: RunStore, taskId: number, p: ProbeRow): void {
  sqlOf(store)
    .prepare(
      `INSERT OR REPLACE INTO probes (task, agent, step, at, model, status, answer, belief, partners_touched, input_tokens, output_tokens, cost_usd)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      taskId,
      p.agentId,
      p.step,
      new Date().toISOString(),
      p.model,
      p.status,
      boundText(p.answer, MAX_ANSWER_CHARS),
      p.belief ? JSON.stringify(p.belief) : null,
      JSON.stringify(p.partnersThen),
      Math.max(0, Math.round(p.usage.inputTokens)),
      Math.max(0, Math.round(p.usage.outputTokens)),
      Math.max(0, p.usage.costUsd),
    );
}

const TOUCHED = z.strictObject({ files: STRING_LIST, functions: STRING_LIST });
const BELIEF = z.strictObject({ files: STRING_LIST, functions: STRING_LIST, conflict: z.boolean(), confidence: z.number().min(0).max(1) });
const row = z.object({
  agent: z.string(),
  model: z.string(),
  step: z.number().int().positive(),
  status: oneOf(['answered', 'unparsable', 'failed']),
  belief: z.string().nullable(),
  partners_touched: z.string(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cost_usd: z.number(),
});

/** A task's probes in agent and step order; a damaged row throws DamagedRowError. */
export function storedProbes(store: RunStore, taskId: number): StoredProbe[] {
  const rows = sqlOf(store).prepare('SELECT * FROM probes WHERE task = ? ORDER BY agent, step').all(taskId);
  const place = { table: 'probes', of: `task ${taskId}` };
  return rows.map((raw) => {
    const r = parseRow(row, raw, place);
    return {
      agentId: r.agent,
      model: r.model,
      step: r.step,
      status: r.status as StoredProbe['status'],
      belief: r.belief === null ? null : jsonColumn(r.belief, BELIEF, { ...place, column: 'belief' }),
      partnersThen: jsonColumn(r.partners_touched, TOUCHED, { ...place, column: 'partners_touched' }),
      costUsd: r.cost_usd,
      inputTokens: r.input_tokens,
      outputTokens: r.output_tokens,
    };
  });
}

/** What every probe of the run cost (USD): spending, kept apart from the agents' own calls. */
export function probeCostUsd(store: RunStore): number {
  return probeTally(store).costUsd;
}

/** The run's probes by status, and their cost (USD). */
export function probeTally(store: RunStore): Record<StoredProbe['status'], number> & { costUsd: number } {
  return sqlOf(store)
    .prepare(
      `SELECT COALESCE(SUM(status = 'answered'), 0) AS answered, COALESCE(SUM(status = 'unparsable'), 0) AS unparsable,
        COALESCE(SUM(status = 'failed'), 0) AS failed, COALESCE(SUM(cost_usd), 0) AS costUsd FROM probes`,
    )
    .get() as Record<StoredProbe['status'], number> & { costUsd: number };
}
