// The gold's reading of a case's commitments, as an answer of the commitments judge
// (llm/commitments.ts): what a reader that misses no promise and reads each target as the case's
// author did would answer. Scored like any answer, it measures the code checks alone, so that
// `judge --calibrate` tells a miss of the reading from a miss of the checks.
// Targets follow cases/README.md ("Commitment kinds and targets"): `path:selector`, `Func(param)`,
// `N-M`. A placement's place is free text (`detail`, else the message's own words): read here for the
// first or last statement, the function's loop, the code or word after "before" or "after", the lock it
// sits under and the try that wraps it, so placements are approximate.
import { conditionNames, GUARD_CODE, lastName } from '../detectors/commitment-code.ts';
import type { CommitmentsAnswer } from '../llm/commitments.ts';
import type { CalibrationCase } from './cases.ts';

type Entry = CommitmentsAnswer['commitments'][number];
type GoldCommitment = NonNullable<CalibrationCase['gold']['commitments']>[number];

/** Enough of a message to quote it: its start, whole when short. */
const opening = (text: string) => text.slice(0, 200);

/**
 * The placed code's guard or call, from the gold's `code`: a guard (`if self._closed`), a call
 * (`cfg.validate()?`, `this.metrics.record`, an optional call `this.trace?.(`), or a flag its check
 * tests (`_bypassing`, with a `detail` that says check, or a message that says "the `max_bytes` check" or "check `_closed`").
 */
function placedCode(code: string, detail: string, message: string): Pick<Entry, 'names' | 'guard'> {
  if (GUARD_CODE.test(code)) return { names: [], guard: conditionNames(code).map(lastName) };
  const bare = /^[A-Za-z_$][\w$]*$/.test(code.trim()) ? code.trim() : undefined;
  const checked = bare && new RegExp(`\`?\\b${bare}\\b\`? check|\\bcheck(?:s|ing)? (?:on )?\`?${bare}\\b`).test(message);
  if (bare && (/\bcheck/.test(detail) || checked)) return { names: [], guard: [bare] };
  const call = /([A-Za-z_$][\w$.]*?)\s*(?:\?\.)?\(/.exec(code)?.[1] ?? /^[A-Za-z_$][\w$.]*$/.exec(code.trim())?.[0];
  return { names: call ? [lastName(call)] : [], guard: [] };
}

/**
 * The words of a detail that say where the code goes: the message's words where the detail quotes them
 * ("\"its opening statement\": second, after the record is built"), else its words up to the first ";"
 * (what follows says what the patch did instead).
 */
const statedPlace = (detail: string) => /^\s*"([^"]+)"/.exec(detail)?.[1] ?? detail.split(';')[0]!;

/** Words before a described anchor that do not name it: "after each write", "before any ingredient", "before it reads the store". */
const ANCHOR_LEAD = /(?:(?:it|we|they)\s+[a-z]+s?\s+)?(?:(?:the|any|each|every|all|a|an|taking\s+the|acquiring\s+the|holding\s+the)\s+)?/;

/**
 * "first statement of flush()", "up top", "its opening statement", "last thing before the return",
 * "before this.ledger.hold(...)", "after const list = [...]" (the statement that declares `list`), "before
 * the s.data[key] lookup" (the first use of `data`), "after the strings.Cut" (`Cut`), "after the send" (an anchor in words), "first
 * statement after taking the lock" and "under the lock" (after the lock is taken), "inside the for loop",
 * "a try that wraps self.sock.send(...)" and "inside the try" (around).
 */
function placeOf(detail: string): Pick<Entry, 'position' | 'anchor' | 'anchor_words' | 'loop'> {
  const place = statedPlace(detail);
  // "inside the for loop", "in Drain's loop", "first statement of the loop body", "mid-loop"; not "before the overlay loop".
  const loop =
    /\b(?:in|inside|within|into|of)\s+(?:the\s+|each\s+|every\s+|its\s+)?(?:[\w'’-]+\s+){0,2}loop\b|\bmid-loop\b|\b(?:each|every)\s+iteration\b/.test(place);
  const lock = /\bunder\s+(?:the\s+)?(?:\w+\s+)?(?:lock|mutex)\b/.test(place);
  if (lock) return { position: 'after', anchor: null, anchor_words: ['lock'], loop };
  const relative =
    /\b(before|after|wraps?|around)\s+(?:await\s+)?(?:the\s+call\s+to\s+)?`?([A-Za-z_$][\w$.]*?)(?:\?\.)?\(/.exec(place) ??
    /\b(before|after)\s+(?:const|let|var)\s+([A-Za-z_$][\w$]*)/.exec(place) ??
    /\b(before|after)\s+(?:the\s+)?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+|[A-Za-z_$][\w$]*(?=\[))/.exec(place);
  const described = relative
    ? null
    : (new RegExp(`\\b(before|after)\\s+${ANCHOR_LEAD.source}([A-Za-z_]\\w*)`).exec(place) ?? /\bthe\s+([A-Za-z_]\w*)\s+call\b/.exec(place));
  const around = /\bwrap|\baround\b|\b(?:in|inside|within)\s+(?:the\s+|a\s+)?try\b|\bby\s+the\s+try\b/.test(place);
  const first = /\bfirst\b|\bup (?:top|front)\b|\bbefore anything\b|\bopening statement\b|\bline one\b|\b(?:very|the) top\b|\bopens with\b/.test(place);
  const firstAfter = first && /\bfirst\b[^,;]*\bafter\b/.test(place);
  const last = /\blast\b|\bbefore\s+(?:the\s+)?return\b/.test(place);
  const side = (relative?.[1] ?? (described && described.length === 3 ? described[1] : undefined)) as string | undefined;
  const position: Entry['position'] = around
    ? 'around'
    : firstAfter
      ? 'after'
      : first
        ? 'first'
        : last
          ? 'last'
          : side === 'before' || side === 'after'
            ? side
            : null;
  const anchored = position !== 'first' && position !== 'last';
  const word = described?.at(-1);
  return {
    position,
    anchor: relative && anchored ? lastName(relative[2]!) : null,
    anchor_words: word && anchored ? [word.toLowerCase()] : [],
    loop,
  };
}

function entryOf(c: CalibrationCase, g: GoldCommitment, kind: Entry['kind']): Entry {
  const separator = g.target.indexOf(':');
  const path = separator === -1 ? g.target : g.target.slice(0, separator);
  const selector = separator === -1 ? '' : g.target.slice(separator + 1).trim();
  const [, symbol = '', parameter] = /^([^()]*)(?:\(([^()]*)\))?$/.exec(selector) ?? [];
  const lines = /^(\d+)\s*-\s*(\d+)$/.exec(selector);
  const message = c.messages[g.message - 1]!;
  const request = g.request !== undefined ? c.messages[g.request - 1] : undefined;
  const entry: Entry = {
    message: g.message,
    quote: opening(message.text),
    stance: message.act === 'update' ? 'claim' : 'promise',
    request: request ? g.request : null,
    request_quote: request ? opening(request.text) : null,
    kind,
    names: [],
    files: path ? [path] : [],
    guard: [],
    anchor_words: [],
  };
  switch (entry.kind) {
    case 'untouched_lines':
      return { ...entry, lines: lines ? [Number(lines[1]), Number(lines[2])] : null };
    case 'exported':
      return { ...entry, names: [symbol], module: path || null };
    case 'placement':
      return { ...entry, scope: symbol || null, ...placedCode(g.code ?? '', g.detail ?? '', message.text), ...placeOf(g.detail ?? message.text) };
    default:
      // `Batcher.__init__(flush_every)`: the parameter of that function; untouched, the function's existing parameters.
      if (parameter !== undefined)
        return entry.kind === 'exists' ? { ...entry, names: parameter.split(/\s*,\s*/), scope: symbol } : { ...entry, scope: symbol, parameters_only: true };
      return { ...entry, names: symbol ? [symbol] : [] };
  }
}

/** The case's gold commitments not taken back, as the commitments judge's answer. */
export function goldReading(c: CalibrationCase): CommitmentsAnswer {
  return {
    commitments: (c.gold.commitments ?? []).flatMap((g) => {
      // An accepted request is checked as the kind it reduces to (`as`).
      const kind = g.kind === 'accepted_request' ? g.as : g.kind;
      return g.withdrawn === undefined && kind && kind !== 'accepted_request' ? [entryOf(c, g, kind)] : [];
    }),
  };
}
