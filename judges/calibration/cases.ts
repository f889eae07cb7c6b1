// The calibration set: hand-written conversations (JSON files in ./cases), each with the gold
// answer of every detector and judge it exercises, written to the definitions in ../definitions.ts.
// Patches, merge and tests are given where the case exercises the commitment checker or the symptom
// judge. A file says which split its cases belong to: `train` (the detectors may be tuned on them;
// the default) or `test` (held out: only their aggregate scores are looked at). A case written as
// a paraphrase of another names it in `paraphrase_of` and must get the same labels.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { ConversationMessage } from '../types.ts';
import { COMMITMENT_KINDS, COMMUNICATION_ERRORS, SPEECH_ACTS, SYMPTOMS } from '../definitions.ts';
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

/** A commitment the case's author found in a message, and whether the code keeps it. */
const commitmentSchema = z.object({
  /** Message number (1-based). */
  message: z.number().int(),
  kind: z.enum(COMMITMENT_KINDS),
  /** What it commits to, as the author wrote it (a symbol, a line range, a place). */
  target: z.string().default(''),
  kept: z.boolean(),
  /** The later message in which the sender took the promise back: then it is not broken. */
  withdrawn: z.number().int().optional(),
  /** accepted_request: the requesting message, and the kind the request reduces to. */
  request: z.number().int().optional(),
  as: z.enum(COMMITMENT_KINDS).optional(),
  /** placement: the placed code as the kept code has it, and where it sits, in words. */
  code: z.string().optional(),
  detail: z.string().optional(),
});

export const SPLITS = ['train', 'test'] as const;
export type Split = (typeof SPLITS)[number];

const caseSchema = z.object({
  id: z.string(),
  /** The case this one rewords: it must get the same labels. */
  paraphrase_of: z.string().optional(),
  /** What the case is (an appendix H shape, a clean conversation, a detector edge). */
  shape: z.string(),
  agents: z.array(z.string()).default(['agent1', 'agent2']),
  messages: z.array(messageSchema),
  patches: z.record(z.string(), text).optional(),
  merge: z.object({ status: z.enum(['clean', 'union', 'llm', 'conflict', 'missing_input']), patch: text }).optional(),
  tests: z.array(z.object({ feature: z.number().int(), passed: z.boolean(), output: text })).optional(),
  gold: z.object({
    /**
     * Message numbers (1-based) whose direct question or request for a decision never got an answer
     * (C1a or C1b). The detector's question_no_reply is scored on those whose partner wrote nothing
     * after the question reached it (C1a), which the case's timestamps decide.
     */
    unanswered_question: z.array(z.number().int()),
    /**
     * Message numbers that restate an earlier message of the same sender in nearly the same words
     * (repetition in new words is the communication judge's C4a, not a near-duplicate).
     */
    near_duplicate: z.array(z.number().int()),
    first_turn_plan: z.boolean(),
    /** Message numbers with a promise or claim the tested code does not keep (scored where patches are given). */
    broken_commitment: z.array(z.number().int()),
    /**
     * The checkable commitments (definitions.ts: commitment kinds), kept or not. Where given, the
     * detector's broken_checkable_commitment is scored on the messages of those not kept.
     */
    commitments: z.array(commitmentSchema).optional(),
    line_number_mentions: z.number().int(),
    file_path_mentions: z.number().int(),
    communication: z.enum(COMMUNICATION_ERRORS).nullable(),
    /** Where the merged code failed; absent or null: the case does not score the symptom judge. */
    symptoms: z.preprocess((v) => v ?? undefined, z.object({ primary: z.enum(SYMPTOMS), secondary: z.array(z.enum(SYMPTOMS)).default([]) }).optional()),
  }),
});

/** `writtenSplit`: the file's `split` as written (absent: the case is in `train` by default). */
export type CalibrationCase = z.infer<typeof caseSchema> & { split: Split; writtenSplit?: Split; file: string };

const fileSchema = z.object({ split: z.enum(SPLITS).optional(), cases: z.array(caseSchema) });

let shipped: readonly CalibrationCase[] | undefined;

/** The cases of a folder. The shipped set does not change while coop-bench runs: it is parsed once per process. */
export function loadCalibrationSet(dir = CALIBRATION_DIR): CalibrationCase[] {
  if (dir !== CALIBRATION_DIR) return readCalibrationSet(dir);
  shipped ??= readCalibrationSet(dir);
  return [...shipped];
}

function readCalibrationSet(dir: string): CalibrationCase[] {
  const cases: CalibrationCase[] = [];
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    } catch (error) {
      throw new Error(`${name}: not valid JSON (${(error as Error).message})`, { cause: error });
    }
    const parsed = fileSchema.safeParse(json);
    if (!parsed.success)
      throw new Error(
        `${name}: ${parsed.error.issues
          .slice(0, 3)
          .map((i) => `${i.path.join('.')}: ${i.message}`)
          .join('; ')}`,
      );
    const written = parsed.data.split;
    cases.push(...parsed.data.cases.map((c) => ({ ...c, split: written ?? 'train', ...(written && { writtenSplit: written }), file: name })));
  }
  const ids = new Set<string>();
  for (const c of cases) {
    if (ids.has(c.id)) throw new Error(`calibration case ${c.id} appears twice`);
    ids.add(c.id);
  }
  for (const c of cases) {
    if (c.paraphrase_of && !ids.has(c.paraphrase_of))
      throw new Error(`calibration case ${c.id} is a paraphrase of ${c.paraphrase_of}, which is not in the set`);
  }
  return cases;
}

/** Each case file with its split as the file writes it (or that it writes none) and its number of cases. */
export function caseFiles(cases: readonly CalibrationCase[]): { file: string; split: string; cases: number }[] {
  const files = new Map<string, { file: string; split: string; cases: number }>();
  for (const c of cases) {
    const entry = files.get(c.file) ?? { file: c.file, split: c.writtenSplit ?? `${c.split} (no split written)`, cases: 0 };
    entry.cases++;
    files.set(c.file, entry);
  }
  return [...files.values()];
}

export function casesOfSplit(cases: readonly CalibrationCase[], split: Split): CalibrationCase[] {
  return cases.filter((c) => c.split === split);
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

/** Gold of broken_checkable_commitment: the broken gold commitments, else the broken promises and claims. */
export function goldBrokenCommitments(c: CalibrationCase): number[] {
  return c.gold.commitments
    ? [...new Set(c.gold.commitments.filter((x) => !x.kept && x.withdrawn === undefined).map((x) => x.message))]
    : c.gold.broken_commitment;
}
