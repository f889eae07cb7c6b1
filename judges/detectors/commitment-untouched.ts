// Untouched checks of the commitment checker (commitments.ts), on the agent's own patch, old and new
// side of each hunk: a symbol's lines, a function's parameters (or its whole signature), a whole file,
// a line range of the original file.
import type { JudgeInput } from '../types.ts';
import { pathMatches } from '../patch-lines.ts';
import { inFiles, lineText, type FileCode, type HunkCode } from '../code/patch-code.ts';
import { lastName, sameFunction } from './commitment-code.ts';
import { type CodeUnderCheck, type Finding } from './commitment-evidence.ts';
import type { Commitment } from './commitment-extract.ts';

/** A finding on the agent's own patch: what it changed (`note`) and the line that shows it. */
function ownPatchFinding(c: Commitment, file: FileCode, missing: string, note: string, quote: string): Finding {
  return {
    missing,
    evidence: [
      { kind: 'absence', source: 'patch', agent: c.agent, file: file.path, text: missing, note },
      { kind: 'quote', source: 'patch', agent: c.agent, file: file.path, text: quote.trim() || '(blank line)' },
    ],
  };
}

export function checkUntouchedSymbol(c: Commitment, code: CodeUnderCheck, name: string): Finding | undefined {
  const own = inFiles(code.byAgent.get(c.agent) ?? [], c.target.files);
  const short = lastName(name);
  for (const file of own) {
    for (const h of file.hunks) {
      for (const [side, outline] of [
        ['new', h.after],
        ['old', h.before],
      ] as const) {
        const changed = h.hunk[side].changed;
        // The definition the hunk starts inside (its context line): from the piece's first line to where it ends.
        const context = outline?.context?.name === short ? { line: h.hunk[side].start - 1, endLine: outline.context.endLine } : undefined;
        const definition = [...(outline?.definitions.filter((d) => d.name === short) ?? []), ...(context ? [context] : [])].find((d) =>
          [...changed].some((l) => (l > d.line && l <= d.endLine) || l === d.line),
        );
        const line = definition && [...changed].find((l) => (l > definition.line && l <= definition.endLine) || l === definition.line);
        if (definition && line !== undefined) {
          const note = `${c.agent}'s patch ${side === 'new' ? 'adds' : 'removes'} a line inside \`${short}\` (${file.path}:${line})`;
          return ownPatchFinding(c, file, name, note, lineText(file, side, line));
        }
      }
    }
  }
  return undefined;
}

/** "The existing keyword arguments are unchanged": each parameter the function had is still in its signature, in the agent's own patch. */
export function checkParametersKept(c: Commitment, code: CodeUnderCheck, input: JudgeInput): Finding | undefined {
  // "Retries are in. Signature otherwise unchanged.": a parameter the sender announced is the exception it means.
  const announced = (name: string) =>
    input.conversation.some((m) => m.from === c.agent && m.id <= c.messageId && new RegExp(`(?<![\\w$])${name}(?![\\w$])`).test(m.message));
  const scope = c.target.scope!;
  const signature = (side: 'before' | 'after', h: HunkCode) =>
    h[side]?.definitions.find((d) => d.kind === 'function' && sameFunction(d.name, scope) && d.parameters);
  for (const file of inFiles(code.byAgent.get(c.agent) ?? [], c.target.files)) {
    for (const h of file.hunks) {
      const old = signature('before', h);
      const now = signature('after', h);
      const gone = old && now ? old.parameters!.filter((p) => !now.parameters!.includes(p)) : [];
      const added = old && now && c.target.signature ? now.parameters!.filter((p) => !old.parameters!.includes(p) && !announced(p)) : [];
      if (!old || !now || gone.length + added.length === 0) continue;
      const change = [
        ...(gone.length ? [`removes ${gone.map((p) => `\`${p}\``).join(', ')}`] : []),
        ...(added.length ? [`adds ${added.map((p) => `\`${p}\``).join(', ')}`] : []),
      ].join(' and ');
      return {
        missing: `${scope}(${[...gone, ...added].join(', ')})`,
        evidence: [
          {
            kind: 'absence',
            source: 'patch',
            agent: c.agent,
            file: file.path,
            text: [...gone, ...added].join(', '),
            note: `${c.agent}'s patch ${change} in the parameters of \`${now.name}\` (${file.path}:${now.line})`,
          },
          { kind: 'quote', source: 'patch', agent: c.agent, file: file.path, text: lineText(file, 'old', old.line).trim() },
          { kind: 'quote', source: 'patch', agent: c.agent, file: file.path, text: lineText(file, 'new', now.line).trim() },
        ],
      };
    }
  }
  return undefined;
}

/** A whole file promised untouched ("I won't edit slug.py"): any change the agent's own patch makes to it. */
export function checkUntouchedFile(c: Commitment, code: CodeUnderCheck): Finding | undefined {
  const own = (code.byAgent.get(c.agent) ?? []).filter((f) => c.target.files.some((n) => pathMatches(f.path, n)));
  for (const file of own) {
    for (const { hunk } of file.hunks) {
      const side = hunk.new.changed.size ? 'new' : 'old';
      const line = [...hunk[side].changed][0];
      if (line === undefined) continue;
      return ownPatchFinding(c, file, file.path, `${c.agent}'s patch changes ${file.path} (line ${line})`, lineText(file, side, line));
    }
  }
  return undefined;
}

/** The file a line range refers to: named in the sentence, else in the message or the agent's last message naming one. */
function rangeFiles(c: Commitment, input: JudgeInput, own: readonly FileCode[]): FileCode[] {
  if (c.target.files.length) return inFiles(own, c.target.files);
  const named = input.conversation
    .filter((m) => m.id <= c.messageId)
    .reverse()
    .map((m) =>
      [...m.message.matchAll(/(?<![\w./:-])(?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z]{1,5}\b/g)].map((x) => x[0]).filter((p) => own.some((f) => f.path.endsWith(p))),
    )
    .find((list) => list.length > 0);
  if (named) return inFiles(own, named);
  return own.length === 1 ? [...own] : [];
}

export function checkUntouchedLines(c: Commitment, code: CodeUnderCheck, input: JudgeInput): Finding | undefined {
  const [from, to] = c.target.lines!;
  for (const file of rangeFiles(c, input, code.byAgent.get(c.agent) ?? [])) {
    for (const { hunk } of file.hunks) {
      const removed = [...hunk.old.changed].find((l) => l >= from && l <= to);
      const inserted = hunk.insertedAfter.find((l) => l >= from && l < to);
      if (removed === undefined && inserted === undefined) continue;
      const what = removed !== undefined ? `removes line ${removed}` : `inserts code after line ${inserted}`;
      const text =
        removed !== undefined ? lineText(file, 'old', removed) : ([...hunk.new.changed].map((l) => lineText(file, 'new', l)).find((x) => x.trim()) ?? '');
      return ownPatchFinding(c, file, `lines ${from}-${to}`, `${c.agent}'s patch ${what} of ${file.path}, inside lines ${from}-${to}`, text);
    }
  }
  return undefined;
}

/**
 * "I'm only touching `route()`": a change the agent's own patch makes inside another existing function
 * of the files that show the named ones. Functions the patch adds, and the classes around the named
 * ones, are not other functions; files that do not show them say nothing about the boundary.
 */
export function checkOnlyChanged(c: Commitment, code: CodeUnderCheck): Finding | undefined {
  const kept = c.target.except!;
  const outlines = (f: FileCode) => f.hunks.flatMap((h) => [h.before, h.after]).filter((o) => o !== undefined);
  const shows = (f: FileCode) => outlines(f).some((o) => (o.context && kept.includes(o.context.name)) || o.definitions.some((d) => kept.includes(d.name)));
  for (const file of inFiles(code.byAgent.get(c.agent) ?? [], c.target.files).filter(shows)) {
    const around = new Set(outlines(file).flatMap((o) => o.definitions.filter((d) => kept.includes(d.name)).flatMap((d) => d.scope)));
    for (const h of file.hunks) {
      for (const [side, outline] of [
        ['old', h.before],
        ['new', h.after],
      ] as const) {
        if (!outline) continue;
        const existing = outline.definitions.filter(
          (d) => d.kind === 'function' && (side === 'old' || h.before?.definitions.some((b) => b.name === d.name && b.kind === 'function')),
        );
        // The function the hunk starts inside (its context line), from the piece's first line.
        const context =
          outline.context?.kind === 'function'
            ? [{ name: outline.context.name, line: h.hunk[side].start - 1, endLine: outline.context.endLine, scope: [] }]
            : [];
        for (const d of [...existing, ...context]) {
          if (kept.includes(d.name) || around.has(d.name) || d.scope.some((s) => kept.includes(s))) continue;
          const line = [...h.hunk[side].changed].find((l) => l >= d.line && l <= d.endLine);
          if (line === undefined) continue;
          const where = kept.map((k) => `\`${k}\``).join(', ');
          const note = `${c.agent}'s patch ${side === 'new' ? 'adds' : 'removes'} a line inside \`${d.name}\` (${file.path}:${line}), outside ${where}`;
          return ownPatchFinding(c, file, d.name, note, lineText(file, side, line));
        }
      }
    }
  }
  return undefined;
}
