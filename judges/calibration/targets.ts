// broken_checkable_commitment scored per target, not per message: a broken promise the judge or the
// detectors report counts as found only when its message has a broken gold commitment with the
// same target (a name it names, or an overlapping line range), and only when what it names is in
// the case at all (a label that points at a file or symbol that the conversation, the patches, the
// merge and the gold's own targets never name finds nothing; the gold may name a file no patch
// shows, such as the package's `__init__.py` a message calls "the package"). Gold targets are
// written `file:Symbol.member(param)` or `file:first-last`.
import type { BrokenPromise } from '../detectors/commitments.ts';
import type { Target } from '../detectors/commitment-extract.ts';
import type { CalibrationCase } from './cases.ts';

const IDENTIFIERS = /[A-Za-z_][A-Za-z0-9_]*/g;
const words = (text: string) => text.match(IDENTIFIERS) ?? [];

interface GoldTarget {
  file?: string;
  names: Set<string>;
  lines?: [number, number];
}

function goldTarget(target: string): GoldTarget {
  const colon = target.search(/:(?!\/)/);
  const file = colon > 0 ? target.slice(0, colon).trim() : undefined;
  const rest = colon > 0 ? target.slice(colon + 1) : target;
  const range = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(rest);
  return { file, names: new Set(range ? [] : words(rest)), ...(range && { lines: [Number(range[1]), Number(range[2])] as [number, number] }) };
}

/** The identifiers a reported target names: its symbols, and for a placement (or a target with no symbol) the function it is in. */
function reportedNames(t: Target): string[] {
  const names = t.names.flatMap(words);
  return t.kind === 'placement' || names.length === 0 ? [...names, ...words(t.scope ?? '')] : names;
}

const sameFile = (a: string, b: string) => a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);

function matches(t: Target, gold: GoldTarget): boolean {
  // A line range matches only an overlapping line range (of the same file, where both name one).
  if (t.lines || gold.lines) {
    if (!t.lines || !gold.lines) return false;
    const fileAgrees = !gold.file || t.files.length === 0 || t.files.some((f) => sameFile(f, gold.file!));
    return t.lines[0] <= gold.lines[1] && gold.lines[0] <= t.lines[1] && fileAgrees;
  }
  const names = reportedNames(t);
  if (names.length > 0) return names.some((n) => gold.names.has(n));
  return gold.file !== undefined && t.files.some((f) => sameFile(f, gold.file!));
}

/** Whether every name and file the target points at is somewhere in the case (its messages or patches). */
function inCase(t: Target, text: string): boolean {
  const known = new Set(words(text));
  return t.names.flatMap(words).every((n) => known.has(n)) && t.files.every((f) => text.includes(f));
}

interface BrokenGold {
  key: string;
  message: number;
  /** The kind it is checked as (an accepted request: the kind it reduces to). */
  kind: string;
  target: GoldTarget;
}

/**
 * The case's broken gold commitments (not kept, not withdrawn), each with its key: one per message,
 * kind and target (an accepted request the gold also lists as the kind it reduces to is one item).
 */
function brokenGolds(c: CalibrationCase): BrokenGold[] {
  const seen = new Set<string>();
  return (c.gold.commitments ?? []).flatMap((x, i) => {
    const kind = x.kind === 'accepted_request' ? (x.as ?? x.kind) : x.kind;
    const id = `${x.message}\u0000${kind}\u0000${x.target.trim()}`;
    if (x.kept || x.withdrawn !== undefined || seen.has(id)) return [];
    seen.add(id);
    return [{ key: `${c.id}#gold${i}`, message: x.message, kind, target: goldTarget(x.target) }];
  });
}

/** Everything the case names: its messages, patches, merge and the gold's own targets. */
function caseText(c: CalibrationCase): string {
  return [...c.messages.map((m) => m.text), ...Object.values(c.patches ?? {}), c.merge?.patch ?? '', ...(c.gold.commitments ?? []).map((x) => x.target)].join(
    '\n',
  );
}

/**
 * The broken gold commitment a reported target of message `messageId` is, if any. Of the message's
 * broken targets it matches, one of its own kind where there is one (`X` both missing and not
 * exported), and among several the one it names most of (`max_batch_size` on `__init__` is the
 * parameter, not the attribute).
 */
function goldFor(golds: readonly BrokenGold[], text: string, messageId: number, t: Target): BrokenGold | undefined {
  if (!inCase(t, text)) return undefined;
  const named = new Set([...t.names.flatMap(words), ...words(t.scope ?? '')]);
  const fit = (g: BrokenGold) => (g.kind === t.kind ? 1 : 0) + [...g.target.names].filter((n) => named.has(n)).length / (g.target.names.size || 1);
  return golds
    .filter((g) => g.message === messageId && matches(t, g.target))
    .reduce<BrokenGold | undefined>((best, g) => (!best || fit(g) > fit(best) ? g : best), undefined);
}

/**
 * Reported and gold items of broken_checkable_commitment, per target: a gold item per broken gold
 * commitment, a reported item matching one takes its key (several reports of one target count
 * once), any other reported target is an item of its own (a false positive).
 */
export function brokenTargetItems(c: CalibrationCase, broken: readonly BrokenPromise[]): { reported: string[]; gold: string[] } {
  const golds = brokenGolds(c);
  const text = caseText(c);
  const reported = broken.map((b, i) => goldFor(golds, text, b.commitment.messageId, b.commitment.target)?.key ?? `${c.id}#reported${i}`);
  return { reported, gold: golds.map((g) => g.key) };
}

/** Whether a target of message `messageId` is a broken gold commitment of the case: what a doubt or a withdrawal of it is wrong about. */
export function isBrokenGoldTarget(c: CalibrationCase, messageId: number, target: Target): boolean {
  return goldFor(brokenGolds(c), caseText(c), messageId, target) !== undefined;
}
