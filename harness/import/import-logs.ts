// `coop-bench import`: task folders of a logs tree into a new run store. Layouts:
// - CooperBench's (cooperbench/CooperBench src/cooperbench/eval/runs.py, discover_runs):
//   <run>/<setting>/<repo>/<task_id>/f<i>_f<j>/, and the legacy <run>/<repo>/<task_id>/f<i>_f<j>/;
// - coop-bench's own (harness/store/log-tree.ts): <team>/<setting>[-<variant>]/<repo>/task<id>/f<i>_f<j>/.
// The folder given may be one run, a folder of runs, or a coop-bench run folder (its logs/).
import { existsSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { UserError } from '../errors.ts';
import { RunStore, runDir } from '../store/run-store.ts';
import { saveImportedTask } from '../store/imported-task.ts';
import { saveRepairedPatches } from '../store/repaired-patches.ts';
import { taskKey, type Setting } from '../../tasks/types.ts';
import { LIMITS, linksIn, readJson, subfolders } from './log-files.ts';
import { importOwnFolder } from './own-log-tree.ts';
import { importUpstreamFolder, upstreamConfig, zoneEvidence, type RunDefaults } from './upstream.ts';
import { UTC_FALLBACK, inferZone, parseZone, type Zone, type ZoneEvidence } from './time-zone.ts';
import { NotImported } from './not-imported.ts';
import type { TaskFolder } from './types.ts';

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
  /** Zone of the CooperBench machine's local times (UTC, +02:00, Europe/Berlin); inferred when absent. */
  timezone?: string;
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
  /** Per CooperBench run: the zone its local times were read in, and how it was chosen. */
  timeZones: string[];
  /** Agent frameworks of the imported CooperBench tasks, with their task counts. */
  frameworks: Record<string, number>;
  /** What the logs hold and the run does not keep: one line per kind. */
  notImported: string[];
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

/** Task folders read to infer a run's zone: enough to agree on it, few enough to stay quick. */
const ZONE_SAMPLE = 20;

/** The zone of a run's local times: --timezone, or inferred from the first folders with epoch times. */
function runZone(folders: TaskFolder[], defaults: RunDefaults, timezone: string | undefined): Zone {
  if (timezone) return parseZone(timezone);
  const evidence: ZoneEvidence[] = [];
  for (const folder of folders) {
    if (evidence.length >= ZONE_SAMPLE) break;
    const e = folder.format === 'cooperbench' ? zoneEvidence(folder, defaults) : undefined;
    if (e && e.epochs.length > 0) evidence.push(e);
  }
  return inferZone(evidence) ?? UTC_FALLBACK;
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
  if (options.timezone) parseZone(options.timezone);
  removeAbandonedImports(options.runsDir, options.name);
  const ignored: string[] = [];
  const folders = found.runs.flatMap((run) => taskFolders(found.root, run, options.variant ?? '', ignored));
  // Built under a name of its own and renamed when complete, so that an import that fails or is
  // killed never leaves a run under the chosen name (nor one whose status says running).
  const partName = importingName(options.name, process.pid);
  const partDir = runDir(options.runsDir, partName);
  const store = RunStore.open(options.runsDir, partName, { create: true, exclusive: true });
  const report: ImportReport = {
    dir,
    source: found.root,
    runs: found.runs.map((r) => r.name),
    tasks: [],
    ignored,
    timeZones: [],
    frameworks: {},
    notImported: [],
  };
  try {
    store.startRun({ name: options.name, importedFrom: found.root, runs: report.runs, variant: options.variant ?? '' });
    const notImported = new NotImported();
    const runs = new Map(
      found.runs.map((run) => {
        const defaults = runDefaults(run.path);
        notImported.runFolder(run.path);
        const zone = runZone(
          folders.filter((f) => f.run === run.name),
          defaults,
          options.timezone,
        );
        if (folders.some((f) => f.run === run.name && f.format === 'cooperbench')) report.timeZones.push(`${run.name}: local times read as ${zone.label}`);
        return [run.name, { defaults, zone }];
      }),
    );
    folders.forEach((folder, i) => {
      const run = runs.get(folder.run)!;
      report.tasks.push(storeFolder(store, folder, run.defaults, run.zone, report, notImported));
      if ((i + 1) % 500 === 0) options.log?.(`imported ${i + 1}/${folders.length} task folders`);
    });
    report.notImported = notImported.lines();
    store.setRunStatus('finished');
    writeFileSync(join(store.dir, 'import-report.json'), JSON.stringify(report, null, 2));
    store.close();
    renameSync(partDir, dir);
    return report;
  } catch (error) {
    store.close();
    rmSync(partDir, { recursive: true, force: true });
    throw error;
  }
}

const importingName = (name: string, pid: number) => `${name.slice(0, 80)}-importing-${pid}`;

/** Folders of imports under this name whose process is gone (killed before it could clean up). */
function removeAbandonedImports(runsDir: string, name: string): void {
  const prefix = `${name.slice(0, 80)}-importing-`;
  let entries: string[];
  try {
    entries = readdirSync(resolve(runsDir));
  } catch {
    return;
  }
  for (const entry of entries) {
    const pid = entry.startsWith(prefix) ? Number(entry.slice(prefix.length)) : NaN;
    if (!Number.isInteger(pid) || pid <= 0 || processAlive(pid)) continue;
    rmSync(join(resolve(runsDir), entry), { recursive: true, force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** CooperBench's <run>/config.json (runner/core.py _save_config) names the run's model and agent framework. */
function runDefaults(runPath: string): RunDefaults {
  const config = readJson(runPath, 'config.json', upstreamConfig, LIMITS.smallJson);
  return config.ok ? { model: config.value.model, framework: config.value.agent_framework } : {};
}

function storeFolder(store: RunStore, folder: TaskFolder, defaults: RunDefaults, zone: Zone, report: ImportReport, notImported: NotImported): TaskReport {
  const imported = folder.format === 'coop-bench' ? importOwnFolder(folder) : importUpstreamFolder(folder, defaults, zone);
  if (folder.format === 'cooperbench') notImported.taskFolder(folder.path, imported);
  if (imported.task && imported.framework) report.frameworks[imported.framework] = (report.frameworks[imported.framework] ?? 0) + 1;
  const notes = imported.notes.map((n) => n.slice(0, 500));
  if (!imported.task) return { folder: folder.rel, outcome: 'skipped', reason: imported.skipped, notes };
  const key = taskKey(imported.task.spec);
  const id = saveImportedTask(store, imported.task);
  if (id !== undefined) saveRepairedPatches(store.dir, key, imported.repairedPatches ?? []);
  if (id === undefined)
    return { folder: folder.rel, outcome: 'duplicate', key, reason: `the run already holds task ${key} (from another folder): not imported twice`, notes };
  const outcome = imported.task.result ? 'done' : imported.task.error?.kind === 'interrupted' ? 'interrupted' : 'error';
  return { folder: folder.rel, outcome, key, notes };
}
