// The merge cascade: the registered stages (./stages/index.ts) in order, each attempt's code tested
// when tests are given, until a merge stage's gate accepts. The result is the accepted attempt's
// code, or else the last code a merge stage produced; every attempt is kept.
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { MergeSession } from './session.ts';
import { MERGE_STAGES, cascadeRoles } from './stages/index.ts';
import type { CascadeSettings, MergeAttempt, MergeStage } from './stages/stage.ts';
import type { GitTrace } from './git.ts';
import type { MergeInput, MergeResult } from './types.ts';

/** Runs the tests on a merged patch: `passed` when every feature's tests pass. */
export type Tester<V> = (patch: string) => Promise<{ passed: boolean; verdict: V }>;

export interface CascadeOptions<V> extends CascadeSettings {
  /** The tests the gates look at; without them no gate that needs tests accepts (e.g. `coop-bench merge`). */
  test?: Tester<V>;
  /** Run the probe stages (the other union order); default: when tests are given. */
  probes?: boolean;
  /** Lines of context around each conflict region (default 5). */
  contextLines?: number;
  trace?: GitTrace;
}

export interface CascadeResult<V> {
  /** The merge whose code is the result; status conflict or missing_input when no stage produced any. */
  merge: MergeResult;
  attempts: MergeAttempt<V>[];
  /** The attempt whose code is the result. */
  final?: MergeAttempt<V>;
}

export const patchHash = (patch: string): string => createHash('sha256').update(patch).digest('hex');

/** Throws MergeSetupError for a bad repository or revision. */
export async function runCascade<V>(input: MergeInput, options: CascadeOptions<V> = {}): Promise<CascadeResult<V>> {
  const started = performance.now();
  const roles = cascadeRoles(options.cascade);
  const { session, failures } = await MergeSession.open(input, { contextLines: options.contextLines, trace: options.trace });
  try {
    const timingsMs: Record<string, number> = { apply: performance.now() - started };
    if (failures.length > 0) {
      const merge: MergeResult = {
        status: 'missing_input',
        patch: '',
        files: [],
        conflictRegions: [],
        droppedTestFiles: session.droppedTestFiles,
        reason: failures.join('; '),
        timingsMs: { ...timingsMs, total: performance.now() - started },
      };
      return { merge, attempts: [] };
    }
    const attempts: MergeAttempt<V>[] = [];
    const tests = new Map<string, ReturnType<Tester<V>>>();
    const testing = new Map<MergeAttempt<V>, ReturnType<Tester<V>>>();
    const probes = options.probes ?? options.test !== undefined;
    let accepted: MergeAttempt<V> | undefined;
    // A merge stage's gate is read only when the next merge stage would run (or at the end), so a
    // probe's code is built and tested while the tests of the code before it still run.
    let gate: { attempt: MergeAttempt<V>; stage: MergeStage } | undefined;
    const settle = async (attempt: MergeAttempt<V>) => {
      const pending = testing.get(attempt);
      if (pending) attempt.tested = await pending;
    };
    const readGate = async () => {
      if (!gate) return;
      const { attempt, stage } = gate;
      gate = undefined;
      await settle(attempt);
      if (stage.accepts?.(attempt)) accepted = attempt;
    };
    for (const stage of MERGE_STAGES) {
      const role = roles.get(stage.name);
      if (!role) continue;
      if (role === 'merge') await readGate();
      if (role === 'probe' ? !probes : accepted) continue;
      if (!stage.runsAfter(attempts)) continue;
      const stageStarted = performance.now();
      const output = await stage.run({ session, attempts, settings: options });
      const durationMs = performance.now() - stageStarted;
      timingsMs[stage.name] = durationMs;
      const attempt: MergeAttempt<V> = { stage: stage.name, ...output, final: false, durationMs };
      if (output.outcome === 'merged' && output.result) {
        const patch = output.result.patch;
        attempt.patchHash = patchHash(patch);
        if (options.test) {
          // The same code is tested once, whichever stage produced it.
          if (!tests.has(patch)) {
            const run = options.test(patch);
            run.catch(() => undefined); // awaited later; a failure is thrown there
            tests.set(patch, run);
          }
          testing.set(attempt, tests.get(patch)!);
        }
        if (role === 'merge') gate = { attempt, stage };
      }
      attempts.push(attempt);
    }
    await readGate();
    await Promise.all(attempts.map(settle));
    const mergeAttempts = attempts.filter((a) => roles.get(a.stage) === 'merge');
    const final = accepted ?? mergeAttempts.filter((a) => a.outcome === 'merged').pop();
    if (final) final.final = true;
    const merge = (final ?? mergeAttempts.filter((a) => a.result).pop())!.result!;
    merge.timingsMs = { ...timingsMs, total: performance.now() - started };
    return { merge, attempts, final };
  } finally {
    await session.dispose();
  }
}
