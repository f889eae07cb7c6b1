// The code a patch shows, as syntax: each hunk's two sides parsed (syntax.ts), with the facts the
// commitment checker asks about (definitions, exports, calls, guards, names used) located by file
// and line, and the text of any shown line for evidence.
import { patchFiles, pathMatches, type Hunk, type PatchFile } from '../patch-lines.ts';
import { languageOf, loadGrammars, type CodeLanguage } from '../../resolver/grammars.ts';
import { contextIsFunction, contextScope } from './pieces.ts';
import type { FunctionBody } from './statements.ts';
import { outline, type Call, type Definition, type Guard, type Outline, type Usage } from './syntax.ts';

export interface HunkCode {
  hunk: Hunk;
  /** Undefined where the file's language has no grammar: the checker then falls back to the lines' text. */
  before?: Outline;
  after?: Outline;
}

export interface FileCode {
  path: string;
  file: PatchFile;
  language?: CodeLanguage;
  hunks: HunkCode[];
}

export type Located<T> = T & { path: string; text: string };

/** Loads the grammars a set of patches needs. */
export async function loadGrammarsFor(patches: readonly string[]): Promise<void> {
  const wanted = new Set<CodeLanguage>();
  for (const patch of patches)
    for (const f of patchFiles(patch)) {
      const language = languageOf(f.path);
      if (language) wanted.add(language);
    }
  if (wanted.size > 0) await loadGrammars(wanted);
}

export function fileCode(file: PatchFile): FileCode {
  const language = languageOf(file.path);
  const initModule = /(?:^|\/)__init__\.py$/.test(file.path);
  return {
    path: file.path,
    file,
    language,
    hunks: file.hunks.map((hunk) => {
      if (!language) return { hunk };
      const scope = contextScope(hunk.context);
      const scopeIsFunction = contextIsFunction(hunk.context);
      return {
        hunk,
        before: hunk.old.lines.length
          ? outline({ language, lines: hunk.old.lines, start: hunk.old.start, scope, scopeIsFunction, initModule, context: hunk.context })
          : undefined,
        after: outline({ language, lines: hunk.new.lines, start: hunk.new.start, scope, scopeIsFunction, initModule, context: hunk.context }),
      };
    }),
  };
}

export function codeOf(files: readonly PatchFile[]): FileCode[] {
  return files.map(fileCode);
}

/** The text of a line shown on one side of a file's hunks. */
export function lineText(file: FileCode, side: 'old' | 'new', line: number): string {
  for (const { hunk } of file.hunks) {
    const s = hunk[side];
    if (line >= s.start && line < s.start + s.lines.length) return s.lines[line - s.start]!;
  }
  return '';
}

/** Files named in a commitment, or every file when it names none (or none that changed). */
export function inFiles(files: readonly FileCode[], named: readonly string[]): FileCode[] {
  if (named.length === 0) return [...files];
  const matching = files.filter((f) => named.some((n) => pathMatches(f.path, n)));
  return matching.length > 0 || named.some((n) => n.includes('/')) ? matching : [...files];
}

function collect<T extends { line: number }>(files: readonly FileCode[], pick: (o: Outline) => readonly T[]): Located<T>[] {
  const found = new Map<string, Located<T>>();
  for (const f of files) {
    for (const h of f.hunks) {
      // Context lines repeat in neighbouring hunks: one fact per file, line and content.
      for (const item of h.after ? pick(h.after) : [])
        found.set(`${f.path}\u0000${JSON.stringify(item)}`, { ...item, path: f.path, text: lineText(f, 'new', item.line).trim() });
    }
  }
  return [...found.values()];
}

export const definitionsIn = (files: readonly FileCode[]) => collect<Definition>(files, (o) => o.definitions);
export const callsIn = (files: readonly FileCode[]) => collect<Call>(files, (o) => o.calls);
export const guardsIn = (files: readonly FileCode[]) => collect<Guard>(files, (o) => o.guards);
export const usagesIn = (files: readonly FileCode[]) => collect<Usage>(files, (o) => o.usages);
export const functionsIn = (files: readonly FileCode[]) => collect<FunctionBody>(files, (o) => o.functions);

export function exportListed(files: readonly FileCode[], name: string): Located<{ line: number }> | undefined {
  for (const f of files) {
    for (const h of f.hunks) {
      if (h.after?.exportList.has(name)) {
        const index = h.hunk.new.lines.findIndex((l) => new RegExp(`(?<![\\w$])${name}(?![\\w$])`).test(l));
        const line = h.hunk.new.start + Math.max(0, index);
        return { path: f.path, line, text: lineText(f, 'new', line).trim() };
      }
    }
  }
  return undefined;
}

/**
 * Whether the files re-export a whole module (`export * from './percent'`, `from .loader import *`,
 * `pub use crate::duration::*`) that is the file at `path` (its last segment names the file), or any
 * module when no path is known.
 */
export function reexportsWhole(files: readonly FileCode[], path?: string): boolean {
  const sources = files.flatMap((f) => f.hunks.flatMap((h) => h.after?.wildcardSources ?? []));
  if (path === undefined) return sources.length > 0;
  const stem = path.replace(/^.*\//, '').replace(/\.\w+$/, '');
  return sources.some(
    (s) =>
      s
        .split(/::|[./]/)
        .filter(Boolean)
        .at(-1) === stem,
  );
}

/** Added lines (any language) that contain `name` as a word: the fallback where no grammar applies. */
export function addedLinesNaming(files: readonly FileCode[], name: string): Located<{ line: number }>[] {
  const pattern = new RegExp(`(?<![\\w$])${name.replace(/[$]/g, '\\$')}(?![\\w$])`);
  return files.flatMap((f) => f.file.added.filter((l) => pattern.test(l.text)).map((l) => ({ path: f.path, line: l.line, text: l.text.trim() })));
}
