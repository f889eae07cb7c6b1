// Calibration prompts as files, for readings written without an API: `judge --export-prompts <dir>`
// writes each question as <hash>.prompt.txt (the system text, then the user text), a person or a
// model used by hand writes the answer to <hash>.answer.json, and `judge --import-readings <dir>
// --reader <id>` checks each answer against its judge's schema and stores it in that reader's file.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JudgeInputError } from '../errors.ts';
import type { CalibrationQuestion } from './questions.ts';
import { MAX_ANSWER_CHARS, readingAnswer, type Readings } from './readings.ts';

export const SYSTEM_MARK = '=== SYSTEM ===';
export const USER_MARK = '=== USER ===';
const ANSWER_FILE = /^([0-9a-f]{64})\.answer\.json$/;

const HOW_TO = `Each <hash>.prompt.txt is one question to a judge: the text after ${SYSTEM_MARK} is the system
prompt, the text after ${USER_MARK} the user message. Answer it as the judge model would: only the
JSON object the system prompt describes, in a file <hash>.answer.json (same hash) in this folder.
Then store the answers as one reader's readings:
  coop-bench judge --import-readings <this folder> --reader <reader id> [the same --only/--split/--case-files]
`;

export function exportPrompts(dir: string, questions: readonly CalibrationQuestion[]): number {
  try {
    mkdirSync(dir, { recursive: true });
    for (const q of questions) writeFileSync(join(dir, `${q.hash}.prompt.txt`), `${SYSTEM_MARK}\n${q.system}\n\n${USER_MARK}\n${q.user}\n`);
    writeFileSync(join(dir, 'README.txt'), HOW_TO);
  } catch (error) {
    throw new JudgeInputError(`cannot write the prompts to ${dir}: ${(error as Error).message}`);
  }
  return new Set(questions.map((q) => q.hash)).size;
}

export interface ImportCounts {
  added: number;
  replaced: number;
  unchanged: number;
}

/** Stores every <hash>.answer.json of `dir` in `readings` (the caller saves them); any answer that does not check out stops the import, naming its file. */
export function importAnswers(dir: string, readings: Readings, questions: readonly CalibrationQuestion[]): ImportCounts {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (error) {
    throw new JudgeInputError(`cannot read the answers in ${dir}: ${(error as Error).message}`);
  }
  const byHash = new Map(questions.map((q) => [q.hash, q]));
  const counts: ImportCounts = { added: 0, replaced: 0, unchanged: 0 };
  const staged: { question: CalibrationQuestion; answer: string }[] = [];
  for (const name of names) {
    const hash = ANSWER_FILE.exec(name)?.[1];
    if (!hash) continue;
    const file = join(dir, name);
    const question = byHash.get(hash);
    if (!question)
      throw new JudgeInputError(
        `${file}: no question of the selected judges and cases has this hash (exported with other --only/--split/--case-files, or by another prompt version: export again)`,
      );
    if (statSync(file).size > MAX_ANSWER_CHARS * 4) throw new JudgeInputError(`${file}: larger than an answer can be (${MAX_ANSWER_CHARS} characters)`);
    const answer = readFileSync(file, 'utf8').trim();
    if (answer.length > MAX_ANSWER_CHARS) throw new JudgeInputError(`${file}: longer than an answer can be (${MAX_ANSWER_CHARS} characters)`);
    readingAnswer(readings, question, answer, file);
    staged.push({ question, answer });
  }
  // Nothing is stored unless every answer checked out.
  for (const { question, answer } of staged) {
    const before = readings.byHash.get(question.hash);
    if (before?.answer === answer) counts.unchanged++;
    else if (before) counts.replaced++;
    else counts.added++;
    readings.byHash.set(question.hash, { hash: question.hash, judge: question.judge.name, case: question.caseId, answer });
  }
  return counts;
}
