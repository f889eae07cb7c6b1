// Placement checks of the commitment checker (commitments.ts): a call or guard at the stated place in
// its function (first, in its loop, before or after an anchor), and a new definition next to another.
import { addedLinesNaming, callsIn, definitionsIn, functionsIn, guardsIn, inFiles, usagesIn, type FileCode } from '../code/patch-code.ts';
import { lastName, sameFunction } from './commitment-code.ts';
import { codeQuote, describeTarget, ownPatchNote, type CodeUnderCheck, type Finding } from './commitment-evidence.ts';
import type { Commitment, Target } from './commitment-extract.ts';
import { atEnd, checkPlacedCode, headerLines, namesWord, within } from './commitment-position.ts';

/** A new definition said to sit before or after another: broken when both are shown in one place in the other order. */
function checkDefinitionOrder(c: Commitment, code: CodeUnderCheck): Finding | undefined {
  const t = c.target;
  const definitions = definitionsIn(inFiles(code.files, t.files)).filter((d) => d.kind !== 'parameter');
  const defined = definitions.find((d) => d.name === lastName(t.names[0]!));
  const anchor = defined && definitions.find((d) => d.name === lastName(t.anchor!) && d.path === defined.path && d.scope.join('.') === defined.scope.join('.'));
  if (!defined || !anchor || (t.position === 'before' ? defined.line < anchor.line : defined.line > anchor.line)) return undefined;
  const source = code.source === 'merged' ? 'merged' : 'patch';
  const what = `\`${defined.name}\` ${t.position} \`${anchor.name}\``;
  return misplaced(
    what,
    source,
    `\`${defined.name}\` (${defined.path}:${defined.line}) is defined ${t.position === 'before' ? 'after' : 'before'} \`${anchor.name}\` (line ${anchor.line})`,
    defined,
  );
}

/** Literals and receivers every language's checks are full of: they say nothing about which check it is. */
const UNTELLING = /^(?:nil|null|none|undefined|true|false|0|self|this)$/i;

/**
 * The guards whose condition contains one of the words, in any case ("bypass" for `self._bypass`, "Close"
 * for `p.closed`); where some contain one with its case, those (`Err` is `ctx.Err()`, not `err != nil`).
 * A word of one or two letters (`e`, `ok`) is a name only as a whole name (`e` is not in `b.best`), and
 * a literal (`nil`) or a receiver (`self`) counts only when no other word is given.
 */
function guardsTesting<G extends { condition: string }>(guards: readonly G[], words: readonly string[]): G[] {
  const telling = words.filter((w) => !UNTELLING.test(w));
  const named = telling.length ? telling : words;
  const contains = (condition: string, word: string) =>
    word.length > 2 ? condition.includes(word) : new RegExp(`(?<![\\w$])${word.replace(/\W/g, '\\$&')}(?![\\w$])`).test(condition);
  const exact = guards.filter((g) => named.some((w) => contains(g.condition, w)));
  return exact.length ? exact : guards.filter((g) => named.some((w) => contains(g.condition.toLowerCase(), w.toLowerCase())));
}

/** The guards on added lines of a function, and its calls to a helper with one ("a small `_ensure_fresh` helper, which poll() calls"): the check sits where the call is. */
function addedGuardsIn(files: readonly FileCode[], scope: string) {
  const inScope = (x: { scope: string[] }) => x.scope.some((s) => sameFunction(s, scope));
  const added = guardsIn(files).filter((g) => files.some((f) => f.path === g.path && f.file.added.some((l) => l.line === g.line)));
  const helpers = new Set(added.filter((g) => !inScope(g)).map((g) => g.scope.at(-1)));
  return [...added.filter(inScope), ...callsIn(files).filter((call) => inScope(call) && helpers.has(call.name))];
}

/** The calls to the names, in their case where some are (`Flush`), else in any case ("flush" for `q.sink.Flush()`). */
function callsOf(files: readonly FileCode[], names: readonly string[]) {
  const calls = callsIn(files);
  const wanted = names.map(lastName);
  const exact = calls.filter((call) => wanted.includes(call.name));
  return exact.length ? exact : calls.filter((call) => wanted.some((n) => n.toLowerCase() === call.name.toLowerCase()));
}

/** "first" in a function, or in its loop when the promise says so ("first thing each iteration"). */
const firstWhere = (t: Target, x: { first?: boolean; firstInLoop?: boolean }) => (t.loop ? x.firstInLoop : x.first);

/** Code found, but not where it was promised: the note says where it is, the quote shows it. */
function misplaced(what: string, source: 'merged' | 'patch', note: string, at: { path: string; text: string }): Finding {
  return { missing: what, evidence: [{ kind: 'absence', source, text: what, note }, codeQuote(source, at)] };
}

export function checkPlacement(c: Commitment, code: CodeUnderCheck): Finding | undefined {
  const t = c.target;
  if (t.definition) return checkDefinitionOrder(c, code);
  // Placed code the words do not name: where the sender's own added code is.
  if (!t.guard && t.names.length === 0) return checkPlacedCode(c, code);
  const files = inFiles(code.files, t.files);
  const source = code.source === 'merged' ? 'merged' : 'patch';
  const what = t.guard ? `a check on ${t.guard.join(' ')}` : `a call to \`${t.names.join('`, `')}\``;
  const candidates: { line: number; scope: string[]; first?: boolean; loop?: boolean; firstInLoop?: boolean; path: string; text: string }[] = t.guard
    ? guardsTesting(guardsIn(files), t.guard)
    : callsOf(files, t.names);
  const place = `${t.position === 'first' ? 'first ' : ''}in ${t.scope ? `\`${t.scope}()\`` : 'the named place'}`;
  if (candidates.length === 0) {
    // Nothing of the kind anywhere: the claimed guard or call is not there.
    const text = t.guard ? t.guard[0]! : t.names[0]!;
    // The name on an added line may be a call the grammar did not read; where the named place is a function the code
    // shows, the line that defines the name is no call (a place that is a type may hold the definition itself).
    const shownFunction = t.scope !== undefined && functionsIn(files).some((b) => sameFunction(b.name, t.scope!));
    const defines = new Set(definitionsIn(files).flatMap((d) => (shownFunction && d.name === lastName(text) ? [`${d.path}:${d.line}`] : [])));
    if (!t.guard && addedLinesNaming(files, lastName(text)).some((l) => !defines.has(`${l.path}:${l.line}`))) return undefined;
    // "the capacity check" may test `self.cap`: plain words need not name the condition, so a guard added at the
    // promised place may be it. A code name (`_closed`, `Err`) says what the condition tests.
    const inWords = t.guard?.every((w) => !/[_A-Z0-9]/.test(w));
    // Such a guard's place is where the sender's own added code in the function is.
    if (inWords && t.scope && addedGuardsIn(files, t.scope).some((g) => t.position !== 'first' || firstWhere(t, g) !== false)) return checkPlacedCode(c, code);
    return {
      missing: what,
      evidence: [
        {
          kind: 'absence',
          source,
          text,
          note: `no ${t.guard ? '`if` testing' : 'call to'} \`${text}\` ${t.scope ? `in \`${t.scope}()\` ` : ''}in ${describeTarget(code)}`,
        },
        ...(t.guard ? [] : ownPatchNote(c, code, text)),
      ],
    };
  }
  const inScope = t.scope ? candidates.filter((x) => x.scope.some((s) => sameFunction(s, t.scope!))) : candidates;
  if (t.scope && inScope.length === 0) {
    // A check in a helper the function calls (`self.ensure_active()?`) sits where that call is.
    inScope.push(...callsIn(files).filter((call) => call.scope.some((s) => sameFunction(s, t.scope!)) && candidates.some((x) => x.scope.at(-1) === call.name)));
  }
  if (inScope.length === 0) {
    // Shown elsewhere: broken only when every candidate's function is known. Code of a hunk that starts inside a
    // method its context line does not name (`impl Samples {`) may be the rest of the named function, when an
    // earlier hunk shows that function's start and not its end.
    if (candidates.some((x) => x.scope.length === 0)) return undefined;
    const known = new Set([...functionsIn(files).map((b) => b.name), ...definitionsIn(files).flatMap((d) => (d.kind === 'function' ? [d.name] : []))]);
    const open = functionsIn(files).some((b) => sameFunction(b.name, t.scope!) && !b.endShown);
    if (open && candidates.some((x) => !known.has(x.scope.at(-1)!))) return undefined;
    const other = candidates[0]!;
    return misplaced(what, source, `${what} is in \`${other.scope.at(-1)}()\` (${other.path}:${other.line}), not ${place}`, other);
  }
  if (t.position === 'around' && !t.anchor && !t.anchorWords?.length) {
    // "the `compile(src)` call goes inside the try": the call sits in the body of a try of its function. Only a
    // function whose start is shown shows every try that could enclose it.
    const x = inScope[0]!;
    const body = functionsIn(files).find((b) => b.path === x.path && b.startShown && within(x.line, b) && sameFunction(b.name, x.scope.at(-1) ?? ''));
    if (body && !inScope.some((y) => body.blocks.some((b) => b.kind === 'try' && within(y.line, b.inner ?? b)))) {
      return misplaced(what, source, `${what} is in \`${body.name}()\` (${x.path}:${x.line}) but in no try there`, x);
    }
  }
  if (t.loop && inScope.every((x) => x.loop === false)) {
    const x = inScope[0]!;
    return misplaced(what, source, `${what} is in \`${t.scope ?? x.scope.at(-1)}()\` (${x.path}:${x.line}) but outside its loop`, x);
  }
  if (t.position === 'first' && inScope.every((x) => firstWhere(t, x) === false)) {
    const x = inScope[0]!;
    const where = t.loop ? `its loop's first statement` : 'its first statement';
    return misplaced(what, source, `${what} is in \`${t.scope}()\` (${x.path}:${x.line}) but not ${where}`, x);
  }
  if (t.position === 'last') {
    const x = inScope[0]!;
    const lines = inScope.map((y) => y.line);
    const body = functionsIn(files).find((b) => b.path === x.path && x.line >= b.line && x.line <= b.endLine && sameFunction(b.name, x.scope.at(-1) ?? ''));
    if (body && atEnd(body, lines) === false) return misplaced(what, source, `${what} is in \`${body.name}()\` (${x.path}:${x.line}) but not at its end`, x);
  }
  if ((t.anchor || t.anchorWords?.length) && (t.position === 'before' || t.position === 'after')) {
    const x = inScope[0]!;
    const headers = headerLines(files);
    const sameScope = (a: { path: string; scope: string[]; line: number }) =>
      a.path === x.path && a.scope.join('.') === x.scope.join('.') && a.line !== x.line && !headers.has(`${a.path}:${a.line}`);
    // An anchor named in words ("after taking the lock", "before the handler") is the first call in the function
    // that contains one of them, else the first name (`with self._lock:`): `const handler = …` is not the call.
    const words = (t.anchorWords ?? []).map((w) => w.toLowerCase());
    const named = (text: string) => words.some((w) => namesWord(text, w));
    const calledBy = (name: string) => words.some((w) => name.toLowerCase().startsWith(w));
    const byLine = (p: { line: number }, q: { line: number }) => p.line - q.line;
    const namedCalls = callsIn(files).filter((a) => named(a.callee) && sameScope(a));
    // A named anchor no call has ("before the `s.data[key]` lookup") is the first use of the name.
    const anchorCalls = t.anchor ? callsIn(files).filter((a) => a.name === lastName(t.anchor!) && sameScope(a)) : [];
    const anchors = t.anchor
      ? anchorCalls.length
        ? anchorCalls
        : usagesIn(files)
            .filter((u) => u.name === lastName(t.anchor!) && sameScope(u))
            .sort(byLine)
      : t.anchorCall
        ? callsIn(files).filter((a) => calledBy(a.name) && sameScope(a))
        : namedCalls.length
          ? namedCalls.sort(byLine)
          : usagesIn(files)
              .filter((u) => named(u.name) && sameScope(u))
              .sort(byLine);
    const a = anchors[0];
    if (a && (t.position === 'before' ? x.line > a.line : x.line < a.line)) {
      return misplaced(
        what,
        source,
        `${what} (${x.path}:${x.line}) comes ${t.position === 'before' ? 'after' : 'before'} ${t.anchor ? `\`${t.anchor}\`` : `the ${words.join(' ')}`} (line ${a.line})`,
        x,
      );
    }
  }
  return undefined;
}
