// What CooperBench's logs hold that an imported run does not keep, counted by kind so that the
// import's report says it in one line per kind.
import { readdirSync } from 'node:fs';
import { RESULT_FIELDS_NOT_KEPT } from './upstream.ts';
import type { FolderImport } from './types.ts';

/** Task-folder files every import reads (runner/coop.py, runner/solo.py, eval/evaluate.py). */
const READ = /^(result\.json|eval\.json|conversation\.json|(agent\d+|solo)\.patch|(agent\d+|solo)_traj\.json)$/;

/** Files the reference harness writes and the import leaves out, by kind (agent ids as <id>). */
const KINDS: [RegExp, string, string][] = [
  [/^(agent\d*|solo)_full_traj\.json$/, '<id>_full_traj.json', 'the turns before context compaction (the trajectory holds the turns the agent went on from)'],
  [/^(agent\d*|solo)_sent\.jsonl$/, '<id>_sent.jsonl', "Claude Code's log of sent messages (conversation.json holds the same messages)"],
  [/^(agent\d*|solo)_stream\.jsonl$/, '<id>_stream.jsonl', "Claude Code's stream log (read only for Claude Code agents: which limit ended them)"],
  [/^(agent\d*|solo)_session\.jsonl$/, '<id>_session.jsonl', "Claude Code's session log (read only for Claude Code agents)"],
];

/** Run-folder files (runner/core.py, eval/evaluate.py _save_summary). */
const RUN_FILES: Record<string, string> = {
  'config.json': '',
  'eval_summary.json': "CooperBench's own pass rate (the report computes it from the tasks)",
  'summary.json': "CooperBench's run summary (the report computes it from the tasks)",
};

export class NotImported {
  private readonly counts = new Map<string, { why: string; n: number }>();

  private add(kind: string, why: string): void {
    const entry = this.counts.get(kind) ?? { why, n: 0 };
    entry.n++;
    this.counts.set(kind, entry);
  }

  private files(dir: string): string[] {
    try {
      return readdirSync(dir, { withFileTypes: true })
        .filter((e) => !e.isDirectory())
        .map((e) => e.name);
    } catch {
      return [];
    }
  }

  runFolder(dir: string): void {
    for (const name of this.files(dir)) {
      const why = RUN_FILES[name];
      if (why !== '') this.add(name, why ?? 'not a file the reference harness writes');
    }
  }

  taskFolder(dir: string, imported: FolderImport): void {
    const read = new Set(imported.filesRead ?? []);
    for (const name of this.files(dir)) {
      if (READ.test(name) || read.has(name)) continue;
      const kind = KINDS.find(([pattern]) => pattern.test(name));
      if (kind) this.add(kind[1], kind[2]);
      else this.add(name.slice(0, 100), 'not a file the reference harness writes');
    }
    for (const field of imported.resultFieldsNotKept ?? []) this.add(`result.json ${field}`, RESULT_FIELDS_NOT_KEPT[field]!);
  }

  /** One line per kind: what, why, how many. */
  lines(): string[] {
    return [...this.counts].map(([kind, { why, n }]) => `${kind}: ${why} (${n} ${n === 1 ? 'time' : 'times'})`);
  }
}
