// Boundaries said by what the sender limits its change to (commitment-extract.ts): "I'm only
// touching `route()`", "just editing `parse()`", "nothing outside that function changed". Every
// other existing function of the files it is in is then left alone (commitment-untouched.ts).
import { fileMasks, functionName, type Target } from './commitment-code.ts';
import { verbIs } from './commitment-verb-words.ts';
import type { Sentence, Term } from './language.ts';
import { commits, stanceOf } from './stance.ts';

const ONLY = /^(?:only|just|solely)$/;

const NEGATION = /^(?:nothing|no|none|not|n't|never)$/;

/** "that function", "this method", "the function": the function the sentence named before. */
const REFERRING = /^(?:that|this|the|its)$/;
const FUNCTION_WORD = /^(?:function|method|func|fn)$/;

/** The function a phrase starting at `at` names: code, or a reference to the last function named before it. */
function namedFunction(terms: readonly Term[], at: number): string | undefined {
  const named = functionName(terms[at]);
  if (named) return named;
  if (!REFERRING.test(terms[at]?.normal ?? '') || !FUNCTION_WORD.test(terms[at + 1]?.normal ?? '')) return undefined;
  return terms
    .slice(0, at)
    .filter((t) => t.mask?.kind === 'code' && /\(\)$/.test(t.mask.text.trim()))
    .map(functionName)
    .filter(Boolean)
    .at(-1);
}

export function onlyChangedTargets(sentence: Sentence): Target[] {
  const terms = sentence.terms;
  const files = fileMasks(sentence);
  const only: string[] = [];
  for (const verb of sentence.verbs) {
    const stance = stanceOf(sentence, verb);
    if (verb.negative || !verbIs('touch', verb.lemma) || !commits(stance)) continue;
    // "only touching `route()`", "touching only `route()`".
    const limited = terms.slice(verb.start, verb.index + 2).some((t) => ONLY.test(t.normal));
    const object = terms.slice(verb.index + 1).findIndex((t) => t.text !== '' && !ONLY.test(t.normal));
    const name = limited && object >= 0 ? namedFunction(terms, verb.index + 1 + object) : undefined;
    if (name) only.push(name);
  }
  // "nothing outside that function changed", "no edits outside `parse()`".
  terms.forEach((t, i) => {
    if (t.normal !== 'outside' || !terms.slice(0, i).some((x) => x.clause === t.clause && NEGATION.test(x.normal))) return;
    const name = namedFunction(terms, i + 1);
    if (name) only.push(name);
  });
  return only.length ? [{ kind: 'untouched_symbol', names: [], files, except: [...new Set(only)] }] : [];
}
