// The evaluation stage: agents' patches -> merged code -> every feature's hidden tests. When the
// union merge fails the tests and a resolver model is configured, the LLM stage resolves the
// conflict regions and the tests run again on the resolved code (paper, appendix B).
import type { Feature } from '../../tasks/types.ts';
import type { EvaluationResult, FeatureEvaluation, LlmStageRecord } from '../run/types.ts';
import type { BaseRepo } from '../docker/base-repo.ts';
import { mergePatches, resolveWithModel, type MergeResult, type ResolverModel } from '../../resolver/index.ts';
import { runFeatureTests, type TestRunOptions } from './run-tests.ts';
import { errorMessage } from '../errors.ts';

export interface MergeStageOptions {
  /** The small model of the LLM stage; undefined: the stage is skipped and recorded as such. */
  resolver?: ResolverModel;
  contextLines?: number;
}

export interface EvaluationInput {
  features: Feature[];
  /** One patch per agent, in agent order (one in Solo). */
  patches: string[];
  base: BaseRepo;
  tests: TestRunOptions;
  merge: MergeStageOptions;
}

function notRun(feature: Feature, cause: string): FeatureEvaluation {
  return { feature: feature.id, passed: false, exitCode: null, timedOut: false, cause, output: '', durationMs: 0 };
}

async function testMerged(features: Feature[], merge: MergeResult, tests: TestRunOptions): Promise<FeatureEvaluation[]> {
  const testable = merge.status !== 'conflict' && merge.status !== 'missing_input';
  return Promise.all(
    features.map(async (feature) => {
      if (!testable) return notRun(feature, `merge ${merge.status}: ${merge.reason ?? 'no merged code to test'}`);
      return { feature: feature.id, ...(await runFeatureTests(feature, merge.patch, tests)) };
    }),
  );
}

export async function evaluatePatches(input: EvaluationInput): Promise<EvaluationResult> {
  const mergeInput = { repoDir: input.base.dir, baseRev: input.base.rev, patches: input.patches };
  const merge = await mergePatches(mergeInput);
  const evaluations = await testMerged(input.features, merge, input.tests);
  const passed = (evals: FeatureEvaluation[]) => evals.every((e) => e.passed);
  if (merge.status !== 'union' || passed(evaluations)) return { merge, evaluations, bothPassed: passed(evaluations) };

  let llm: LlmStageRecord;
  try {
    const stage = await resolveWithModel(mergeInput, merge, { model: input.merge.resolver, contextLines: input.merge.contextLines });
    if (stage.accepted && stage.resolved) {
      const resolved = await testMerged(input.features, stage.resolved, input.tests);
      const record: LlmStageRecord = { outcome: 'accepted', latencyMs: stage.latencyMs, model: stage.model, regions: stage.regions };
      return { merge: stage.resolved, evaluations: resolved, bothPassed: passed(resolved), llm: record };
    }
    llm = { outcome: stage.skippedReason ? 'skipped' : 'rejected', reason: stage.skippedReason ?? stage.rejectedReason, latencyMs: stage.latencyMs, model: stage.model, regions: stage.regions };
  } catch (error) {
    // An unreachable resolver must not lose the pair's result: keep the union verdict, say why.
    llm = { outcome: 'error', reason: errorMessage(error), latencyMs: 0, model: input.merge.resolver?.name, regions: [] };
  }
  return { merge, evaluations, bothPassed: false, llm };
}
