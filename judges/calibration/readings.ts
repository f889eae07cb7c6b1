// A judge model's readings: its answers to the calibration questions, stored one file per model under
// ./readings (or --readings-dir) by prompt hash (questions.ts), so that `judge --calibrate
// --judge-model <id>` scores from them without calling the model, and answers written by hand for
// exported prompts can be imported. A file is JSON in a stable order (entries sorted by hash, keys
// hash, judge, case, answer), bounded, and checked on load.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { JudgeInputError } from '../errors.ts';
import { parseJsonAnswer } from '../llm/ask.ts';
import { DETECTORS, judgeNames } from '../llm/registry.ts';
import { answerKey, type AnswerCache, type CachedAnswer } from '../run-judge.ts';
import { NO_USAGE } from '../llm/ask.ts';
import { measurementSchema, type ModelMeasurement } from './model-scores.ts';
import type { CalibrationQuestion } from './questions.ts';

export const READINGS_DIR = fileURLToPath(new URL('./readings', import.meta.url));
/** The readings of a user's own models, inside a runs folder (`--readings-dir <runs-dir>/readings`): reports of its runs read them too. */
export const RUN_READINGS = 'readings';

/** One answer is one JSON object of a judge; more than this is no answer a judge asks for. */
export const MAX_ANSWER_CHARS = 100_000;
const MAX_READINGS = 50_000;
const READER = /^[\w.:@/+-]{1,200}$/;

const readingSchema = z
  .object({
    hash: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in lower-case hex'),
    judge: z.string().refine((name) => judgeNames().includes(name) && name !== DETECTORS, 'an LLM judge of llm/registry.ts'),
    case: z.string().min(1).max(300),
    answer: z.string().max(MAX_ANSWER_CHARS),
  })
  .strict();
const fileSchema = z
  .object({ model: z.string().min(1).max(1000), scores: z.array(measurementSchema).default([]), readings: z.array(readingSchema).max(MAX_READINGS) })
  .strict();
export type Reading = z.infer<typeof readingSchema>;

export interface Readings {
  model: string;
  file: string;
  /** The figures scored from these readings against the gold (model-scores.ts), per judge. */
  scores: ModelMeasurement[];
  byHash: Map<string, Reading>;
}

/** A reader id given by hand: letters, digits and `_ . : @ / + -`, at most 200. */
export function checkReader(id: string): string {
  if (!READER.test(id)) throw new JudgeInputError(`"${id.slice(0, 80)}" cannot name a reader: use letters, digits and _ . : @ / + - (at most 200)`);
  return id;
}

/** The file of a reader (a model spec or an id given to --reader): its name with the characters a file name cannot hold as `_` (the file says whose it is). */
export function readingsFile(dir: string, model: string): string {
  return join(dir, `${model.replace(/[^\w.@+-]+/g, '_').slice(0, 200)}.json`);
}

/** The readings of one model (none stored: an empty set); a file that does not check out is an error naming it. */
export function loadReadings(dir: string, model: string): Readings {
  const file = readingsFile(dir, model);
  const readings: Readings = { model, file, scores: [], byHash: new Map() };
  if (!existsSync(file)) return readings;
  const fail = (why: string): never => {
    throw new JudgeInputError(`${file}: ${why} (fix or delete the file; readings are written by judge --calibrate --record or --import-readings)`);
  };
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    fail(`not valid JSON (${(error as Error).message})`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    fail(
      parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; '),
    );
    return readings;
  }
  if (parsed.data.model !== model) fail(`holds the readings of "${parsed.data.model}", not of "${model}"`);
  readings.scores = parsed.data.scores;
  for (const r of parsed.data.readings) {
    if (readings.byHash.has(r.hash)) fail(`reading ${r.hash} appears twice`);
    readings.byHash.set(r.hash, r);
  }
  return readings;
}

/**
 * The figures stored in every readings file of these folders, for the report (a folder that is
 * missing, or a file that does not check out, gives none: `judge --calibrate` names the problem).
 */
export function readMeasurements(dirs: readonly string[]): ModelMeasurement[] {
  return dirs.flatMap((dir) => {
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .flatMap((name) => {
        try {
          const parsed = fileSchema.safeParse(JSON.parse(readFileSync(join(dir, name), 'utf8')));
          return parsed.success ? parsed.data.scores : [];
        } catch {
          return [];
        }
      });
  });
}

export function saveReadings(readings: Readings): void {
  const entries = [...readings.byHash.values()]
    .sort((a, b) => a.hash.localeCompare(b.hash))
    .map((r) => ({ hash: r.hash, judge: r.judge, case: r.case, answer: r.answer }));
  try {
    mkdirSync(join(readings.file, '..'), { recursive: true });
    writeFileSync(readings.file, `${JSON.stringify({ model: readings.model, scores: readings.scores, readings: entries }, null, 2)}\n`);
  } catch (error) {
    throw new JudgeInputError(`cannot write ${readings.file}: ${(error as Error).message}`);
  }
}

/** The answer a reading holds, checked against its judge's answer schema; a problem names the file and the hash. */
export function readingAnswer(readings: Readings, question: CalibrationQuestion, text: string, where = `${readings.file}, reading ${question.hash}`): unknown {
  let json: unknown;
  try {
    json = parseJsonAnswer(text);
  } catch (error) {
    throw new JudgeInputError(`${where}: ${(error as Error).message}`);
  }
  const parsed = question.judge.schema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new JudgeInputError(`${where}: not an answer of the ${question.judge.name} judge (${issues.join('; ')})`);
  }
  return parsed.data;
}

export interface ReadingsCache extends AnswerCache {
  /** Questions answered from the stored readings, and asked of the model. */
  counts(): { stored: number; called: number };
}

/**
 * The judges' answer cache for a calibration with readings: a question whose reading is stored is
 * answered from it (no model call); a question the model answers is kept as a reading (written to
 * the file by saveReadings, when recording).
 */
export function readingsCache(readings: Readings, questions: readonly CalibrationQuestion[]): ReadingsCache {
  const byKey = new Map(questions.map((q) => [answerKey(q.judge, readings.model, q), q]));
  const served = new Set<string>();
  const answered = new Map<string, CachedAnswer>();
  let called = 0;
  return {
    get(key) {
      const asked = answered.get(key);
      if (asked) return asked;
      const question = byKey.get(key);
      const reading = question && readings.byHash.get(question.hash);
      if (!question || !reading) return undefined;
      served.add(question.hash);
      return { answer: readingAnswer(readings, question, reading.answer), usage: NO_USAGE };
    },
    put(key, entry) {
      called++;
      answered.set(key, entry);
      const question = byKey.get(key);
      if (question)
        readings.byHash.set(question.hash, { hash: question.hash, judge: question.judge.name, case: question.caseId, answer: JSON.stringify(entry.answer) });
    },
    counts: () => ({ stored: served.size, called }),
  };
}

/** The questions whose reading is not stored. */
export function missingReadings(readings: Readings, questions: readonly CalibrationQuestion[]): CalibrationQuestion[] {
  return questions.filter((q) => !readings.byHash.has(q.hash));
}
