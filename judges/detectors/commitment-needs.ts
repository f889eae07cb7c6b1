// Requests said as the requester's need (commitment-extract.ts): "I need the `flush_every` parameter
// of `__init__` kept as they are", "I need `LRUCache` exported from the package". The participle
// after the object says what is to be done to it; a partner who accepts commits to that. Code that
// "needs to stay as it is please" is asked to be left alone the same way.
import { AS_BEFORE, codeOf, fileMasks, functionName, moduleAfter, type Target } from './commitment-code.ts';
import { verbIs } from './commitment-verb-words.ts';
import { parameterList } from './commitment-boundaries.ts';
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
    if (verbIs('leave', done.lemma)) targets.push({ kind: 'untouched_symbol', names, files });
    else if (verbIs('export', done.lemma))
      targets.push({ kind: 'exported', names, files, module: moduleAfter(sentence.terms.slice(done.index + 1)) ?? files[0] });
  }
  return [...targets, ...keptAsAsked(sentence)];
}

/**
 * "The signature of `Parser::next_token` needs to stay as it is please": code whose need is to stay
 * as it is, in a sentence that asks ("please"), is asked of the partner; its signature, where named.
 */
function keptAsAsked(sentence: Sentence): Target[] {
  if (!/\bplease\b/i.test(sentence.text) || !AS_BEFORE.test(sentence.text)) return [];
  const stay = sentence.verbs.find((v, i) => /^(?:stay|remain)$/.test(v.lemma) && /^(?:need|have|must|should)$/.test(sentence.verbs[i - 1]?.lemma ?? ''));
  const need = stay && sentence.verbs[sentence.verbs.indexOf(stay) - 1]!;
  if (!need || need.subject !== 'other') return [];
  const subject = sentence.terms.slice(0, need.start).filter((t) => t.clause === need.clause);
  const code = subject.filter((t) => t.mask?.kind === 'code');
  const files = fileMasks(sentence);
  if (subject.some((t) => /^signatures?$/.test(t.normal))) return [parameterList(files, functionName(code[0]), sentence)];
  const names = codeOf(code);
  return names.length ? [{ kind: 'untouched_symbol', names, files }] : [];
}
