// Placements read from where, not what (commitment-extract.ts): a sentence of the sender's own work
// that names a function as a place ("a try/finally around the handler call in `dispatch()`", "at the
// top of `write()`") or reports what a function now does in order ("`save()` creates the directory
// first"). What was placed is mostly not read from the words: commitment-position.ts takes it from the
// sender's patch, so any construct ("a try/finally", "the refill", "a counter") is checked alike; only a
// call the sentence names as one ("the `_check_renewable` call goes before …") is looked for by name.
import { CONSTRUCTOR, functionName, GUARD_CODE, GUARD_NOUN, fileMasks, isField, lastName, placeFunction, symbolsIn, type Target } from './commitment-code.ts';
import { positionIn } from './commitment-place-words.ts';
import { describingWords } from './commitment-references.ts';
import type { Sentence, Term } from './language.ts';
import { headLemma } from './commitment-verbs.ts';
import { verbIs } from './commitment-verb-words.ts';
import { commits, isConditional, stanceOf } from './stance.ts';
import { wordIs } from './commitment-word-classes.ts';

/** Words before a function that make it a place: "in `f()`", "wired into `f()`". */
const PLACE_BEFORE = /^(?:in|inside|within|into)$/;

/** "added to `f()`", "a metrics call to `f()`": "to" after what is put there ("passed to `f()`" is an argument's way). */
const PUT = /^(?:add|adds|added|adding|put|puts|putting|insert|inserts|inserted|inserting|move|moves|moved|moving)$/;

/** "the top of `f()`", "the loop of `f()`" ("on top of" is no place). */
const PART_OF = /^(?:top|start|beginning|end|bottom|head|body|loop)$/;

/**
 * The function a term names: code, or an identifier written without backticks after a place word
 * ("in Drain", "inside parse_line"): the checker finds no such function where it is a word.
 */
const placeName = (t: Term | undefined) =>
  (t?.mask && isField(t.mask.text) ? undefined : functionName(t)) ??
  (t && !t.mask && /^(?:[A-Z][a-z]+[A-Z]?\w*|[a-z]+_\w+|[a-z]+[A-Z]\w*)$/.test(t.text.replace(/[^\w]+$/, '')) ? t.text.replace(/[^\w]+$/, '') : undefined);

/** The function a term names as a place: after "in", after "the top of", before "does" in "the last thing `f()` does". */
function isPlace(terms: readonly Term[], i: number): boolean {
  const t = terms[i]!;
  if (placeName(t) === undefined) return false;
  const sameClause = (j: number) => terms[j] !== undefined && terms[j]!.clause === t.clause;
  const before = (k: number) => (sameClause(i - k) ? terms[i - k]!.normal : '');
  if (PLACE_BEFORE.test(before(1)) || isCaller(terms, i)) return true;
  if (!t.mask) return false;
  // "the end of `Token`", "a method to `Pool`" may be a type's: a function is written `f()`, in lower case or as a
  // lower-case method of a type (`Recipe.scale`) there.
  const namesFunction = /\(\)$|^[a-z_]|\.[a-z_][\w$]*$/.test(t.mask.text.trim());
  // "a metrics call to `f()`" is put in `f()`, "the call to `f()`" calls it (the tagger may read either "call" as a verb).
  const noun = (k: number) => sameClause(i - k) && !terms[i - k]!.mask && terms[i - k]!.tags.has('Noun');
  const call = /^(?:call|calls)$/.test(before(2));
  const put = PUT.test(before(2)) || (call ? noun(3) : noun(2));
  // "writes anything to `out`": after "to", only a name written as a call is surely a function.
  if (before(1) === 'to' && put && /\(\)$/.test(t.mask.text.trim())) return true;
  if (before(1) === 'of' && PART_OF.test(before(2)) && before(3) !== 'on' && namesFunction) return true;
  return /^(?:thing|step|statement)$/.test(before(1)) && /^(?:does|do|did|runs)$/.test(sameClause(i + 1) ? terms[i + 1]!.normal : '');
}

/** Verbs that run code from a place: "call it from `main()`", "running the hooks from `close()`". */
const RUNNING = /^(?:call|calls|calling|called|run|runs|running|invoke|invokes|invoking|fire|fires|firing)$/;

/** "from `f()`" after a verb that runs code, within its clause: `f()` is where that code runs. */
function isCaller(terms: readonly Term[], i: number): boolean {
  if (terms[i - 1]?.normal !== 'from') return false;
  const clause = terms.slice(Math.max(0, i - 5), i - 1).filter((x) => x.clause === terms[i]!.clause);
  return clause.some((x) => RUNNING.test(x.normal)) && !/^(?:called|invoked)$/.test(terms[i - 2]?.normal ?? '');
}

const LAST_WORD = /^(?:last|end|bottom|final)$/;

/** "around the handler call", "wrap the `fetch` with …": the placed code encloses its anchor. */
const AROUND_WORD = /^(?:around|wrap|wraps|wrapped|wrapping)$/;

/** First, last, around, before or after an anchor, or in a loop: where in the function. */
function placeIn(terms: readonly Term[]): Pick<Target, 'position' | 'anchor' | 'anchorWords' | 'anchorCall' | 'loop'> {
  const around = terms.findIndex((t) => AROUND_WORD.test(t.normal));
  if (around >= 0) {
    // The anchor is the call or the nouns that follow: "around the handler call" is around `handler(…)`.
    const next = terms.slice(around + 1, around + 5).filter((t) => t.clause === terms[around]!.clause);
    // "midnight wrap in `travel_time`": code after "in" is where the code goes, not what it wraps.
    const code = next.find((t, j) => t.mask?.kind === 'code' && !/^(?:in|inside|within)$/.test(next[j - 1]?.normal ?? terms[around]!.normal));
    // "the `self.client.get(...)` call … gets wrapped in try/except": in the passive, the call before is what is wrapped.
    const passive = /^(?:gets|get|got|is|are|was|be|been)$/.test(terms[around - 1]?.normal ?? '');
    const wrapped = passive
      ? terms
          .slice(0, around)
          .filter((t) => t.mask?.kind === 'code' && /\)$/.test(t.mask.text.trim()))
          .at(-1)
      : undefined;
    const callee = wrapped && /([A-Za-z_$][\w$]*)\s*\([^()]*\)$/.exec(wrapped.mask!.text.trim())?.[1];
    const anchor = callee ?? (code ? functionName(code) : undefined);
    const nouns = next.filter((t) => !t.mask && t.tags.has('Noun') && !/^(?:call|calls|invocation|it)$/.test(t.normal)).map((t) => t.normal);
    if (anchor) return { position: 'around', anchor };
    if (nouns.length) return { position: 'around', anchorWords: nouns };
  }
  const at = positionIn(terms);
  if (at.position || at.loop) return at;
  // "the last step", "at the very end".
  const last = terms.some((t, i) => LAST_WORD.test(t.normal) && terms.slice(Math.max(0, i - 2), i).some((x) => /^(?:the|its|at|as)$/.test(x.normal)));
  return last ? { position: 'last' } : {};
}

/**
 * `named`: the function the message named last before the sentence, which a place without a function
 * is in ("About `Server.handle()`. I'll make the auth check its first statement").
 */
export function placedCodeTargets(sentence: Sentence, named?: string): Target[] {
  const terms = sentence.terms.filter((t) => t.text !== '');
  const ownVerbs = sentence.verbs.filter((v) => v.subject === 'first' && !v.negative && commits(stanceOf(sentence, v)));
  const own = ownVerbs.length > 0;
  const placeAt = terms.findIndex((_, i) => isPlace(terms, i));
  // "`save()` creates the directory first": a function that is its clause's subject, reported doing something in order.
  const subjectAt = terms.findIndex(
    (t, i) =>
      /\(\)$/.test(t.mask?.text.trim() ?? '') &&
      functionName(t) !== undefined &&
      // "I'll make `close()` flush …": the object of make or have is the subject of the bare verb after it, however tagged.
      (/^(?:make|have|let)$/.test(terms[i - 1]?.normal ?? '') ||
        ((i === 0 || terms[i - 1]!.clause !== t.clause) &&
          // "`get()` now short-circuits": adverbs may come between.
          terms
            .slice(i + 1)
            .find((x) => !x.tags.has('Adverb') && !/^(?:now|also|always|still)$/.test(x.normal))
            ?.tags.has('Verb'))),
  );
  const at = (own || !sentence.verbs.some((v) => v.tense === 'future')) && placeAt >= 0 ? placeAt : subjectAt;
  // A sentence that names its own place is not about the function named before it.
  if (at < 0)
    return named && placeAt < 0 && (own || terms.some((t) => GUARD_NOUN.test(t.normal) || /^(?:it|its)$/.test(t.normal)))
      ? placedIn(sentence, terms, named, 0)
      : [];
  const subject = at === subjectAt && at !== placeAt;
  // "I'm adding a retry loop inside `request()`", "I'll call it from `main()`": the sender's own code put or run there.
  // The verb is the last one before the place: "I'll add `SetEnabled()`, and a guard in `Allow()`".
  const verb = sentence.verbs.filter((v) => v.index < sentence.terms.indexOf(terms[at]!)).at(-1);
  const puts = at === placeAt && verb !== undefined && ownVerbs.includes(verb) && verbIs('create', headLemma(sentence, verb));
  return placedIn(sentence, terms, placeName(terms[at])!, at, subject ? 'subject' : puts || isCaller(terms, at) ? 'own' : 'place');
}

/**
 * The placement in `scope` the sentence states from `at` on. `named`: how the sentence names the function:
 * as its clause's subject, as where the sender's own work puts or runs code, or as a place otherwise.
 */
function placedIn(sentence: Sentence, terms: readonly Term[], scope: string, at: number, named: 'subject' | 'own' | 'place' = 'place'): Target[] {
  const subject = named === 'subject';
  // The place's clause, the one before it and the subordinate ones after it ("…, before we take the lock"), not
  // a coordinate clause with its own verb ("… and hold it around the write").
  const coordinate = terms.find(
    (t, i) => t.clause > terms[at]!.clause && terms[i - 1]?.clause !== t.clause && /^(?:and|but|so|then|also|plus)$/.test(t.normal),
  );
  // A function that is the subject says where up to a clause with a subject of its own ("`f()` is in; it takes the first row").
  const newSubject = terms.find((t, i) => t.clause > terms[at]!.clause && terms[i - 1]?.clause !== t.clause && (t.mask || t.tags.has('Pronoun')));
  const clauses = (t: Term) =>
    t.clause >= terms[at]!.clause - (subject ? 0 : 1) &&
    (!coordinate || t.clause < coordinate.clause) &&
    (!subject || !newSubject || t.clause < newSubject.clause);
  const where = placeIn(terms.filter(clauses));
  // "in `f()`" alone says no more than that the code is there: where the sender's own work is in `f()`, its
  // patch's lines in `f()` must reach the tested code (commitment-position.ts); elsewhere it says nothing checkable.
  if (!where.position && !where.loop && named !== 'own') return [];
  // "`tick()` landed after `flush()`": a function said to follow another is a definition's order (commitment-phrases.ts).
  const relativeAt = terms.findIndex((t) => /^(?:before|after|below|above)$/.test(t.normal));
  if (subject && relativeAt >= 0 && terms[relativeAt + 1]?.mask?.kind === 'code') return [];
  return [{ kind: 'placement', names: placedCall(terms, scope, where.anchor), files: fileMasks(sentence), scope, ...where }];
}

/**
 * The call a sentence places, where it names one as a call ("the `_check_renewable` call goes before …",
 * "`this.metrics.increment(…)` inside the loop"): a name before "call", or a method called on a receiver.
 * A name written `f()` alone may be a new definition, so it is not taken.
 */
function placedCall(terms: readonly Term[], scope: string, anchor: string | undefined): string[] {
  const call = terms.find((t, i) => {
    const text = t.mask?.kind === 'code' ? t.mask.text.trim() : '';
    const named = /^[\w$.:]+$/.test(text) && /^calls?$/.test(terms[i + 1]?.normal ?? '');
    return (named || /^(?:this|self|[a-z_]\w*)(?:\.\w+)+\(.*\)$/.test(text)) && !GUARD_CODE.test(text);
  });
  const name = call && lastName(call.mask!.text.trim().replace(/\(.*$/, ''));
  return name && name !== scope && name !== anchor && name !== lastName(anchor ?? '') ? [name] : [];
}

/**
 * A placement named by its anchor alone, in a sentence that names no function: "log call added after
 * `backend.push`", "on_evict now fires right after the popitem", "`const started = Date.now()` just before
 * the handler". The checker finds the function in the sender's patch, where the anchor is
 * (commitment-position.ts). The sentence names code, so that "I'll push after the tests pass" places none.
 */
export function anchoredPlacementTargets(sentence: Sentence, created: ReadonlySet<string>): Target[] {
  if (sentence.questionMark || isConditional(sentence) || !sentence.masks.some((m) => m.kind === 'code') || sentence.masks.some((m) => m.kind === 'lines'))
    return [];
  const terms = sentence.terms.filter((t) => t.text !== '');
  // The partner's code, a request or a denial is no placement of the sender's.
  if (terms.some((t) => /^(?:you|your|yours)$/.test(t.normal)) || sentence.verbs.some((v) => v.negative || v.form === 'imperative')) return [];
  const where = positionIn(terms);
  if ((where.position !== 'before' && where.position !== 'after') || where.loop) return [];
  // What is placed comes before the position: "I'll rebase after `main` is merged" places nothing.
  const relative = terms.findIndex((t) => t.normal === where.position || (t.normal === 'ahead' && where.position === 'before'));
  const placed = terms.slice(0, relative).filter((t) => t.mask?.kind === 'code' || (t.tags.has('Noun') && !t.tags.has('Pronoun')));
  // "`Len()` after `Push`", "`ParseSize(…)`, exported, right after `FormatSize`": a new definition next to another.
  const defined = placed.some(
    (t) => t.mask?.kind === 'code' && (/^[\w$.:]+\(\)$/.test(t.mask.text.trim()) || symbolsIn(t.mask.text).some((n) => created.has(n))),
  );
  if (placed.length === 0 || (where.anchor && defined)) return [];
  return [{ kind: 'placement', names: [], files: fileMasks(sentence), ...where }];
}

/** Labels that open a sentence without naming a function: "Plan:", "Update:", "Done:". */
const LABEL =
  /^(?:plan|update|status|done|note|summary|todo|fyi|re|ps|edit|progress|next|also|ok|okay|yes|no|np|mine|yours|me|you|agent\d*|idea|proposal|approach|roughly|concretely|basically|fix|feature|goal|context|details)$/;

/** Parts of a function after its possessive: "encode's opening statement", "`get()`'s first line", "`f()`'s loop". */
const functionPart = (word: string) => PART_OF.test(word) || /^(?:opening|first|last|statement|line)$/.test(word);

/** A bare or backticked identifier read as a function's name, where the words around make it one (a possessive before a part of a function, a topic before a colon). */
const nameOf = (t: Term | undefined) =>
  t?.mask ? functionName(t) : t && /^[A-Za-z_][\w]*(?:\(\))?[':]?s?$/.test(t.text) ? t.text.replace(/(?:\(\)|['’]s|:)+$/, '') : undefined;

/**
 * A guard said with where it sits, in whatever order the words come: "the ascii check is encode's opening
 * statement", "encode: ascii check up top ✓", "Checkout: empty-dock guard in, ahead of the slice indexing".
 * The function is a place after the guard ("… in `f()`"), a possessive before a part of it, the
 * sentence's topic before a colon, or `named`, the function the message named last before the sentence.
 */
export function guardFrameTargets(sentence: Sentence, named?: string): Target[] {
  const terms = sentence.terms.filter((t) => t.text !== '');
  const at = terms.findIndex((t) => GUARD_NOUN.test(t.normal));
  if (at < 0) return [];
  const where = positionIn(terms.slice(at + 1));
  if (!where.position && !where.loop) return [];
  const words = describingWords(terms.slice(Math.max(0, at - 2), at)).filter((w) => !CONSTRUCTOR.test(w) && !wordIs('first-word', w));
  const possessive = terms.find((t, i) => /['’]s$/.test(t.text) && functionPart(terms[i + 1]?.normal ?? '') && nameOf(t) !== undefined);
  const topic = terms[0]!.post.includes(':') && !LABEL.test(terms[0]!.normal) ? nameOf(terms[0]) : undefined;
  const scope = placeFunction(terms.slice(at + 1)) ?? nameOf(possessive) ?? topic ?? named;
  if (!scope) return [];
  // "a check in `write` before we write anything": the function's own name is no call inside it.
  if (where.anchorCall && where.anchorWords?.some((w) => scope.toLowerCase().startsWith(w))) return [];
  // "The check goes before we call `hold()`": a guard in no words is placed code, checked where the sender's own code sits.
  return [{ kind: 'placement', names: [], ...(words.length && { guard: words }), files: fileMasks(sentence), scope, ...where }];
}
