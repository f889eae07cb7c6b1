// Placements checked by position (commitment-placement.ts): where the words say where but not what
// ("a try/finally around the handler call in `dispatch()`", "the check is its first statement"),
// what the sender placed is the statements its own patch adds to the named function. They must reach
// the tested code and sit at the stated place there. A function, its body or an anchor the code does
// not show leaves the claim undecided.
import { callsIn, functionsIn, inFiles, usagesIn, type FileCode } from '../code/patch-code.ts';
import type { FunctionBody, Span } from '../code/statements.ts';
import { lastName, sameFunction } from './commitment-code.ts';
import { codeQuote, describeTarget, type CodeUnderCheck, type Finding } from './commitment-evidence.ts';
import type { Commitment } from './commitment-extract.ts';

interface Placed {
  path: string;
  line: number;
  text: string;
}

const fileOf = (files: readonly FileCode[], path: string) => files.find((f) => f.path === path)!;

export const within = (line: number, span: Span) => line >= span.line && line <= span.endLine;

/** The named function's bodies in the files. */
const bodiesOf = (files: readonly FileCode[], scope: string) => functionsIn(files).filter((b) => sameFunction(b.name, scope));

/** Lines of code a file shows that lie in the function: inside a body the piece shows, or named by facts scoped to it. */
function linesIn(file: FileCode, scope: string, lines: readonly { line: number; text: string }[]): Placed[] {
  const bodies = bodiesOf([file], scope);
  const scoped = new Set([...usagesIn([file]), ...callsIn([file])].filter((u) => u.scope.some((s) => sameFunction(s, scope))).map((u) => u.line));
  // A line without a word (`}`, `});`) says nothing about what was placed.
  return lines
    .filter((l) => /\w/.test(l.text) && (scoped.has(l.line) || bodies.some((b) => within(l.line, b) && b.line !== l.line)))
    .map((l) => ({ path: file.path, line: l.line, text: l.text.trim() }));
}

/**
 * The tested code's added lines with the text of one of the sender's own placed lines, in the same file.
 * Added, not shown: a line the sender moved (`release(slot)` into a `finally`) is still shown where it was.
 */
function addedCopies(files: readonly FileCode[], own: readonly Placed[]): Placed[] {
  const texts = new Set(own.map((p) => p.text));
  return files
    .filter((f) => own.some((p) => p.path === f.path))
    .flatMap((f) => f.file.added.map((l) => ({ path: f.path, line: l.line, text: l.text.trim() })))
    .filter((l) => texts.has(l.text));
}

/**
 * Whether code (`this._validate`, `s.data`) names an anchor's word: contains it, or one of its words shares
 * the word's stem ("validation" names `_validate`, "persisting" names `Persist`).
 */
export function namesWord(code: string, word: string): boolean {
  if (code.toLowerCase().includes(word)) return true;
  const parts = code
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return parts.some((p) => {
    let n = 0;
    while (n < p.length && n < word.length && p[n] === word[n]) n++;
    return n >= 5 && n >= Math.min(p.length, word.length) - 3;
  });
}

/** The lines that open the functions the files show: a name in a signature (`-> Option<Reading>`) is no anchor in the body. */
export function headerLines(files: readonly FileCode[]): Set<string> {
  return new Set(functionsIn(files).map((b) => `${b.path}:${b.line}`));
}

/** Lines of the function where the anchor is: calls of the named code, or calls and names containing the anchor's words. */
function anchorLines(files: readonly FileCode[], c: Commitment, scope: string, path: string): number[] {
  const t = c.target;
  const headers = headerLines(files);
  const inScope = (x: { path: string; scope: string[]; line: number }) =>
    x.path === path && x.scope.some((s) => sameFunction(s, scope)) && !headers.has(`${x.path}:${x.line}`);
  if (t.anchor) {
    // "after the `running` increment": a name the code uses where no call has it.
    const calls = callsIn(files).filter((a) => inScope(a) && a.name === lastName(t.anchor!));
    return (calls.length ? calls : usagesIn(files).filter((u) => inScope(u) && u.name === lastName(t.anchor!))).map((a) => a.line);
  }
  const words = (t.anchorWords ?? []).map((w) => w.toLowerCase());
  if (words.length === 0) return [];
  const named = (text: string) => words.some((w) => namesWord(text, w));
  return [...callsIn(files).filter((a) => inScope(a) && named(a.callee)), ...usagesIn(files).filter((u) => inScope(u) && named(u.name))].map((a) => a.line);
}

/**
 * Whether one of the lines is in the function's last statement, or the one before it ("the last step,
 * right before handing back `Ok(cfg)`": the statement before a final return is last too); undefined
 * where the function's end is not shown.
 */
export function atEnd(body: FunctionBody, lines: readonly number[]): boolean | undefined {
  const ends = body.endShown ? body.statements.slice(-2) : [];
  return ends.length ? lines.some((l) => ends.some((s) => within(l, s))) : undefined;
}

/** Why the placed code is not at the stated place, or undefined when it is (or the code does not show). */
function misplacement(c: Commitment, name: string, placed: readonly Placed[], body: FunctionBody | undefined, anchors: readonly number[]): string | undefined {
  const t = c.target;
  const lines = placed.map((p) => p.line);
  const scope = `\`${name}()\``;
  if (t.loop) {
    // In the loop's body: a changed loop header (`for v in &values {`) is not code inside the loop.
    if (!body || lines.some((l) => body.blocks.some((b) => b.kind === 'loop' && within(l, b) && l > b.line))) return undefined;
    return `is in ${scope} but outside its loop`;
  }
  if (t.position === 'first') {
    const first = body?.startShown ? body.statements[0] : undefined;
    return first && !lines.some((l) => within(l, first)) ? `is in ${scope} but not its first statement (line ${first.line} is)` : undefined;
  }
  if (t.position === 'last') return body && atEnd(body, lines) === false ? `is in ${scope} but not at its end` : undefined;
  const others = lines.filter((l) => !anchors.includes(l));
  if (anchors.length === 0 || others.length === 0) return undefined;
  if (t.position === 'before' && Math.min(...others) > Math.max(...anchors)) return `comes after the anchor (line ${Math.max(...anchors)})`;
  if (t.position === 'after' && Math.max(...others) < Math.min(...anchors)) return `comes before the anchor (line ${Math.min(...anchors)})`;
  if (t.position === 'around' && body) {
    // A try (or `with`) the sender placed wraps the anchor when the anchor is in its body, not in a handler or after it;
    // without one, a wrapping call is on the anchor's own line.
    const tries = body.blocks.filter((b) => b.kind === 'try' && lines.some((l) => within(l, b)));
    const wrapped = tries.length ? anchors.some((a) => tries.some((b) => within(a, b.inner ?? b))) : anchors.some((a) => lines.includes(a));
    return wrapped ? undefined : `does not wrap the anchor (line ${anchors[0]})`;
  }
  return undefined;
}

/**
 * The function of a placement named by its anchor alone ("log call added after `backend.push`"): the one
 * function in which the sender's patch adds lines and the anchor is. None where several are, or where the
 * patch adds an indented line in no function it shows (a function whose start the hunk leaves out may be it).
 */
function anchoredScope(c: Commitment, ownFiles: readonly FileCode[]): string | undefined {
  const added = (f: FileCode, b: FunctionBody) => f.file.added.some((l) => within(l.line, b) && l.line !== b.line && /\w/.test(l.text));
  const unplaced = ownFiles.some((f) => f.file.added.some((l) => /^\s+\S*\w/.test(l.text) && !functionsIn([f]).some((b) => within(l.line, b))));
  if (unplaced) return undefined;
  const names = new Set(
    ownFiles.flatMap((f) =>
      functionsIn([f])
        .filter((b) => added(f, b) && anchorLines([f], c, b.name, f.path).length > 0)
        .map((b) => b.name),
    ),
  );
  return names.size === 1 ? [...names][0] : undefined;
}

export function checkPlacedCode(c: Commitment, code: CodeUnderCheck): Finding | undefined {
  const ownFiles = inFiles(code.byAgent.get(c.agent) ?? [], c.target.files);
  const scope = c.target.scope ?? anchoredScope(c, ownFiles);
  if (!scope) return undefined;
  const own = ownFiles.flatMap((f) => linesIn(f, scope, f.file.added));
  if (own.length === 0) return undefined;
  const source = code.source === 'merged' ? 'merged' : 'patch';
  const what = `the code ${c.agent} added`;
  const copies = code.source === 'merged' ? addedCopies(code.files, own) : own;
  if (copies.length === 0) {
    return {
      missing: 'its code',
      evidence: [
        { kind: 'absence', source, text: own[0]!.text, note: `none of ${what} to \`${scope}()\` in its own patch is in ${describeTarget(code)}` },
        codeQuote('patch', own[0]!, c.agent),
      ],
    };
  }
  // A function the sender wrote whole holds only its code: there is no place in it to miss.
  const added = (f: FileCode) => new Set(f.file.added.map((l) => l.line));
  if (ownFiles.some((f) => bodiesOf([f], scope).some((b) => b.startShown && added(f).has(b.line)))) return undefined;
  // Kept, but in a function of another name (the partner renamed it): not decided.
  const placed = code.source === 'merged' ? copies.filter((p) => linesIn(fileOf(code.files, p.path), scope, [p]).length > 0) : own;
  if (placed.length === 0) return undefined;
  const path = placed[0]!.path;
  const shown = code.source === 'merged' ? code.files : ownFiles;
  const body = bodiesOf(
    shown.filter((f) => f.path === path),
    scope,
  ).find((b) => placed.some((p) => p.path === path && within(p.line, b)));
  const wrong = misplacement(c, scope, placed, body, anchorLines(shown, c, scope, path));
  return wrong
    ? { missing: 'its code', evidence: [{ kind: 'absence', source, text: placed[0]!.text, note: `${what} ${wrong}` }, codeQuote(source, placed[0]!)] }
    : undefined;
}
