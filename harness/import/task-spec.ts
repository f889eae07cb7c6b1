import type { Setting, TaskSpec } from '../../tasks/types.ts';
import type { TaskFolder } from './types.ts';

/**
 * The task as coop-bench names it. The pool is known only by name: its folder is not part of the
 * logs, so `pool_dir` stays empty (commands that rebuild images, like `eval`, need a real run).
 */
export function taskSpec(folder: TaskFolder, setting: Setting, models: string[]): TaskSpec {
  return {
    pool: { repo: folder.repo, taskId: folder.taskId, dir: '', features: [], publishedImage: '' },
    features: folder.features,
    setting,
    models,
    variant: folder.variant,
  };
}
