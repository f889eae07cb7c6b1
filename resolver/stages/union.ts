// The union merge, after a naive conflict: upstream appends `* merge=union` to .gitattributes and
// merges again, so both sides' lines of each conflict are kept (the checked-out side's first). Its
// code is the result when the tests pass; otherwise the LLM stage may try.
import { forwardOrder } from '../session.ts';
import { attemptOf, foldOutput, type MergeStage } from './stage.ts';

export const unionStage: MergeStage = {
  name: 'union',
  label: 'Union',
  kind: 'merge',
  status: 'union',
  runsAfter: (attempts) => attemptOf(attempts, 'naive')?.outcome === 'conflict',
  async run({ session }) {
    return foldOutput(await session.result(await session.fold(forwardOrder(session.trees.length), { kind: 'union' }), unionStage));
  },
  accepts: (attempt) => attempt.tested?.passed === true,
};
