// The judges a stored task gets, and what judging it gives: every finished Coop task gets the
// detectors, and with a judge model the communication, speech-act and initiative judges (when there
// are messages), the commitments judge (when there are messages and patches) and the symptom judge
// (when the merged code failed). The harness runs them on its stored tasks (harness/run/judge-tasks.ts).
import type { Model } from './model.ts';
import type { JudgeOutcome } from './run-judge.ts';
import { undecidedOf, type JudgeLabel, type JudgeName } from './types.ts';

export const DEFAULT_JUDGE_TIMEOUT_MS = 5 * 60_000;

export interface JudgeTaskOptions {
  /** Without a model only the detectors and the initiative fallback run, and earlier LLM labels are left as they are. */
  model?: Model;
  /** Only these judges (default: all). */
  judges?: readonly JudgeName[];
  /** Deadline of one judge's question to the model, its retry included. */
  timeoutMs?: number;
}

export interface TaskJudgement {
  taskId: number;
  /** Why the task was not judged at all (not finished, Solo). */
  skipped?: string;
  outcomes: JudgeOutcome[];
}

/**
 * With a judge model, the commitments judge reads the promises and the code checks check them: when it
 * answered, its labels stand for broken commitments and the detectors' fallback reading is dropped
 * (when its question failed, the fallback stays).
 */
export function replaceDetectorCommitments(outcomes: JudgeOutcome[]): void {
  const judged = outcomes.find((o) => o.judge === 'commitments' && o.status === 'ok');
  const detectors = outcomes.find((o) => o.judge === 'detectors');
  if (!judged || !detectors) return;
  const fallback = (l: JudgeLabel) => (undecidedOf(l.label) ?? l.label) === 'broken_checkable_commitment';
  detectors.labels = detectors.labels.filter((l) => !fallback(l));
  detectors.metrics = { ...detectors.metrics, brokenCommitments: 0, undecidedCommitments: 0, commitmentsReadByModel: true };
}

export interface JudgeRunOptions extends JudgeTaskOptions {
  /** Only these task ids. */
  taskIds?: readonly number[];
  concurrency?: number;
  /** Called as each task is judged (in completion order). */
  onTask?: (judgement: TaskJudgement) => void;
}
