// What the commitment checker checks against (commitments.ts): the tested code (the merged patch, or
// the agents' patches where the merge produced nothing testable), and the evidence it quotes from it.
import { isTestPath } from '../../resolver/test-files.ts';
import type { Evidence, JudgeInput } from '../types.ts';
import { patchFiles } from '../patch-lines.ts';
import { addedLinesNaming, codeOf, definitionsIn, inFiles, type FileCode } from '../code/patch-code.ts';
import type { Commitment } from './commitment-extract.ts';
import { lastName } from './commitment-code.ts';

const TESTED_MERGES = new Set(['clean', 'union', 'llm']);

export interface CodeUnderCheck {
  /** 'merged': the merged patch; 'patches': the agents' patches (the merge failed). */
  source: 'merged' | 'patches';
  files: FileCode[];
  byAgent: Map<string, FileCode[]>;
  mergeStatus?: string;
}

export function codeUnderCheck(input: JudgeInput): CodeUnderCheck {
  const byAgent = new Map(input.patches.map((p) => [p.agent, codeOf(patchFiles(p.patch))]));
  const all = [...byAgent.values()].flat();
  if (input.merge && TESTED_MERGES.has(input.merge.status)) {
    return {
      source: 'merged',
      files: [...codeOf(patchFiles(input.merge.patch)), ...all.filter((f) => isTestPath(f.path))],
      byAgent,
      mergeStatus: input.merge.status,
    };
  }
  return { source: 'patches', files: all, byAgent, mergeStatus: input.merge?.status };
}

export function describeTarget(code: CodeUnderCheck): string {
  if (code.source === 'merged') return 'the merged code';
  return `the agents' patches (${code.mergeStatus ? `the merge ended as ${code.mergeStatus}` : 'there was no merge'})`;
}

/** A broken target: what is wrong, and the code lines that show it. */
export interface Finding {
  missing: string;
  evidence: Evidence[];
}

/** A line without its comment and one-line docstring: words there (`"""At most `max_batch_size`."""`) are not code. */
const codePart = (line: string) => line.replace(/""".*?"""|'''.*?'''/g, '').replace(/(?:^|\s)(?:#|\/\/).*$/, '');

/**
 * Whether a line the code shows (added or context) names `name` in its code: it may be defined outside the
 * hunks. For a promised member (`Pool.close`), an added attribute use (`pool.close()`) shows no definition:
 * the partner may have written the call on the promise's word.
 */
export function shownLinesNaming(files: readonly FileCode[], name: string, member = false): boolean {
  const word = (before: string) => new RegExp(`(?<![\\w$${before}])${name.replace(/[$]/g, '\\$')}(?![\\w$])`);
  const shown = word('');
  const added = member ? word('.') : shown;
  return files.some((f) =>
    f.hunks.some(({ hunk }) => hunk.new.lines.some((l, i) => (hunk.new.changed.has(hunk.new.start + i) ? added : shown).test(codePart(l)))),
  );
}

export function codeQuote(source: 'merged' | 'patch', at: { path: string; text: string }, agent?: string): Evidence {
  return { kind: 'quote', source, file: at.path, text: at.text, ...(agent && { agent }) };
}

/** Where the agent's own patch stands on a name the tested code lacks. */
export function ownPatchNote(c: Commitment, code: CodeUnderCheck, name: string): Evidence[] {
  if (code.source !== 'merged') return [{ kind: 'fact', text: `${c.agent}'s patch never added \`${name}\`` }];
  const own = inFiles(code.byAgent.get(c.agent) ?? [], c.target.files);
  const defined = definitionsIn(own).find((d) => d.name === lastName(name)) ?? addedLinesNaming(own, lastName(name))[0];
  if (!defined) return [{ kind: 'fact', text: `${c.agent}'s patch never added \`${name}\`` }];
  // A line the merged code still has (a use: `w.count_ones()`) was not lost: the patch never defined the name.
  const kept = addedLinesNaming(inFiles(code.files, [defined.path]), lastName(name)).some((l) => l.text === defined.text.trim());
  if (kept) return [{ kind: 'fact', text: `${c.agent}'s patch never defined \`${name}\`` }];
  return [
    codeQuote('patch', defined, c.agent),
    { kind: 'fact', text: `${c.agent}'s patch added it (${defined.path}:${defined.line}); it was lost in the merge` },
  ];
}
