// Where in its function a sentence places code (commitment-verbs.ts, -places.ts, -subjects.ts read it):
// first ("the first statement", "begins with"), last ("right before we return"), before or after an
// anchor named by code, by words, by a verb ("before it writes") or by a gerund ("before splitting"),
// and in a loop of the function.
import { codeOf, LOCATION, type Target } from './commitment-code.ts';
import { describingWords } from './commitment-references.ts';
import type { Term } from './language.ts';
import { wordIs } from './commitment-word-classes.ts';

/**
 * "the start of", "at the top", "up top", "its beginning": a word for a part names the function's first
 * statement; the same word as a name does not ("wired into Start", a "start" event, "on top of it").
 */
function firstPart(terms: readonly Term[], i: number): boolean {
  const t = terms[i]!;
  if (!wordIs('first-word', t.normal)) return false;
  if (!/^(?:start|beginning|top)$/.test(t.normal)) return true;
  const before = terms[i - 1]?.normal ?? '';
  return before !== 'on' && (/^(?:the|its|at|up|very)$/.test(before) || terms[i + 1]?.normal === 'of');
}

/**
 * Where in its function code is said to sit: first, or before or after an anchor named by code or by
 * words ("the first statement after taking the lock" is after the lock, not first in the function).
 */
export function positionIn(terms: readonly Term[]): Pick<Target, 'position' | 'anchor' | 'anchorWords' | 'anchorCall' | 'loop'> {
  // "inside the `for` loop", "on every iteration", "each pass through the loop": first then means first in the loop.
  const loop = terms.some(
    (t, i) => wordIs('loop-word', t.normal) && terms.slice(Math.max(0, i - 3), i).some((x) => /^(?:in|inside|within|each|every|per)$/.test(x.normal)),
  );
  if (loop) {
    const { position, ...rest } = positionIn(terms.filter((t) => !wordIs('loop-word', t.normal) && !wordIs('first-word', t.normal)));
    return { loop, ...(position && { position, ...rest }) };
  }
  // "`get()` begins with the bypass check": what a function starts with is its first statement.
  // "its opening statement", "up front" (not "before opening the file").
  const first = terms.some(
    (t, i) =>
      firstPart(terms, i) ||
      (wordIs('begin-verb', t.normal) && terms[i + 1]?.normal === 'with') ||
      (t.normal === 'opening' && /^(?:statement|line)$/.test(terms[i + 1]?.normal ?? '')) ||
      (t.normal === 'front' && terms[i - 1]?.normal === 'up'),
  );
  // "ahead of the `extend_from_slice`": before it.
  const relative = terms.findIndex((t, i) => /^(?:before|after|once)$/.test(t.normal) || (t.normal === 'ahead' && terms[i + 1]?.normal === 'of'));
  // "before anything else": before every statement, so first ("before anything is written" is before the write).
  const everything = relative >= 0 && /^(?:before|ahead)$/.test(terms[relative]!.normal) ? relative + (terms[relative]!.normal === 'ahead' ? 2 : 1) : -1;
  if (everything >= 0 && wordIs('everything', terms[everything]?.normal ?? '') && !terms[everything + 1]?.tags.has('Verb')) return { position: 'first' };
  if (relative >= 0) {
    // "once the lock is held": after it.
    const position = /^(?:before|ahead)$/.test(terms[relative]!.normal) ? 'before' : 'after';
    // "just before `return result`", "right before we return": before the function's return is at its end.
    const next = terms.slice(relative + 1).find((t) => !/^(?:the|a|its|we|it|they|final)$/.test(t.normal));
    // "just before scale() returns": the function's own return.
    const returns = (t: Term | undefined) => !!t && (/^return(?:s|ing)?$/.test(t.normal) || /^return\b/.test(t.mask?.text ?? ''));
    const after = terms[terms.indexOf(next!) + 1];
    if (position === 'before' && next && (returns(next) || (next.mask?.kind === 'code' && returns(after)))) return { position: 'last' };
    // "before the call to `self._write(chunk)`", "before we call `hold()`": the code the call names.
    const called = terms.slice(relative + 1).findIndex((t) => !/^(?:the|a|its|call|calls|invocation|to|of|we|they)$/.test(t.normal));
    const anchor = codeOf(terms.slice(relative + 1, relative + 1 + Math.max(2, called + 1)))[0];
    const end = terms.findIndex((t, i) => i > relative + 1 && (LOCATION.test(t.normal) || t.clause !== terms[relative]!.clause));
    // "after send comes back": the bare word before the clause's verb is its subject, whatever the tagger read.
    const [subject, verb] = [terms[relative + 1], terms[relative + 2]];
    const bareSubject =
      subject &&
      !subject.mask &&
      verb?.tags.has('Verb') &&
      !subject.tags.has('Pronoun') &&
      !subject.tags.has('Determiner') &&
      !wordIs('subject-pronoun', subject.normal);
    const nouns = describingWords(terms.slice(relative + 1, end < 0 ? undefined : end).filter((t) => t.tags.has('Noun')));
    // "before hold, done": a lone word that ends the clause names the anchor, whatever the tagger read.
    const lone =
      subject &&
      !subject.mask &&
      !subject.tags.has('Gerund') &&
      (relative + 2 === terms.length || /[,;.]/.test(subject.post)) &&
      /^[a-z][\w-]*$/.test(subject.normal) &&
      !/^(?:all|that|this|which|then|now|everything|anything)$/.test(subject.normal);
    if (!nouns.length && (bareSubject || lone) && !wordIs('subject-pronoun', subject.normal) && subject.normal.length >= 3) nouns.push(subject.normal);
    // "after we acquire the lock": the object says more than the verb; "before it writes anything": only the verb does.
    const verbs = anchor || nouns.length ? [] : [...clauseVerbWords(terms.slice(relative + 1)), ...gerundWords(terms[relative + 1])];
    const anchorWords = anchor ? [] : nouns.length ? nouns : verbs;
    // "first, before the lookup": first says more.
    if ((anchor || anchorWords.length) && !(first && position === 'before'))
      return { position, ...(anchor ? { anchor } : { anchorWords, ...(verbs.length && { anchorCall: true }) }) };
  }
  return first ? { position: 'first' } : {};
}

/** "before splitting", "after routing": a verb with no subject names the anchor by its stem (`split(…)`, `route(…)`). */
function gerundWords(term: Term | undefined): string[] {
  if (!term?.tags.has('Gerund') || term.mask) return [];
  const stem = term.normal.replace(/([b-df-hj-np-tv-z])\1ing$/, '$1').replace(/ing$/, '');
  return stem.length >= 3 ? [stem] : [];
}

/**
 * "before it writes anything to `out`": a clause after "before" or "after" whose subject is a pronoun
 * names the anchor by its verb; its stem finds the call (`w.out.Write(…)`).
 */
function clauseVerbWords(clause: readonly Term[]): string[] {
  // "before it races with `Close()`": a clause that names a function is about that function, not a call its verb names.
  const own = clause.filter((t) => t.clause === clause[0]?.clause);
  if (!wordIs('subject-pronoun', clause[0]?.normal ?? '') || own.some((t) => t.mask?.kind === 'code' && /\)$/.test(t.mask.text.trim()))) return [];
  const verb = clause.slice(1, 4).find((t) => t.tags.has('Verb') && !t.tags.has('Auxiliary') && !t.tags.has('Copula') && !t.tags.has('Modal'));
  const stem = verb?.normal.replace(/(?:ing|ed|es|s)$/, '');
  return stem && stem.length >= 3 ? [stem] : [];
}
