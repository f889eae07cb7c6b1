// Judging a run's stored tasks: each task's record is read from run.db, judged (judges/judge-task.ts
// says which judges run when) and the outcomes saved; the caller decides what to print.
import pLimit from 'p-limit';
import {
  DEFAULT_JUDGE_TIMEOUT_MS,
  replaceDetectorCommitments,
  type JudgeRunOptions,
  type JudgeTaskOptions,
  type TaskJudgement,
} from '../../judges/judge-task.ts';
import { DETECTORS_MODEL, detectorOutcome, initiativeFallbackOutcome, llmOutcome, type JudgeOutcome } from '../../judges/run-judge.ts';
import { llmJudges } from '../../judges/llm/registry.ts';
import type { JudgeInput, JudgeName } from '../../judges/types.ts';
import type { RunStore } from '../store/run-store.ts';
import { loadTaskRecord, type TaskRecord } from '../store/records.ts';
import { judgeAnswerCache, saveJudgeOutcome, storedLabels } from '../store/judge-results.ts';

/** What the judges read of a stored task. */
function judgeInputOf(record: TaskRecord): JudgeInput {
  return {
    conversation: record.conversation,
    patches: record.agents.map((a) => ({ agent: a.agent, patch: a.patch })),
    merge: record.merge && { status: record.merge.status, patch: record.merge.patch },
    evaluations: record.evaluations.map((e) => ({ feature: e.feature, passed: e.passed, cause: e.cause, output: e.output })),
    bothPassed: record.bothPassed,
  };
}

/** A judge model labelled the task's initiative before: the fallback must not replace its labels. */
const judgedByModel = (store: RunStore, taskId: number) => storedLabels(store, taskId, 'initiative').some((l) => l.model !== DETECTORS_MODEL);

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
    const llm = llmJudges().filter((j) => wanted(j.name));
    outcomes.push(...(await Promise.all(llm.map((j) => llmOutcome(j, input, model, cache, { timeoutMs })))));
    replaceDetectorCommitments(outcomes);
  } else if (wanted('initiative') && input.conversation.length > 0 && !judgedByModel(store, taskId)) {
    // Without a judge model, initiative is read by the deterministic fallback, which abstains when unsure.
    outcomes.push(await initiativeFallbackOutcome(input));
  }
  // A failed question keeps the earlier labels: an outage must not erase a previous judgement.
  for (const outcome of outcomes) if (outcome.status !== 'error') saveJudgeOutcome(store, taskId, outcome);
  return { taskId, outcomes };
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
