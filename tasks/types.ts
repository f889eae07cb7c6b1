// The pool and task stage's interface: what a feature pool holds and what one task asks of agents.

export interface Feature {
  /** The N of feature<N>/. */
  id: number;
  dir: string;
  /** feature.md: what the agent is told. */
  description: string;
  /** Gold implementation (never shown to agents). */
  patchPath: string;
  /** Hidden tests (never shown to agents). */
  testsPatchPath: string;
}

/** One feature pool: a repository state and its features (CooperBench's `<repo>/task<id>/`). */
export interface Pool {
  /** Repository folder name, e.g. `dspy_task`. */
  repo: string;
  taskId: number;
  dir: string;
  features: Feature[];
  combinedPatchPath?: string;
  dockerfilePath?: string;
  runnerPath?: string;
  /** Image name the CooperBench harness publishes for this pool. */
  publishedImage: string;
}

/** `<repo>/task<id>`: how pools are named in messages, paths and the store. */
export function poolKey(pool: Pick<Pool, 'repo' | 'taskId'>): string {
  return `${pool.repo}/task${pool.taskId}`;
}

export type Setting = 'coop' | 'solo';

/** One unit of work: a set of features of one pool, a setting and the models of the agents. */
export interface TaskSpec {
  pool: Pool;
  /** Feature ids, ascending; 2 for pairs, 3-4 for the scaling experiment. */
  features: number[];
  setting: Setting;
  /** Model spec per agent (coop: one per feature; solo: one). */
  models: string[];
  /** Ablations that change what agents can do (e.g. no messaging); part of the task's identity. */
  variant: string;
}

/** Stable identity of a task inside a run: resuming matches on it. */
export function taskKey(task: Omit<TaskSpec, 'pool'> & { pool: Pick<Pool, 'repo' | 'taskId'> }): string {
  const variant = task.variant ? `:${task.variant}` : '';
  return `${task.models.join('+')}|${task.setting}${variant}|${poolKey(task.pool)}|${featureDirName(task.features)}`;
}

/** A team's name: its distinct models, `oracle` for self-play, `gpt-5+claude` for a mixed team. */
export function teamName(models: string[]): string {
  return [...new Set(models)].join('+');
}

/** `f1_f2`, as in CooperBench's log tree. */
export function featureDirName(features: number[]): string {
  return features.map((f) => `f${f}`).join('_');
}

/** CooperBench subset file: which pairs of which pools to run. */
export interface Subset {
  name: string;
  tasks: { repo: string; task_id: number; pairs: number[][] }[];
}
