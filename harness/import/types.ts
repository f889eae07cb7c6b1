// The import stage's interface: a task folder found in the logs, and what became of it.
import type { Setting } from '../../tasks/types.ts';
import type { ImportedTask } from '../store/imported-task.ts';

/** `<run>/<setting>/<repo>/<task>/<features>/`, as the folder names say. */
export interface TaskFolder {
  path: string;
  /** Relative to the imported folder, for messages. */
  rel: string;
  /** The first level: a CooperBench run name, or a team in coop-bench's own log tree. */
  run: string;
  setting: Setting;
  /** From a `coop-<variant>` folder (coop-bench's tree), else the --variant option. */
  variant: string;
  repo: string;
  taskId: number;
  features: number[];
  /** Whose files: CooperBench's Python harness (task folders named by id) or coop-bench's (task<id>). */
  format: 'cooperbench' | 'coop-bench';
}

export interface FolderImport {
  /** Undefined when the folder cannot become a task (say why in `skipped`). */
  task?: ImportedTask;
  skipped?: string;
  /** What the folder lacks or what had to be cut, one line each. */
  notes: string[];
  /** The other harness's agent framework (result.json agent_framework). */
  framework?: string;
  /** Files read besides the ones every folder has (Claude Code's session and stream logs). */
  filesRead?: string[];
  /** Agents' patches cut by the adapter's .strip(), repaired (the stored patch stays as recorded). */
  repairedPatches?: { agent: string; patch: string }[];
  /** result.json fields present and not kept. */
  resultFieldsNotKept?: string[];
}
