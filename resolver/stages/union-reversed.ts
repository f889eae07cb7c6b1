// The order probe: the union merge with the agents in the other order (for two agents, patch 1's
// branch checked out and patch 2 merged into it, so patch 1's lines come first). Which order the
// union uses is arbitrary; comparing both outcomes measures how many results the choice decides.
import { reversedOrder } from '../session.ts';
import { attemptOf, foldOutput, type MergeStage } from './stage.ts';

export const unionReversedStage: MergeStage = {
  name: 'union-reversed',
  label: 'Union, other order',
  kind: 'probe',
  status: 'union',
  runsAfter: (attempts) => attemptOf(attempts, 'union')?.outcome === 'merged',
  async run({ session }) {
    return foldOutput(await session.result(await session.fold(reversedOrder(session.trees.length), { kind: 'union' }), unionReversedStage));
  },
};

/** What an attempt's summary needs for the order question. */
interface AttemptVerdict {
  stage: string;
  outcome: string;
  passed?: boolean | null;
}

/**
 * Did the union's order decide the task's union outcome (both features pass or not)? undefined: the
 * union produced no tested code; 'unmeasured': the other order was not built (an older run, or
 * --no-order-probe). The other order conflicting counts as not passing.
 */
export function orderEffect(attempts: readonly AttemptVerdict[]): 'decided' | 'same' | 'unmeasured' | undefined {
  const union = attempts.find((a) => a.stage === 'union');
  const passed = (a: AttemptVerdict | undefined) => (a?.outcome === 'merged' ? (a.passed ?? undefined) : false);
  if (union?.outcome !== 'merged' || typeof union.passed !== 'boolean') return undefined;
  const other = attempts.find((a) => a.stage === unionReversedStage.name);
  if (!other || passed(other) === undefined) return 'unmeasured';
  return passed(other) === union.passed ? 'same' : 'decided';
}
