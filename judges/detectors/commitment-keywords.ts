// Parameters named by the shape of code rather than by a noun (commitment-extract.ts): a keyword
// argument on a function ("`strict=` on `parse_line`", "✓ `read_only=False` on `__init__`") and a
// call with a keyword argument that the sender says works ("`Batcher(sink, config=BatchConfig(...))`
// works", "`Editor(env=...)` is passed through"). A call only runs if its function takes the
// keyword, so either says the function has that parameter.
import { fileMasks, functionName, type Target } from './commitment-code.ts';
import type { Sentence, Term } from './language.ts';
import { wordIs } from './commitment-word-classes.ts';

/** `name=` or `name=value`: a keyword argument alone. */
const KEYWORD_ARGUMENT = /^([A-Za-z_]\w*)\s*=(?!=)/;

/** `f(a, k=v)`, `Cls(k=...)`: a call and its argument list. */
const CALL = /^([A-Za-z_][\w.]*)\((.*)\)$/s;

/** The keywords a call passes, at its top level only (a nested call's keywords belong to that call). */
function callKeywords(args: string): string[] {
  let flat = args;
  for (let previous = ''; previous !== flat;) [previous, flat] = [flat, flat.replace(/\([^()]*\)|\[[^[\]]*\]|\{[^{}]*\}/g, '')];
  return flat
    .split(',')
    .map((arg) => KEYWORD_ARGUMENT.exec(arg.trim())?.[1])
    .filter((k): k is string => k !== undefined);
}

/** The function a call runs: a class's call runs its constructor. */
function calledFunction(callee: string): string {
  const last = callee.replace(/^.*\./, '');
  return /^[A-Z]/.test(last) ? '__init__' : last;
}

/** The code term is the subject of its clause, and the clause's verb after it is not negated. */
function isPositiveSubject(terms: readonly Term[], at: number): boolean {
  const clause = terms.filter((t) => t.clause === terms[at]!.clause);
  const lead = clause.slice(0, clause.indexOf(terms[at]!));
  const rest = clause.slice(clause.indexOf(terms[at]!) + 1);
  return (
    lead.every((t) => wordIs('clause-opening', t.normal) || t.tags.has('Adverb')) &&
    rest.some((t) => t.tags.has('Verb')) &&
    !rest.some((t) => /^(?:not|never|no)$/.test(t.normal) || t.tags.has('Negative'))
  );
}

export function keywordParameterTargets(sentence: Sentence): Target[] {
  const terms = sentence.terms.filter((t) => t.text !== '' || t.normal !== '');
  const files = fileMasks(sentence);
  const targets: Target[] = [];
  terms.forEach((t, i) => {
    if (t.mask?.kind !== 'code' || /^(?:your|their)$/.test(terms[i - 1]?.normal ?? '')) return;
    const code = t.mask.text.trim();
    const call = CALL.exec(code);
    if (call) {
      const keywords = callKeywords(call[2]!);
      if (keywords.length && isPositiveSubject(terms, i)) targets.push({ kind: 'exists', names: keywords, files, scope: calledFunction(call[1]!) });
      return;
    }
    const keyword = KEYWORD_ARGUMENT.exec(code)?.[1];
    // "`strict=` on `parse_line`": the function it is a keyword of.
    const scope = keyword && /^(?:on|to|in|for|of)$/.test(terms[i + 1]?.normal ?? '') ? functionName(terms[i + 2]) : undefined;
    if (keyword && scope) targets.push({ kind: 'exists', names: [keyword], files, scope });
  });
  return targets;
}
