// Exports said by a participle clause with no subject of its own (commitment-extract.ts): "with
// `formatPercent` in src/percent.ts, also re-exported from the index", "call it `debounce`, exported
// next to `noop`", "`selectTotal` is in, exported, bottom of the file". The participle says what
// happens to the code the clauses before it named last; a place after it names the module.
import { codeOf, fileMasks, moduleAfter, type Target } from './commitment-code.ts';
import type { Sentence } from './language.ts';
import { wordIs } from './commitment-word-classes.ts';

export function exportParticipleTargets(sentence: Sentence): Target[] {
  const terms = sentence.terms.filter((t) => t.text !== '');
  const targets: Target[] = [];
  for (const [i, participle] of terms.entries()) {
    if (!wordIs('export-participle', participle.normal) || participle.clause === 0) continue;
    // The participle opens its clause, after adverbs only ("also re-exported"); "is exported" or "not exported" is read elsewhere.
    const lead = terms.slice(0, i).filter((t) => t.clause === participle.clause);
    if (lead.some((t) => !t.tags.has('Adverb') || /^(?:not|never)$/.test(t.normal))) continue;
    const before = terms.slice(0, i - lead.length);
    const code = before.filter((t) => t.mask?.kind === 'code').at(-1);
    // "your `X`, exported from …" describes the partner's code.
    if (!code || before[before.indexOf(code) - 1]?.normal === 'your') continue;
    const names = codeOf([code]);
    const clause = terms.slice(i + 1).filter((t) => t.clause === participle.clause);
    const files = fileMasks(sentence);
    if (names.length) targets.push({ kind: 'exported', names, files, module: moduleAfter(clause) ?? files[0] });
  }
  return targets;
}
