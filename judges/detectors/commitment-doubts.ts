// When the detectors' own reading of a promise is too unsure to call it broken. The code checks are
// good (commitments.ts); the reading is where the detectors go wrong: a word read as a code name
// (a format name, a quoted key), a rename read as a promise of its old name, a module guessed for a
// name no patch shows. Such a broken promise is reported as undecided, not as a label. The judge
// model's reading (llm/commitments.ts) goes through the same checks without these doubts.
import type { BrokenPromise } from './commitments.ts';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const ADDED_ELSEWHERE = /^`[^`]+` was added in \S+ instead$/;
const NEVER_DEFINED = /'s patch never defined `/;
/** Names that are not code a promise can be checked for: a dunder list (`__all__`), a quoted key. */
const NOT_A_SYMBOL = /^__\w+__$|["']/;
/** "`parse` → `parse_args`": the name before an arrow is what a rename or a mapping starts from. */
const renamedFrom = (quote: string, name: string) => new RegExp(`${escape(name)}\`?\\s*(?:→|->|=>|⇒)`).test(quote);

/** Why the detectors are not sure this promise is broken, or undefined when they are. */
export function readingDoubt(broken: BrokenPromise): string | undefined {
  const { commitment: c, findings } = broken;
  const kind = c.target.kind;
  if (kind !== 'exists' && kind !== 'exported') return undefined;
  const doubts = findings.map((f) => {
    if (NOT_A_SYMBOL.test(f.missing)) return `\`${f.missing}\` is not a name code defines`;
    if (renamedFrom(c.quote, f.missing)) return `\`${f.missing}\` is what a rename starts from`;
    // The facts the checks state (commitments.ts absent(), commitment-evidence.ts ownPatchNote()):
    // the name is in the code, only not where the reading put it, or used where no hunk shows its definition.
    const facts = f.evidence.flatMap((e) => (e.kind === 'fact' ? [e.text] : []));
    if (facts.some((t) => ADDED_ELSEWHERE.test(t))) return `\`${f.missing}\` is in the code, in another file than the one read from the message`;
    if (facts.some((t) => NEVER_DEFINED.test(t))) return `the code uses \`${f.missing}\`: it may be defined outside the hunks`;
    return undefined;
  });
  // Sure when one broken target is sure.
  return doubts.every((d) => d !== undefined) ? doubts[0] : undefined;
}
