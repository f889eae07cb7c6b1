// The evaluation stage: agents' patches -> the merge cascade (resolver/cascade.ts), each stage's
// code tested with every feature's hidden tests as its gate needs -> the result's verdicts.
// A test sandbox for the first code is started while the merge runs, so that the merge costs no
// time on top of the tests; it is skipped when the cache is expected to answer. Which sandboxes run
// which features, and when: feature-runs.ts.
import type { Feature } from '../../tasks/types.ts';
import type { EvaluationResult, FeatureEvaluation } from '../run/types.ts';
import type { BaseRepo } from '../sandbox/types.ts';
import { runCascade, type ResolverModel } from '../../resolver/index.ts';
import { cachedTestRun, type TestRunOptions } from './run-tests.ts';
import { taskTests } from './feature-runs.ts';

export interface MergeStageOptions {
  /** The small model of the LLM stage; undefined: the stage is skipped and recorded as such. */
  resolver?: ResolverModel;
  contextLines?: number;
  /** Build and test the probes (the other union order, the structural merge; default true). */
  orderProbe?: boolean;
  /** The stages whose code can be the result, in order (default: the paper's cascade). */
  cascade?: readonly string[];
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

async function expectCacheHits(input: EvaluationInput): Promise<boolean> {
  const previous = input.previousMergedPatch;
  if (previous === undefined || !input.tests.cache) return false;
  const hits = await Promise.all(input.features.map((feature) => cachedTestRun(feature, previous, input.tests)));
  return hits.every(Boolean);
}

export async function evaluatePatches(input: EvaluationInput): Promise<EvaluationResult> {
  const tests = taskTests(input.features, input.tests, !(await expectCacheHits(input)));
  const passed = (evaluations: FeatureEvaluation[]) => evaluations.every((e) => e.passed);
  try {
    const cascade = await runCascade<FeatureEvaluation[]>(
      { repoDir: input.base.dir, baseRev: input.base.rev, patches: input.patches },
      {
        model: input.merge.resolver,
        contextLines: input.merge.contextLines,
        probes: input.merge.orderProbe ?? true,
        cascade: input.merge.cascade,
        test: async (patch) => {
          const runs = await tests.run(patch);
          const verdict = input.features.map((feature, i) => ({ feature: feature.id, ...runs[i]! }));
          return { passed: passed(verdict), verdict };
        },
      },
    );
    const { merge, attempts, final } = cascade;
    const evaluations =
      final?.tested?.verdict ?? input.features.map((feature) => notRun(feature, `merge ${merge.status}: ${merge.reason ?? 'no merged code to test'}`));
    return { merge, attempts, evaluations, bothPassed: passed(evaluations) };
  } finally {
    await tests.close();
  }
}
