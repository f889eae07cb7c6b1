// Broken commitments, without an LLM: every promise or completion claim that names new code is
// checked against the code that was tested, i.e. the merged patch (plus the agents' test files,
// which the merge drops on purpose). When the merge produced nothing testable, the agents'
// patches together stand in for it. Code promised for a named file must be in that file; a
// promise to change a file is broken only if no patch changed it.
import { isTestPath } from '../../resolver/test-files.ts';
import type { Evidence, JudgeInput, JudgeLabel } from '../types.ts';
import { patchFiles, pathMatches, type PatchFile } from '../patch-lines.ts';
import { extractCommitments, identifierPattern, withdrawal, type Commitment } from './commitment-extract.ts';

const TESTED_MERGES = new Set(['clean', 'union', 'llm']);

interface CodeUnderCheck {
  /** 'merged': the merged patch; 'patches': the agents' patches (the merge failed). */
  source: 'merged' | 'patches';
  files: PatchFile[];
  byAgent: Map<string, PatchFile[]>;
  mergeStatus?: string;
}

function codeUnderCheck(input: JudgeInput): CodeUnderCheck {
  const byAgent = new Map(input.patches.map((p) => [p.agent, patchFiles(p.patch)]));
  const all = [...byAgent.values()].flat();
  if (input.merge && TESTED_MERGES.has(input.merge.status)) {
    const testFiles = all.filter((f) => isTestPath(f.path));
    return { source: 'merged', files: [...patchFiles(input.merge.patch), ...testFiles], byAgent, mergeStatus: input.merge.status };
  }
  return { source: 'patches', files: all, byAgent, mergeStatus: input.merge?.status };
}

/** The first added line containing `name`, if any. */
function findAdded(files: readonly PatchFile[], name: string): { file: string; line: number; text: string } | undefined {
  const pattern = identifierPattern(name);
  for (const file of files) {
    const hit = file.added.find((l) => pattern.test(l.text));
    if (hit) return { file: file.path, line: hit.line, text: hit.text };
  }
  return undefined;
}

function touches(files: readonly PatchFile[], mentioned: string): boolean {
  return files.some((f) => pathMatches(f.path, mentioned) && (f.added.length > 0 || f.removed.length > 0));
}

/**
 * Whether a commitment's code must be in the files it names. A bare name that matches no changed
 * file ("the types.py module") is taken loosely (anywhere); a path nobody changed holds nothing.
 */
function namedFilesMatter(commitment: Commitment, allChanged: readonly PatchFile[]): boolean {
  if (commitment.files.length === 0) return false;
  return allChanged.some((f) => isNamed(f, commitment)) || commitment.files.some((mentioned) => mentioned.includes('/'));
}

function isNamed(file: PatchFile, commitment: Commitment): boolean {
  return commitment.files.some((mentioned) => pathMatches(file.path, mentioned));
}

function describeTarget(code: CodeUnderCheck): string {
  if (code.source === 'merged') return 'the merged code';
  return `the agents' patches (${code.mergeStatus ? `the merge ended as ${code.mergeStatus}` : 'there was no merge'})`;
}

function missingIdentifiers(commitment: Commitment, code: CodeUnderCheck, input: JudgeInput): Evidence[] {
  const scoped = namedFilesMatter(commitment, [...code.files, ...[...code.byAgent.values()].flat()]);
  const inScope = (files: readonly PatchFile[]) => (scoped ? files.filter((f) => isNamed(f, commitment)) : files);
  const target = inScope(code.files);
  const own = inScope(code.byAgent.get(commitment.agent) ?? []);
  const where = scoped ? ` to ${commitment.files.join(' or ')}` : '';
  const evidence: Evidence[] = [];
  for (const name of commitment.identifiers) {
    if (findAdded(target, name) || withdrawal(input.conversation, commitment, name)) continue;
    const inOwn = code.source === 'merged' ? findAdded(own, name) : undefined;
    const elsewhere = findAdded(code.files, name);
    evidence.push({
      kind: 'absence',
      source: code.source === 'merged' ? 'merged' : 'patch',
      text: name,
      note: `no line added${where} in ${describeTarget(code)} contains \`${name}\``,
    });
    if (elsewhere) {
      evidence.push({ kind: 'fact', text: `\`${name}\` was added in ${elsewhere.file} instead` });
    } else if (inOwn) {
      evidence.push({ kind: 'quote', source: 'patch', agent: commitment.agent, file: inOwn.file, text: inOwn.text.trim() });
      evidence.push({ kind: 'fact', text: `${commitment.agent}'s patch added it (${inOwn.file}:${inOwn.line}); it was lost in the merge` });
    } else {
      evidence.push({ kind: 'fact', text: `${commitment.agent}'s patch never added \`${name}\`` });
    }
  }
  return evidence;
}

function untouchedFiles(commitment: Commitment, code: CodeUnderCheck, input: JudgeInput): Evidence[] {
  const everyone = [...code.byAgent.values()].flat();
  return commitment.files
    .filter((file) => !touches(everyone, file) && !withdrawal(input.conversation, commitment, file))
    .map((file): Evidence => ({ kind: 'absence', source: 'patch', agent: commitment.agent, file, text: file, note: `no patch changes ${file}` }));
}

export function brokenCommitments(input: JudgeInput, commitments: readonly Commitment[] = extractCommitments(input.conversation)): JudgeLabel[] {
  if (commitments.length === 0 || input.patches.length === 0) return [];
  const code = codeUnderCheck(input);
  const labels: JudgeLabel[] = [];
  for (const c of commitments) {
    const absent = c.modifiesFiles ? untouchedFiles(c, code, input) : missingIdentifiers(c, code, input);
    const missing = absent.filter((e) => e.kind === 'absence').map((e) => e.text);
    if (missing.length === 0) continue;
    const what = c.modifiesFiles ? `to change ${missing.join(', ')}` : `${missing.map((m) => `\`${m}\``).join(', ')}`;
    labels.push({
      judge: 'detectors',
      label: 'broken_commitment',
      isPrimary: false,
      messageId: c.messageId,
      agent: c.agent,
      description: `${c.agent} ${c.kind === 'promise' ? 'promised' : 'claimed'} ${what}, missing from ${c.modifiesFiles ? 'every patch' : describeTarget(code)}`,
      evidence: [{ kind: 'quote', source: 'conversation', text: c.quote, messageId: c.messageId, agent: c.agent }, ...absent],
    });
  }
  return labels;
}
