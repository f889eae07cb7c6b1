// The LLM judges, one entry each: judging a run, `--only`, the store, calibration and the report
// iterate this list. Adding a judge is one file (an LlmJudge, judge.ts) and one line here.
import { commitmentsJudge } from './commitments.ts';
import { communicationJudge } from './communication.ts';
import { initiativeJudge } from './initiative.ts';
import type { LlmJudge } from './judge.ts';
import { speechActsJudge } from './speech-acts.ts';
import { symptomsJudge } from './symptoms.ts';

const judges: LlmJudge<unknown>[] = [
  communicationJudge as LlmJudge<unknown>,
  symptomsJudge as LlmJudge<unknown>,
  speechActsJudge as LlmJudge<unknown>,
  commitmentsJudge as LlmJudge<unknown>,
  initiativeJudge as LlmJudge<unknown>,
];

/** The deterministic detectors' name as a judge (judges/detectors): they run without a model. */
export const DETECTORS = 'detectors';

/** Every LLM judge, in the order they run and are reported. */
export function llmJudges(): readonly LlmJudge<unknown>[] {
  return judges;
}

/** Every judge's name: the detectors, then the LLM judges. */
export function judgeNames(): string[] {
  return [DETECTORS, ...judges.map((j) => j.name)];
}

/** Adds a judge at run time, as a line in the list above would (a test's judge). */
export function registerLlmJudge<Answer>(judge: LlmJudge<Answer>): void {
  if (judgeNames().includes(judge.name)) throw new Error(`a judge named ${judge.name} is registered already`);
  judges.push(judge as LlmJudge<unknown>);
}

/** Takes back a judge registerLlmJudge added. */
export function unregisterLlmJudge(name: string): void {
  const index = judges.findIndex((j) => j.name === name);
  if (index >= 0) judges.splice(index, 1);
}
