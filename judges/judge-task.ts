// Judging stored tasks: every finished Coop task gets the detectors, and with a judge model the
// communication and speech-act judges (when there are messages), the commitments judge (when there
// are messages and patches) and the symptom judge (when the merged code failed). Results go to run.db; the caller decides what to print.
import pLimit from 'p-limit';
import type { Model } from '../harness/models/types.ts';
import type { RunStore } from '../harness/store/run-store.ts';
import { loadTaskRecord } from '../harness/store/records.ts';
import { judgeAnswerCache, saveJudgeOutcome } from '../harness/store/judge-results.ts';
import { commitmentsJudge } from './llm/commitments.ts';
import { communicationJudge } from './llm/communication.ts';
import { speechActsJudge } from './llm/speech-acts.ts';
import { symptomsJudge } from './llm/symptoms.ts';
import type { LlmJudge } from './llm/judge.ts';
import { detectorOutcome, llmOutcome, type JudgeOutcome } from './run-judge.ts';
import { judgeInputOf, undecidedOf, type JudgeLabel, type JudgeName } from './types.ts';

export const LLM_JUDGES: readonly LlmJudge<unknown>[] = [communicationJudge, symptomsJudge, speechActsJudge, commitmentsJudge];

export const DEFAULT_JUDGE_TIMEOUT_MS = 5 * 60_000;

export interface JudgeTaskOptions {
  /** Without a model only the detectors run, and earlier LLM labels are left as they are. */
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

/** Judges one stored task and saves the results; call it after the task is stored. */
export async function judgeTask(store: RunStore, taskId: number, options: JudgeTaskOptions = {}): Promise<TaskJudgement> {
  const record = loadTaskRecord(store, taskId);
  if (record.status !== 'done') return { taskId, skipped: `task is ${record.status}`, outcomes: [] };
  if (record.setting !== 'coop') return { taskId, skipped: 'solo task: no conversation to judge', outcomes: [] };
  const wanted = (name: JudgeName) => !options.judges || options.judges.includes(name);
  const input = judgeInputOf(record);
  const outcomes: JudgeOutcome[] = [];
  if (wanted('detectors')) outcomes.push(await detectorOutcome(input));
  const { model } = options;
  if (model) {
    const cache = judgeAnswerCache(store);
    const timeoutMs = options.timeoutMs ?? DEFAULT_JUDGE_TIMEOUT_MS;
    const llm = LLM_JUDGES.filter((j) => wanted(j.name));
    outcomes.push(...(await Promise.all(llm.map((j) => llmOutcome(j, input, model, cache, { timeoutMs })))));
    replaceDetectorCommitments(outcomes);
  }
  // A failed question keeps the earlier labels: an outage must not erase a previous judgement.
  for (const outcome of outcomes) if (outcome.status !== 'error') saveJudgeOutcome(store, taskId, outcome);
  return { taskId, outcomes };
}

/**
 * With a judge model, the commitments judge reads the promises and the code checks check them: when it
 * answered, its labels stand for broken commitments and the detectors' fallback reading is dropped
 * (when its question failed, the fallback stays).
 */
function replaceDetectorCommitments(outcomes: JudgeOutcome[]): void {
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

export async function judgeRun(store: RunStore, options: JudgeRunOptions = {}): Promise<TaskJudgement[]> {
  const tasks = store.tasks().filter((t) => !options.taskIds || options.taskIds.includes(t.id));
  const limit = pLimit(options.concurrency ?? 4);
  return Promise.all(
    tasks.map((task) =>
      limit(async () => {
        const judgement = await judgeTask(store, task.id, options);
        options.onTask?.(judgement);
        return judgement;
      }),
    ),
  );
}
