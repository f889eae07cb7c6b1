// Requests said as the requester's need (commitment-extract.ts): "I need the `flush_every` parameter
// of `__init__` kept as they are", "I need `LRUCache` exported from the package". The participle
// after the object says what is to be done to it; a partner who accepts commits to that.
import { codeOf, fileMasks, moduleAfter, type Target } from './commitment-code.ts';
import { EXPORT } from './commitment-verbs.ts';
import { LEAVE } from './commitment-boundaries.ts';
import type { Sentence } from './language.ts';

const NEED = /^(?:need|want|require)$/;

export function neededTargets(sentence: Sentence): Target[] {
  const targets: Target[] = [];
  const files = fileMasks(sentence);
  for (const need of sentence.verbs.filter((v) => v.subject === 'first' && NEED.test(v.lemma) && !v.negative)) {
    const done = sentence.verbs.find((v) => v.index > need.index && v.subject === 'other' && v.tense === 'past' && !v.auxiliary);
    if (!done) continue;
    const object = sentence.terms.slice(need.index + 1, done.start);
    // "the `flush_every` parameter of `__init__`": the code after "of" owns what is needed, it is not itself the object.
    const names = codeOf(object.filter((_, i) => !/^(?:of|in|on|to|from)$/.test(object[i - 1]?.normal ?? '')));
    if (names.length === 0 || object.some((t) => t.tags.has('Verb'))) continue;
    if (LEAVE.test(done.lemma)) targets.push({ kind: 'untouched_symbol', names, files });
    else if (EXPORT.test(done.lemma)) targets.push({ kind: 'exported', names, files, module: moduleAfter(sentence.terms.slice(done.index + 1)) ?? files[0] });
  }
  return targets;
}
