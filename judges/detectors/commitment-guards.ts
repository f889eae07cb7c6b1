// Guards placed by a passive clause whose subject is the guarded function: "`Flush` gets guarded by a
// closed check", "`get()` is protected by the `_bypass` flag — before it touches the store". The
// by-phrase says what the guard tests (its describing words and code names), the rest of the sentence
// where in the function it sits (positionIn). The active forms are read by commitment-phrases.ts.
import { describingWords } from './commitment-references.ts';
import { fileMasks, functionName, GUARD_NOUN, namesIn, type Target } from './commitment-code.ts';
import { positionIn } from './commitment-place-words.ts';
import type { Sentence } from './language.ts';

/** Participles that say a function is guarded: the guard is the agent of the passive. */
export const GUARDED = /^(?:guarded|gated|protected|checked|short-circuited)$/;

/** The auxiliary of the passive: "is", "gets", "will be", "now". */
const PASSIVE_AUX = /^(?:is|are|was|be|been|gets|get|got|now|also|always|will|already)$/;

export function passiveGuardTargets(sentence: Sentence): Target[] {
  const terms = sentence.terms.filter((t) => t.text !== '');
  const targets: Target[] = [];
  terms.forEach((t, i) => {
    if (!GUARDED.test(t.normal) || terms[i + 1]?.normal !== 'by') return;
    // The subject: the function named right before the passive's auxiliaries.
    let s = i - 1;
    while (s >= 0 && PASSIVE_AUX.test(terms[s]!.normal) && !terms[s]!.mask) s--;
    const scope = s < i - 1 ? functionName(terms[s]) : undefined;
    if (!scope) return;
    const by = terms.slice(i + 2).filter((x) => x.clause === t.clause);
    const words = [
      ...by.filter((x) => x.mask?.kind === 'code').flatMap((x) => namesIn(x.mask!.text)),
      ...describingWords(by.filter((x) => !GUARD_NOUN.test(x.normal))),
    ].filter((w) => w.length >= 3);
    if (words.length === 0) return;
    targets.push({
      kind: 'placement',
      names: [],
      guard: [...new Set(words)],
      files: fileMasks(sentence),
      scope,
      ...positionIn(terms.slice(i + 2 + by.length)),
    });
  });
  return targets;
}
