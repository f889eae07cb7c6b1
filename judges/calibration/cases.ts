// The calibration set: hand-written conversations (JSON files in ./cases), each with the gold
// answer of every detector and judge it exercises. Patches, merge and tests are given where the
// case exercises the commitment checker or the symptom judge.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { ConversationMessage } from '../../harness/store/records.ts';
import { COMMUNICATION_ERRORS } from '../llm/communication.ts';
import { SPEECH_ACTS } from '../llm/speech-acts.ts';
import { SYMPTOMS } from '../llm/symptoms.ts';
import type { JudgeInput } from '../types.ts';

export const CALIBRATION_DIR = fileURLToPath(new URL('./cases', import.meta.url));

/** Long texts (patches, outputs, multi-line messages) may be written as a list of lines. */
const text = z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v.join('\n') : v));

const messageSchema = z.object({
  from: z.string(),
  /** Default: every other agent. */
  to: z.array(z.string()).optional(),
  text,
  act: z.enum(SPEECH_ACTS),
  /** Minutes after the start (default: the message's index). */
  sent: z.number().optional(),
  /** Minutes after the start when it reached its recipients; null: never (default: half a minute after sending). */
  delivered: z.number().nullable().optional(),
});

const caseSchema = z.object({
  id: z.string(),
  /** What the case is (an appendix H shape, a clean conversation, a detector edge). */
  shape: z.string(),
  agents: z.array(z.string()).default(['agent1', 'agent2']),
  messages: z.array(messageSchema),
  patches: z.record(z.string(), text).optional(),
  merge: z.object({ status: z.enum(['clean', 'union', 'llm', 'conflict', 'missing_input']), patch: text }).optional(),
  tests: z.array(z.object({ feature: z.number().int(), passed: z.boolean(), output: text })).optional(),
  gold: z.object({
    /** Message numbers (1-based) whose question never got an answer. */
    unanswered_question: z.array(z.number().int()),
    /**
     * Message numbers that restate an earlier message of the same sender in nearly the same words
     * (repetition in new words is the communication judge's C4a, not a near-duplicate).
     */
    near_duplicate: z.array(z.number().int()),
    first_turn_plan: z.boolean(),
    /** Message numbers with a promise or claim the tested code does not keep (scored where patches are given). */
    broken_commitment: z.array(z.number().int()),
    line_number_mentions: z.number().int(),
    file_path_mentions: z.number().int(),
    communication: z.enum(COMMUNICATION_ERRORS).nullable(),
    symptoms: z.object({ primary: z.enum(SYMPTOMS), secondary: z.array(z.enum(SYMPTOMS)).default([]) }).optional(),
  }),
});

export type CalibrationCase = z.infer<typeof caseSchema>;

const fileSchema = z.object({ cases: z.array(caseSchema) });

export function loadCalibrationSet(dir = CALIBRATION_DIR): CalibrationCase[] {
  const cases: CalibrationCase[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    const parsed = fileSchema.safeParse(JSON.parse(readFileSync(join(dir, name), 'utf8')));
    if (!parsed.success) throw new Error(`${name}: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    cases.push(...parsed.data.cases);
  }
  const ids = new Set<string>();
  for (const c of cases) {
    if (ids.has(c.id)) throw new Error(`calibration case ${c.id} appears twice`);
    ids.add(c.id);
  }
  return cases;
}

const START = Date.parse('2025-01-06T09:00:00Z');
const at = (minutes: number) => new Date(START + minutes * 60_000).toISOString();

/** The case as a judge sees a stored task: messages numbered from 1. */
export function caseInput(c: CalibrationCase): JudgeInput {
  const conversation: ConversationMessage[] = c.messages.map((m, i) => {
    const sent = m.sent ?? i;
    const to = m.to ?? c.agents.filter((a) => a !== m.from);
    const delivered = m.delivered === undefined ? sent + 0.5 : m.delivered;
    return {
      id: i + 1,
      from: m.from,
      to,
      message: m.text,
      sentAt: at(sent),
      deliveredAt: Object.fromEntries(to.map((r) => [r, delivered === null ? null : at(delivered)])),
    };
  });
  const evaluations = (c.tests ?? []).map((t) => ({ feature: t.feature, passed: t.passed, cause: t.passed ? null : 'tests failed', output: t.output }));
  return {
    conversation,
    patches: Object.entries(c.patches ?? {}).map(([agent, patch]) => ({ agent, patch })),
    merge: c.merge,
    evaluations,
    bothPassed: c.tests ? c.tests.every((t) => t.passed) : null,
  };
}
