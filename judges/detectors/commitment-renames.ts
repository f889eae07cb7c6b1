// Renames (commitment-extract.ts): "renamed `edit_file` to `edit_files`", "I'll rename `timeout` to
// `timeout_s`". The name after "to" is what the code has once the rename is done: it exists.
import { codeOf, fileMasks, type Target } from './commitment-code.ts';
import type { Sentence } from './language.ts';
import { commits, stanceOf } from './stance.ts';

export function renamedTargets(sentence: Sentence): Target[] {
  const targets: Target[] = [];
  for (const verb of sentence.verbs) {
    const stance = stanceOf(sentence, verb);
    if (verb.lemma !== 'rename' || verb.negative || !commits(stance)) continue;
    const clause = sentence.terms.slice(verb.index + 1).filter((t) => t.text !== '' && t.clause === verb.clause);
    // The new name follows "to" or "into" directly ("to `edit_files`"), not a verb ("to use `x`").
    const to = clause.findIndex((t, i) => /^(?:to|into|as)$/.test(t.normal) && clause[i + 1]?.mask?.kind === 'code');
    const names = to > 0 ? codeOf([clause[to + 1]!]) : [];
    if (names.length) targets.push({ kind: 'exists', names, files: fileMasks(sentence) });
  }
  return targets;
}
