// The naive merge: upstream's `git merge` of the branches (no union). Clean code is the result,
// whatever its tests say.
import { forwardOrder } from '../session.ts';
import { foldOutput, type MergeStage } from './stage.ts';

export const naiveStage: MergeStage = {
  name: 'naive',
  label: 'Naive',
  kind: 'merge',
  status: 'clean',
  runsAfter: (attempts) => attempts.length === 0,
  async run({ session }) {
    return foldOutput(await session.result(await session.fold(forwardOrder(session.trees.length), { kind: 'none' }), naiveStage));
  },
  accepts: () => true,
};
