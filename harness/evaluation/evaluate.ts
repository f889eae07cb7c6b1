// The evaluation stage: agents' patches -> the merge cascade (resolver/cascade.ts), each stage's
// code tested with every feature's hidden tests as its gate needs -> the result's verdicts.
// The test containers for the first code are created and started while the merge runs, so that
// the merge costs no time on top of the tests; they are skipped when the cache is expected to answer.
import type { Feature } from '../../tasks/types.ts';
import type { EvaluationResult, FeatureEvaluation } from '../run/types.ts';
import type { BaseRepo } from '../sandbox/types.ts';
import { runCascade, type ResolverModel } from '../../resolver/index.ts';
import { FeatureTests, cachedTestRun, runFeatureTests, type TestRunOptions } from './run-tests.ts';

export interface MergeStageOptions {
  /** The small model of the LLM stage; undefined: the stage is skipped and recorded as such. */
  resolver?: ResolverModel;
  contextLines?: number;
  /** Build and test the other union order of union-merged tasks (default true). */
  orderProbe?: boolean;
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
  await started?.then(
    (container) => container.discard(),
    () => undefined,
  );
}

/** Every feature's tests on `patch`, in containers started beforehand when given. */
function testPatch(features: Feature[], patch: string, tests: TestRunOptions, started: (Started | undefined)[]): Promise<FeatureEvaluation[]> {
  return Promise.all(
    features.map(async (feature, i) => {
      const cached = await cachedTestRun(feature, patch, tests);
      if (cached) {
        await discard(started[i]);
        return { feature: feature.id, ...cached };
      }
      const run = started[i] ? (await started[i]).run(patch) : runFeatureTests(feature, patch, tests);
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
  let started = (await expectCacheHits(input)) ? [] : input.features.map((feature) => FeatureTests.start(feature, input.tests));
  // Awaited later; a failed start is reported when its container is used.
  for (const container of started) container.catch(() => undefined);
  const passed = (evaluations: FeatureEvaluation[]) => evaluations.every((e) => e.passed);
  try {
    const cascade = await runCascade<FeatureEvaluation[]>(
      { repoDir: input.base.dir, baseRev: input.base.rev, patches: input.patches },
      {
        model: input.merge.resolver,
        contextLines: input.merge.contextLines,
        probes: input.merge.orderProbe ?? true,
        test: async (patch) => {
          // The first code tested gets the containers started ahead.
          const ahead = started;
          started = [];
          const verdict = await testPatch(input.features, patch, input.tests, ahead);
          return { passed: passed(verdict), verdict };
        },
      },
    );
    const { merge, attempts, final } = cascade;
    const evaluations =
      final?.tested?.verdict ?? input.features.map((feature) => notRun(feature, `merge ${merge.status}: ${merge.reason ?? 'no merged code to test'}`));
    return { merge, attempts, evaluations, bothPassed: passed(evaluations) };
  } finally {
    await Promise.all(started.map(discard));
  }
}
