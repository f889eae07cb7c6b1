// The evaluation stage: agents' patches -> merged code -> every feature's hidden tests. When the
// union merge fails the tests and a resolver model is configured, the LLM stage resolves the
// conflict regions and the tests run again on the resolved code (paper, appendix B).
// The test containers are created and started while the merge runs, so that the merge costs no
// time on top of the tests; they are skipped when the cache is expected to answer.
import type { Feature } from '../../tasks/types.ts';
import type { EvaluationResult, FeatureEvaluation, LlmStageRecord } from '../run/types.ts';
import type { BaseRepo } from '../sandbox/types.ts';
import { mergePatches, resolveWithModel, type MergeResult, type ResolverModel } from '../../resolver/index.ts';
import { FeatureTests, cachedTestRun, runFeatureTests, type TestRunOptions } from './run-tests.ts';
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
  /**
   * The merged patch an earlier evaluation of the same task produced (`coop-bench eval`): when the
   * cache holds every feature's result for it, no container is started ahead of the merge.
   */
  previousMergedPatch?: string;
}

function notRun(feature: Feature, cause: string): FeatureEvaluation {
  return { feature: feature.id, passed: false, exitCode: null, timedOut: false, cause, output: '', durationMs: 0 };
}

type Started = Promise<FeatureTests>;

async function discard(started: Started | undefined): Promise<void> {
  await started?.then((container) => container.discard(), () => undefined);
}

/** Every feature's tests on the merged code, in containers started beforehand when given. */
async function testMerged(features: Feature[], merge: MergeResult, tests: TestRunOptions, started: (Started | undefined)[] = []): Promise<FeatureEvaluation[]> {
  const testable = merge.status !== 'conflict' && merge.status !== 'missing_input';
  return Promise.all(
    features.map(async (feature, i) => {
      if (!testable) {
        await discard(started[i]);
        return notRun(feature, `merge ${merge.status}: ${merge.reason ?? 'no merged code to test'}`);
      }
      const cached = await cachedTestRun(feature, merge.patch, tests);
      if (cached) {
        await discard(started[i]);
        return { feature: feature.id, ...cached };
      }
      const run = started[i] ? (await started[i]).run(merge.patch) : runFeatureTests(feature, merge.patch, tests);
      return { feature: feature.id, ...(await run) };
    }),
  );
}

async function expectCacheHits(input: EvaluationInput): Promise<boolean> {
  const previous = input.previousMergedPatch;
  if (previous === undefined || !input.tests.cache) return false;
  const hits = await Promise.all(input.features.map((feature) => cachedTestRun(feature, previous, input.tests)));
  return hits.every(Boolean);
}

export async function evaluatePatches(input: EvaluationInput): Promise<EvaluationResult> {
  const mergeInput = { repoDir: input.base.dir, baseRev: input.base.rev, patches: input.patches };
  const started = (await expectCacheHits(input)) ? [] : input.features.map((feature) => FeatureTests.start(feature, input.tests));
  // Awaited later; a failed start is reported when its container is used.
  for (const container of started) container.catch(() => undefined);
  let merge: MergeResult;
  try {
    merge = await mergePatches(mergeInput);
  } catch (error) {
    await Promise.all(started.map(discard));
    throw error;
  }
  const evaluations = await testMerged(input.features, merge, input.tests, started);
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
