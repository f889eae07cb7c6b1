// `coop-bench import`: task folders of a logs tree into a new run store. Layouts:
// - CooperBench's (cooperbench/CooperBench src/cooperbench/eval/runs.py, discover_runs):
//   <run>/<setting>/<repo>/<task_id>/f<i>_f<j>/, and the legacy <run>/<repo>/<task_id>/f<i>_f<j>/;
// - coop-bench's own (harness/store/log-tree.ts): <team>/<setting>[-<variant>]/<repo>/task<id>/f<i>_f<j>/.
// The folder given may be one run, a folder of runs, or a coop-bench run folder (its logs/).
import { existsSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { UserError } from '../errors.ts';
import { RunStore, runDir } from '../store/run-store.ts';
import { saveImportedTask } from '../store/imported-task.ts';
import { taskKey, type Setting } from '../../tasks/types.ts';
import { LIMITS, linksIn, readJson, subfolders } from './log-files.ts';
import { importOwnFolder } from './own-log-tree.ts';
import { importUpstreamFolder, upstreamConfig } from './upstream.ts';
import type { FolderImport, TaskFolder } from './types.ts';

const SETTING = /^(coop|solo)(?:-([A-Za-z0-9._-]{1,100}))?$/;
const REPO = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
/** Upstream names task folders by the bare id; coop-bench by task<id>. */
const TASK = /^(task)?(\d{1,9})$/;
/** Two features or more (discover_runs skips folders with fewer). */
const FEATURES = /^f\d{1,6}(?:_f\d{1,6})+$/;

export interface ImportOptions {
  runsDir: string;
  name: string;
  /** The ablation of CooperBench runs (their logs do not say), e.g. `no-messaging`. */
  variant?: string;
  /** Progress lines. */
  log?: (line: string) => void;
}

export interface TaskReport {
  folder: string;
  /** done/error/interrupted: stored with that status; skipped: not stored (`reason`); duplicate: the run already had the task. */
  outcome: 'done' | 'error' | 'interrupted' | 'skipped' | 'duplicate';
  key?: string;
  reason?: string;
  notes: string[];
}

export interface ImportReport {
  dir: string;
  source: string;
  runs: string[];
  tasks: TaskReport[];
  /** Folders that are not part of the layout, and links (never followed). */
  ignored: string[];
}

const MAX_IGNORED = 200;

interface RunFolder {
  name: string;
  path: string;
}

function isRunFolder(path: string): boolean {
  return subfolders(path).some((f) => SETTING.test(f.name) || f.name.endsWith('_task'));
}

function findRuns(root: string): { root: string; runs: RunFolder[] } {
  if (existsSync(join(root, 'run.db')) && existsSync(join(root, 'logs'))) root = join(root, 'logs');
  if (isRunFolder(root)) return { root, runs: [{ name: basename(root), path: root }] };
  const runs = subfolders(root).filter((f) => isRunFolder(f.path));
  if (runs.length === 0) {
    throw new UserError(
      `no task logs under ${root}: expected <run>/<setting>/<repo>/<task>/<features>/ (CooperBench's logs/ or one run in it, or a coop-bench run folder)`,
    );
  }
  return { root, runs };
}

/** Every task folder of one run, in name order; what does not fit the layout goes to `ignored`. */
function taskFolders(root: string, run: RunFolder, variant: string, ignored: string[]): TaskFolder[] {
  const rel = (path: string) => relative(root, path) || '.';
  const ignore = (path: string, why: string) => {
    if (ignored.length < MAX_IGNORED) ignored.push(`${rel(path)}: ${why}`);
  };
  const noteLinks = (dir: string) => linksIn(dir).forEach((l) => ignore(join(dir, l), 'a link: not followed'));
  noteLinks(run.path);
  const settings = subfolders(run.path).filter((f) => SETTING.test(f.name));
  // Legacy layout: repositories directly under the run, the setting in result.json.
  const groups = settings.length > 0 ? settings.map((s) => ({ setting: s, repos: subfolders(s.path) })) : [{ setting: undefined, repos: subfolders(run.path) }];
  const found: TaskFolder[] = [];
  for (const { setting, repos } of groups) {
    const m = setting ? SETTING.exec(setting.name)! : undefined;
    if (setting) noteLinks(setting.path);
    for (const repo of repos) {
      if (!REPO.test(repo.name) || (!setting && !repo.name.endsWith('_task'))) {
        ignore(repo.path, 'not a repository folder');
        continue;
      }
      noteLinks(repo.path);
      for (const task of subfolders(repo.path)) {
        const t = TASK.exec(task.name);
        if (!t) {
          ignore(task.path, 'not a task folder (a task id)');
          continue;
        }
        noteLinks(task.path);
        for (const features of subfolders(task.path)) {
          if (!FEATURES.test(features.name)) {
            ignore(features.path, 'not a features folder (f<i>_f<j>)');
            continue;
          }
          if (found.length >= LIMITS.taskFolders) throw new UserError(`more than ${LIMITS.taskFolders} task folders under ${root}: import one run at a time`);
          const ids = features.name.split('_').map((f) => Number(f.slice(1)));
          const legacySetting: Setting = existsSync(join(features.path, 'solo.patch')) ? 'solo' : 'coop';
          found.push({
            path: features.path,
            rel: rel(features.path),
            run: run.name,
            setting: (m?.[1] as Setting | undefined) ?? legacySetting,
            variant: m?.[2] ?? variant,
            repo: repo.name,
            taskId: Number(t[2]),
            features: [...ids].sort((a, b) => a - b),
            format: t[1] ? 'coop-bench' : 'cooperbench',
          });
        }
      }
    }
  }
  return found;
}

function importFolder(folder: TaskFolder, runModel: string | undefined): FolderImport {
  return folder.format === 'coop-bench' ? importOwnFolder(folder) : importUpstreamFolder(folder, runModel);
}

export function importLogs(source: string, options: ImportOptions): ImportReport {
  let root: string;
  try {
    root = realpathSync(source);
    if (!statSync(root).isDirectory()) throw new Error('not a folder');
  } catch (error) {
    throw new UserError(
      `cannot read the logs folder ${source}: ${(error as Error).message} (give CooperBench's logs/ folder, one run in it, or a coop-bench run folder)`,
    );
  }
  const found = findRuns(root);
  const dir = runDir(options.runsDir, options.name);
  if (existsSync(dir)) throw new UserError(`run ${options.name} already exists under ${resolve(options.runsDir)}: choose a new --name for the imported run`);
  const ignored: string[] = [];
  const folders = found.runs.flatMap((run) => taskFolders(found.root, run, options.variant ?? '', ignored));
  const store = RunStore.open(options.runsDir, options.name, { create: true, exclusive: true });
  const report: ImportReport = { dir: store.dir, source: found.root, runs: found.runs.map((r) => r.name), tasks: [], ignored };
  try {
    store.startRun({ name: options.name, importedFrom: found.root, runs: report.runs, variant: options.variant ?? '' });
    const models = new Map(found.runs.map((run) => [run.name, configModel(run.path)]));
    folders.forEach((folder, i) => {
      report.tasks.push(storeFolder(store, folder, models.get(folder.run)));
      if ((i + 1) % 500 === 0) options.log?.(`imported ${i + 1}/${folders.length} task folders`);
    });
    store.setRunStatus('finished');
    writeFileSync(join(store.dir, 'import-report.json'), JSON.stringify(report, null, 2));
    store.close();
    return report;
  } catch (error) {
    store.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** CooperBench's <run>/config.json (runner/core.py _save_config) names the run's model. */
function configModel(runPath: string): string | undefined {
  const config = readJson(runPath, 'config.json', upstreamConfig, LIMITS.smallJson);
  return config.ok ? config.value.model : undefined;
}

function storeFolder(store: RunStore, folder: TaskFolder, runModel: string | undefined): TaskReport {
  const imported = importFolder(folder, runModel);
  const notes = imported.notes.map((n) => n.slice(0, 500));
  if (!imported.task) return { folder: folder.rel, outcome: 'skipped', reason: imported.skipped, notes };
  const key = taskKey(imported.task.spec);
  const id = saveImportedTask(store, imported.task);
  if (id === undefined)
    return { folder: folder.rel, outcome: 'duplicate', key, reason: `the run already holds task ${key} (from another folder): not imported twice`, notes };
  const outcome = imported.task.result ? 'done' : imported.task.error?.kind === 'interrupted' ? 'interrupted' : 'error';
  return { folder: folder.rel, outcome, key, notes };
}
