// The gold's reading of a case's commitments, as an answer of the commitments judge
// (llm/commitments.ts): what a reader that misses no promise and reads each target as the case's
// author did would answer. Scored like any answer, it measures the code checks alone, so that
// `judge --calibrate` tells a miss of the reading from a miss of the checks.
// Targets follow cases/README.md ("Commitment kinds and targets"): `path:selector`, `Func(param)`,
// `N-M`. A placement's place is free text (`detail`): read here only for the first or last
// statement, the function's loop and the code or word after "before" or "after", so placements are
// approximate.
import { conditionNames, GUARD_CODE, lastName } from '../detectors/commitment-code.ts';
import type { CommitmentsAnswer } from '../llm/commitments.ts';
import type { CalibrationCase } from './cases.ts';

type Entry = CommitmentsAnswer['commitments'][number];
type GoldCommitment = NonNullable<CalibrationCase['gold']['commitments']>[number];

/** Enough of a message to quote it: its start, whole when short. */
const opening = (text: string) => text.slice(0, 200);

/**
 * The placed code's guard or call, from the gold's `code`: a guard (`if self._closed`), a call
 * (`cfg.validate()?`, `this.metrics.record`), or a flag its check tests (`_bypassing`, with a
 * `detail` that says check).
 */
function placedCode(code: string, detail: string): Pick<Entry, 'names' | 'guard'> {
  if (GUARD_CODE.test(code)) return { names: [], guard: conditionNames(code).map(lastName) };
  if (/^[A-Za-z_$][\w$]*$/.test(code.trim()) && /\bcheck/.test(detail)) return { names: [], guard: [code.trim()] };
  const call = /([A-Za-z_$][\w$.]*)\s*\(/.exec(code)?.[1] ?? /^[A-Za-z_$][\w$.]*$/.exec(code.trim())?.[0];
  return { names: call ? [lastName(call)] : [], guard: [] };
}

/**
 * "first statement of flush()", "up top", "last thing before the return", "before this.ledger.hold(...)",
 * "after the send" (an anchor in words), "inside the for loop".
 */
function placeOf(detail: string): Pick<Entry, 'position' | 'anchor' | 'anchor_words' | 'loop'> {
  const first = /\bfirst\b|\bup (?:top|front)\b|\bbefore anything\b/.test(detail);
  const relative = /\b(before|after)\s+(?:await\s+)?`?([A-Za-z_$][\w$.]*)\(/.exec(detail);
  const described = relative ? null : /\b(before|after)\s+(?:the\s+|taking\s+the\s+)?([a-z_]\w*)/.exec(detail);
  const side = (relative ?? described)?.[1] as 'before' | 'after' | undefined;
  return {
    position: first ? 'first' : /\blast\b/.test(detail) ? 'last' : (side ?? null),
    anchor: relative && !first ? lastName(relative[2]!) : null,
    anchor_words: described && !first ? [described[2]!] : [],
    loop: /\bloop\b/.test(detail),
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
      return { ...entry, scope: symbol || null, ...placedCode(g.code ?? '', g.detail ?? ''), ...placeOf(g.detail ?? '') };
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
