// The questions a calibration case puts to the LLM judges: which judges it scores (those whose
// calibration covers the case: llm/registry.ts), each question's exact prompt, and the hash its reading (the model's answer) is stored by.
import { createHash } from 'node:crypto';
import type { LlmJudge } from '../llm/judge.ts';
import { llmJudges } from '../llm/registry.ts';
import type { JudgeName } from '../types.ts';
import { caseInput, type CalibrationCase } from './cases.ts';

/** The LLM judges a case is scored on (before their own skip rules), in the order scoring reports them. */
export function judgesOfCase(c: CalibrationCase, only?: readonly JudgeName[]): LlmJudge<unknown>[] {
  return judgesToScore(only).filter((j) => j.calibration.covers(c));
}

/** The registered LLM judges `--only` keeps (all without it). */
export function judgesToScore(only?: readonly JudgeName[]): LlmJudge<unknown>[] {
  return llmJudges().filter((j) => !only || only.includes(j.name));
}

/** What a reading is stored by: the judge's prompt version and the exact prompt text (not the model: each model has its own file). */
export function promptHash(judge: Pick<LlmJudge<unknown>, 'promptVersion'>, prompt: { system: string; user: string }): string {
  return createHash('sha256')
    .update(JSON.stringify({ version: judge.promptVersion, system: prompt.system, user: prompt.user }))
    .digest('hex');
}

export interface CalibrationQuestion {
  hash: string;
  judge: LlmJudge<unknown>;
  caseId: string;
  system: string;
  user: string;
}

/** Every question the cases put to the judges (those a judge skips, e.g. no messages, are not asked). */
export function calibrationQuestions(cases: readonly CalibrationCase[], only?: readonly JudgeName[]): CalibrationQuestion[] {
  const questions: CalibrationQuestion[] = [];
  for (const c of cases) {
    const input = caseInput(c);
    for (const judge of judgesOfCase(c, only)) {
      if (judge.skipReason(input)) continue;
      const { system, user } = judge.prompt(input);
      questions.push({ hash: promptHash(judge, { system, user }), judge, caseId: c.id, system, user });
    }
  }
  return questions;
}
