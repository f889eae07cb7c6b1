// The evaluation stage: agents' patches -> the merge cascade (resolver/cascade.ts), each stage's
// code tested with every feature's hidden tests as its gate needs -> the result's verdicts.
// The test sandboxes for the first code are started while the merge runs, so that the merge costs
// no time on top of the tests; they are skipped when the cache is expected to answer. How many
// sandboxes, each running which features one after another: test-groups.ts.
import type { Feature } from '../../tasks/types.ts';
import type { EvaluationResult, FeatureEvaluation } from '../run/types.ts';
import type { BaseRepo } from '../sandbox/types.ts';
import { runCascade, type ResolverModel } from '../../resolver/index.ts';
import { cachedTestRun, type TestRun, type TestRunOptions } from './run-tests.ts';
import { enterTesting, splitFeatures, startTests, type StartedTests } from './test-groups.ts';

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

type Started = Promise<StartedTests>;

async function discard(started: Started | undefined): Promise<void> {
  await started?.then(
    (tests) => tests.discard(),
    () => undefined,
  );
}

/** Every feature's tests on `patch`: in the sandboxes started ahead (one per group), else in new ones. */
async function testPatch(groups: Feature[][], patch: string, tests: TestRunOptions, started: Started[]): Promise<FeatureEvaluation[]> {
  const runGroup = async (group: Feature[], ahead: Started | undefined): Promise<TestRun[]> => {
    if (!ahead) {
      const hits = await Promise.all(group.map((feature) => cachedTestRun(feature, patch, tests)));
      if (hits.every(Boolean)) return hits as TestRun[];
    }
    return (await (ahead ?? startTests(group, tests))).run(patch);
  };
  const runs = await Promise.all(groups.map((group, g) => runGroup(group, started[g])));
  return groups.flatMap((group, g) => group.map((feature, i) => ({ feature: feature.id, ...runs[g]![i]! })));
}

async function expectCacheHits(input: EvaluationInput): Promise<boolean> {
  const previous = input.previousMergedPatch;
  if (previous === undefined || !input.tests.cache) return false;
  const hits = await Promise.all(input.features.map((feature) => cachedTestRun(feature, previous, input.tests)));
  return hits.every(Boolean);
}

export async function evaluatePatches(input: EvaluationInput): Promise<EvaluationResult> {
  const testing = await enterTesting(input.tests.slot, input.features.length);
  const groups = splitFeatures(input.features, testing.width);
  let started = (await expectCacheHits(input)) ? [] : groups.map((group) => startTests(group, input.tests));
  // Awaited later; a failed start is reported when its sandbox is used.
  for (const tests of started) tests.catch(() => undefined);
  const passed = (evaluations: FeatureEvaluation[]) => evaluations.every((e) => e.passed);
  try {
    const cascade = await runCascade<FeatureEvaluation[]>(
      { repoDir: input.base.dir, baseRev: input.base.rev, patches: input.patches },
      {
        model: input.merge.resolver,
        contextLines: input.merge.contextLines,
        probes: input.merge.orderProbe ?? true,
        test: async (patch) => {
          // The first code tested gets the sandboxes started ahead.
          const ahead = started;
          started = [];
          const verdict = await testPatch(groups, patch, input.tests, ahead);
          return { passed: passed(verdict), verdict };
        },
      },
    );
    const { merge, attempts, final } = cascade;
    const evaluations =
      final?.tested?.verdict ?? input.features.map((feature) => notRun(feature, `merge ${merge.status}: ${merge.reason ?? 'no merged code to test'}`));
    return { merge, attempts, evaluations, bothPassed: passed(evaluations) };
  } finally {
    testing.done();
    await Promise.all(started.map(discard));
  }
}
