// Targets of clauses whose subject is code or names code (commitment-extract.ts): "`X` is done and
// exported", "lines 24–28 untouched", "`f()` / lines 18–27 is yours", "the `self._closed` check is
// the first statement of `get()`", "the existing keyword arguments are unchanged", "your lines are
// untouched".
import {
  AS_BEFORE,
  CHECK_VERB,
  CONSTRUCTOR,
  codeOf,
  conditionNames,
  fileMasks,
  functionBefore,
  functionName,
  GUARD_CODE,
  GUARD_NOUN,
  lastName,
  LOCATION,
  namesIn,
  placeFunction,
  symbolsIn,
  span,
  type Target,
  untouchedRange,
  importedFrom,
  moduleAfter,
} from './commitment-code.ts';
import { positionIn } from './commitment-place-words.ts';
import { describingWords, meansFunctions, namesParameterList, PARAMETER_NOUN, partnerWork, type Reference } from './commitment-references.ts';
import { leftToPartner, parameterList } from './commitment-boundaries.ts';
import type { Sentence, Term } from './language.ts';
import { acceptsByPronoun } from './stance.ts';
import { wordIs } from './commitment-word-classes.ts';

/** The word that says what state the subject is in, after be/have and adverbs: "landed" in "has now landed". */
export function stateWord(words: readonly string[]): string | undefined {
  return words.find((w) => !/^(?:is|are|was|were|'s|has|have|been|now|already|also|all|both|finally|just)$/.test(w));
}

/** Claims and promises whose subject is code: "`FormatSize` stays as it is", "`ParseSize` is done and exported". */
export function codeSubjectTargets(sentence: Sentence): Target[] {
  const targets: Target[] = [];
  const allFiles = fileMasks(sentence);
  const files = allFiles;
  // "Bypass check is the first statement in `get()`", "the check happens FIRST in `get()`".
  const checkerAt = sentence.terms.findIndex((t) => CHECK_VERB.test(t.normal) && t.tags.has('Verb'));
  const nounAt = sentence.terms.findIndex((t) => GUARD_NOUN.test(t.normal));
  // "`if self._closed: raise …` as the first thing `flush()` does": the guard written out.
  const shownAt = sentence.terms.findIndex((t) => t.mask?.kind === 'code' && GUARD_CODE.test(t.mask.text));
  const guardAt = checkerAt >= 0 ? checkerAt : nounAt >= 0 ? nounAt : shownAt;
  // The guard's clause up to the guard: no person does it ("in `acquire()` the closed check will be …").
  const lead = sentence.terms.slice(0, Math.max(0, guardAt)).filter((t) => t.clause === sentence.terms[guardAt]?.clause);
  const guardIsSubject = lead.every((t, i) => !t.tags.has('Pronoun') && (!t.tags.has('Verb') || i === lead.length - 1));
  const subjectCode = lead.filter((t) => t.mask?.kind === 'code').at(-1);
  // "I'm making `release()` …: right after taking the lock, the first thing it does is check `self._closed`": "it" is the function named before.
  const pronounChecker = !subjectCode && lead.some((t) => t.normal === 'it') ? functionBefore(sentence, guardAt) : undefined;
  const checker = subjectCode && /\(\)$/.test(subjectCode.mask!.text.trim()) ? functionName(subjectCode) : pronounChecker;
  const after = sentence.terms.slice(guardAt + 1).filter((t) => t.text !== '');
  const between = subjectCode ? lead.slice(lead.indexOf(subjectCode) + 1) : [];
  if (pronounChecker && guardAt > 0 && CHECK_VERB.test(sentence.terms[guardAt]!.normal)) {
    // Where it checks is said around the clause ("right after taking the lock, the first thing it does").
    const words = after
      .filter((t) => t.mask?.kind === 'code')
      .slice(0, 1)
      .flatMap((t) => namesIn(t.mask!.text))
      .filter((w) => w.length >= 3 && w !== 'self');
    const clauseTerms = sentence.terms.filter((t) => t.clause >= sentence.terms[guardAt]!.clause - 1 && t.text !== '');
    if (words.length) targets.push({ kind: 'placement', names: [], guard: words, files, scope: pronounChecker, ...positionIn(clauseTerms) });
  } else if (
    guardAt > 0 &&
    checker &&
    CHECK_VERB.test(sentence.terms[guardAt]!.normal) &&
    between.every((t) => t.tags.has('Adverb') || t.tags.has('Modal') || t.tags.has('Auxiliary') || /^(?:will|now|also|then|first)$/.test(t.normal))
  ) {
    // "`request()` now checks `self._closed` first": the function is the subject, the condition its object.
    const words = after
      .filter((t) => t.mask?.kind === 'code')
      .slice(0, 1)
      .flatMap((t) => namesIn(t.mask!.text))
      .filter((w) => w.length >= 3 && w !== 'self');
    if (words.length) targets.push({ kind: 'placement', names: [], guard: words, files, scope: checker, ...positionIn(after) });
  } else if (guardAt > 0 && guardIsSubject && (after.some((t) => wordIs('first-word', t.normal)) || positionIn(after).anchor)) {
    // "Bypass check is the first statement in `get()`", "the bypass check is the first thing `get()` does",
    // "the `max_bytes` check runs before the call to `self._write(chunk)`" (in the function named before).
    const at = positionIn(after);
    const scope = [
      placeFunction(after),
      ...after.map((t) => (t.mask && /\(\)$/.test(t.mask.text) ? functionName(t) : undefined)),
      // "… the first thing it does": the function named before.
      after.some((t) => t.normal === 'it') ? functionBefore(sentence, guardAt) : undefined,
      placeFunction(lead.filter((t) => !t.mask || /\(\)$/.test(t.mask.text.trim()))),
      placeFunction(sentence.terms.slice(0, guardAt).filter((t) => t.clause < sentence.terms[guardAt]!.clause)),
    ].find((name) => name && name !== (at.anchor && lastName(at.anchor)));
    // "The nil check is placed first in `Submit`: `if e == nil { … }`": the guard written out says what it tests.
    const shown = shownAt >= 0 ? conditionNames(sentence.terms[shownAt]!.mask!.text) : [];
    const described = lead
      .filter(
        (t) =>
          t.text !== '' &&
          !t.tags.has('Determiner') &&
          !LOCATION.test(t.normal) &&
          // "constructor validation": the word names where the guard is, not what it tests.
          !CONSTRUCTOR.test(t.normal) &&
          (t.tags.has('Noun') || t.tags.has('Adjective') || t.tags.has('Verb') || t.mask),
      )
      .filter((t) => !(t.mask && functionName(t) === scope))
      .flatMap((t) => (t.mask ? namesIn(t.mask.text) : [t.normal]));
    const words = [...new Set([...shown, ...described])];
    if (scope && words.length) targets.push({ kind: 'placement', names: [], guard: words, files, scope, ...at });
  }
  const clauses = new Set(sentence.terms.map((t) => t.clause));
  // "`offset` is in and `Kind` is exported from src/lib.rs": a file named in a clause with its own code subject is that clause's.
  const clauseFiles = (clause: number) => sentence.terms.filter((t) => t.clause === clause && t.mask?.kind === 'file').map((t) => t.mask!.text);
  const subjectOf = (c: number) => sentence.terms.find((t) => t.clause === c && t.text !== '' && !/^(?:and|but|or|also)$/.test(t.normal))?.mask?.kind;
  const subjectClauses = [...clauses].filter((c) => subjectOf(c) === 'code');
  // "parseRobots is in; index.ts got `export * …`": a file that is its own clause's subject is not where the code is.
  const fileClauses = [...clauses].filter((c) => subjectOf(c) === 'file');
  const sharedFiles = [...clauses].filter((c) => !subjectClauses.includes(c) && !fileClauses.includes(c)).flatMap(clauseFiles);
  let previous: string[] = [];
  for (const clause of clauses) {
    // "👍 `Setpoint` is your side": a mark with no letters is not the clause's first word ("&" joins words).
    const clauseTerms = sentence.terms.filter((t) => t.clause === clause && (t.mask || /[\p{L}\p{N}&]/u.test(t.text)));
    const files = subjectClauses.length > 1 || fileClauses.length ? (clauseFiles(clause).length ? clauseFiles(clause) : sharedFiles) : allFiles;
    // "The `strict` option is in", "my `tick()` landed": the sender's own code after a determiner.
    // "…, and `retry_count` support landed": a new subject after the conjunction.
    // "your L13-23 untouched": the partner's code, of which the sender can only say it left it alone.
    const partners = /^(?:your|their)$/.test(clauseTerms[0]?.normal ?? '') && clauseTerms[1]?.mask !== undefined;
    const terms = (/^(?:the|my|our|and|but|both)$/.test(clauseTerms[0]?.normal ?? '') && clauseTerms[1]?.mask) || partners ? clauseTerms.slice(1) : clauseTerms;
    // The subject: code names, possibly joined ("`max_items` and `flush_every` stay untouched").
    // "lines 40-53 in app.py are yours": the subject's file is part of it.
    const inSubject = (t: Term, i: number) =>
      (/^(?:and|or|both|&)$/.test(t.normal) && terms[i - 1]?.mask && terms[i + 1]?.mask) ||
      (/^(?:in|of)$/.test(t.normal) && terms[i - 1]?.mask && terms[i + 1]?.mask?.kind === 'file');
    const firstWord = terms.findIndex((t, i) => !t.mask && !inSubject(t, i));
    // "`X` is done and exported": the clause after "and" keeps the subject.
    const continued =
      firstWord === 0 &&
      /^(?:and|but|also)$/.test(terms[0]?.normal ?? '') &&
      previous.length > 0 &&
      (terms[1]?.tags.has('Verb') === true || terms[1]?.tags.has('Adverb') === true);
    if (firstWord < 0 || (firstWord === 0 && !continued)) continue;
    const subject = continued ? [] : terms.slice(0, firstWord);
    // "`parse_headers()` / lines 18–27 is yours": what the sender gives the partner, it leaves alone.
    // "lines 24–28 are off limits for me": the same boundary from the sender's side.
    // "`Parse` stays yours", "`Setpoint` is your side": the state after the verb, whose owner is the partner.
    const stays = /^(?:stays?|remains?)$/.test(terms[firstWord]!.normal);
    const state = terms.slice(firstWord + (stays ? 1 : 0)).map((t) => t.normal);
    const owner = stateWord(state);
    const after = state[state.indexOf(owner ?? '') + 1];
    const given =
      ((stays || /^(?:is|are|'s)$/.test(terms[firstWord]!.normal)) &&
        (owner === 'yours' ||
          owner === 'off-limits' ||
          (owner === 'off' && after === 'limits') ||
          (owner === 'your' && /^(?:side|part|area|territory|turf|half|domain)$/.test(after ?? '')))) ||
      // "`new()` I left to you": the code fronted before the sender's verb that gives it to the partner.
      leftToPartner(terms.slice(firstWord));
    const ranges = subject.filter((t) => t.mask?.kind === 'lines');
    // "lines 24–28 untouched": a line range as the subject.
    if (ranges.length && (given || (subject.length === 1 && terms.slice(firstWord, firstWord + 3).some((t) => wordIs('unchanged', t.normal))))) {
      for (const t of ranges) {
        const range = untouchedRange(t.mask!, files);
        if (range) targets.push(range);
      }
      continue;
    }
    const names = continued ? previous : codeOf(subject);
    if (given && names.length) {
      targets.push({ kind: 'untouched_symbol', names, files });
      continue;
    }
    // "`render()`'s arguments are unchanged" is about its parameters (parameterListTargets), not its body.
    if (names.length === 0 || (!continued && namesParameterList(terms))) continue;
    previous = names;
    // "`config=` support landed", "the `tick()` method is in": the noun the code names is part of the subject.
    const head = !continued && (wordIs('definition-noun', terms[firstWord]!.normal) || /^(?:support|handling)$/.test(terms[firstWord]!.normal)) ? 1 : 0;
    // "`retries` field and builder are in": a plain noun joined to the subject is part of it.
    const joined =
      head && /^(?:and|&)$/.test(terms[firstWord + 1]?.normal ?? '') && terms[firstWord + 2]?.tags.has('Noun') && !terms[firstWord + 2]!.mask ? 2 : 0;
    const rest = terms.slice(continued ? 1 : firstWord + head + joined);
    const words = rest.map((t) => t.normal);
    if (words.some((w) => /^(?:not|n't|never|no)$/.test(w)) && !words.some((w) => /^(?:change|changes|changed|edit|edits|touch)$/.test(w))) continue;
    const said = rest.map((t) => t.text).join(' ');
    // "`freeze()` in the same file": "same" before a noun picks a thing; it says nothing of the code's state.
    const unchanged = rest.some((t, i) => wordIs('unchanged', t.normal) && !(t.normal === 'same' && rest[i + 1]?.tags.has('Noun')));
    // "`Add()` clamps to `MinTTL` (new exported const)": a state word after other code describes that code.
    const otherCode = rest.findIndex((t) => t.mask?.kind === 'code');
    const own = otherCode < 0 ? words : words.slice(0, otherCode);
    if (unchanged || AS_BEFORE.test(said) || /\b(?:won't change|will not change|not change)\b/i.test(said)) {
      targets.push({ kind: 'untouched_symbol', names, files });
    } else if (partners) {
      continue;
    } else if (
      own.some((w) => wordIs('exported-word', w)) ||
      (words.includes('available') && rest.some((t, i) => t.mask && /^(?:from|via)$/.test(rest[i - 1]?.normal ?? '')))
    ) {
      // "`X` is exported", "`X` is importable from `pkg`", "`X` is available from src/index.ts".
      targets.push({ kind: 'exported', names, files, module: moduleAfter(rest) ?? files[0] });
    } else if (
      wordIs('present', stateWord(words) ?? '') &&
      (/^(?:is|are|was|were|'s|has|have)$/.test(words[0] ?? '') ||
        /^(?:done|landed|added|implemented|finished|merged|complete|completed|pushed|shipped|committed)$/.test(stateWord(words)!) ||
        // "keys() in.": a verbless note whose state is all its predicate.
        words.join(' ') === 'in')
    ) {
      // "`X` is in", "`tick()` landed", "`max_length` done", "`X` has now landed", "keys() in".
      targets.push({ kind: 'exists', names, files });
    } else if (/^(?:has|have)$/.test(words[0] ?? '') && names.length === 1) {
      // "ClientOptions has `retries` now": the code the subject has is its member.
      const member = rest.slice(1).find((t) => !t.tags.has('Adverb') && !/^(?:now|also|got)$/.test(t.normal));
      if (member?.mask?.kind === 'code') targets.push({ kind: 'exists', names: symbolsIn(member.mask.text).map((n) => `${names[0]}.${n}`), files });
    }
  }
  return targets;
}

/** "The current parameters stay as they are", "signature otherwise unchanged", "none of its existing arguments gets renamed". */
export function parameterListTargets(sentence: Sentence): Target[] {
  const terms = sentence.terms.filter((t) => t.text !== '');
  const at = terms.findIndex((t, i) => PARAMETER_NOUN.test(t.normal) && namesParameterList(terms.slice(Math.max(0, i - 3), i + 1)));
  if (at < 0) return [];
  const before = terms.slice(Math.max(0, at - 5), at);
  const after = terms.slice(at + 1, at + 8);
  const words = after.map((t) => t.normal);
  const unchanged =
    words.some((w) => wordIs('unchanged', w) || w === 'unchange') ||
    AS_BEFORE.test(span(after)) ||
    ([...before, ...after].some((t) => /^(?:no|none|not|n't|never|nothing)$/.test(t.normal)) && words.some((w) => wordIs('change-word', w)));
  // "`render()`'s arguments": the owner before the noun.
  const owner = terms.slice(Math.max(0, at - 3), at).find((t) => t.mask?.kind === 'code' && /'s$/.test(t.text));
  return unchanged ? [parameterList(fileMasks(sentence), placeFunction(after) ?? functionName(owner), sentence)] : [];
}

/** The code that opens the clause before `clause` (its subject): "`uniqueSlug` done" before ", it's exported". */
function clauseSubjectCode(sentence: Sentence, clause: number): string[] {
  const opening = sentence.terms.find((t) => t.clause === clause - 1 && t.text !== '');
  return opening?.mask?.kind === 'code' ? codeOf([opening]) : [];
}

/**
 * Clauses whose subject names code by reference: "the existing keyword arguments are unchanged",
 * "no existing keyword argument changed", "your lines are untouched", "the EXIF step is in",
 * "the registry functions are exported".
 */
export function referringSubjectTargets(sentence: Sentence): Target[] {
  const targets: Target[] = [];
  const files = fileMasks(sentence);
  for (const clause of new Set(sentence.terms.map((t) => t.clause))) {
    // Contractions keep their verb as a term without text ("They're": they, are).
    const terms = sentence.terms.filter((t) => t.clause === clause && (t.text !== '' || t.normal !== ''));
    const verbAt = terms.findIndex((t) => t.tags.has('Verb'));
    if (verbAt <= 0) continue;
    const subject = terms.slice(/^(?:and|but|so|also)$/.test(terms[0]!.normal) ? 1 : 0, verbAt);
    // "They're in", "Both will be exported", "It also gets exported": the code the sender named last.
    const named = subject.filter((t) => !t.tags.has('Adverb'));
    const pronoun = named.length > 0 && named.every((t) => /^(?:they|both|these|those|it|all)$/.test(t.normal));
    if (
      subject.length === 0 ||
      subject.some((t) => t.mask?.kind === 'code' || (t.tags.has('Pronoun') && !/^(?:your|their|no|nothing|none)$/.test(t.normal) && !pronoun))
    )
      continue;
    // "It needs to be re-exported from src/index.ts — I'll do that too": a need the sender takes on is its promise.
    const need = acceptsByPronoun(sentence)
      ? /^(?:needs?|has|have)$/.test(terms[verbAt]!.normal) && terms[verbAt + 1]?.normal === 'to'
        ? 2
        : /^(?:should|must)$/.test(terms[verbAt]!.normal)
          ? 1
          : 0
      : 0;
    const afterNeed = terms.slice(verbAt + need);
    // "should also be exported": the adverb after the modal says nothing of the state.
    const rest = need
      ? afterNeed.slice(
          Math.max(
            0,
            afterNeed.findIndex((t) => !t.tags.has('Adverb')),
          ),
        )
      : afterNeed;
    // "will be exported", "'ll be in": the state after the modal.
    const words = rest.map((t) => t.normal).filter((w, i, all) => !(i === 0 && /^(?:will|shall)$/.test(w) && /^(?:be|get|stay|go|land)$/.test(all[1] ?? '')));
    const negated = terms.some((t) => /^(?:no|not|n't|never|none|nothing)$/.test(t.normal));
    const unchanged =
      (negated && words.some((w) => /^(?:change|changes|changed|touched|edited|modified|removed|renamed|altered)$/.test(w))) ||
      words.some((w) => wordIs('unchanged', w) || w === 'unchange') ||
      AS_BEFORE.test(span(rest));
    if (unchanged) {
      const refers = namesParameterList(subject) ? undefined : partnerWork(subject);
      if (refers) targets.push({ kind: 'untouched_lines', names: [], files, refers });
      continue;
    }
    if (negated || !(wordIs('state-verb', words[0] ?? '') || /^(?:be|get)$/.test(words[0] ?? '')) || subject.some((t) => /^(?:your|their)$/.test(t.normal)))
      continue;
    const described = describingWords(subject);
    // "Closed check is in": a guard's words name what it tests, not code it adds (restatedPlacements reads the guard).
    if ((described.length === 0 && !pronoun) || subject.some((t) => GUARD_NOUN.test(t.normal))) continue;
    // "uniqueSlug done, it's exported": a pronoun after a clause whose subject is code stands for that code.
    const subjectBefore = pronoun ? clauseSubjectCode(sentence, clause) : [];
    const refers: Reference | undefined = subjectBefore.length
      ? undefined
      : pronoun
        ? { to: 'previous' }
        : { to: 'described', words: described, functions: meansFunctions(subject) };
    const state = stateWord(words) ?? '';
    const code = { names: subjectBefore, files, ...(refers && { refers }) };
    if (words.some((w) => wordIs('exported-word', w) && w !== 'public'))
      targets.push({ kind: 'exported', ...code, module: moduleAfter(rest) ?? importedFrom(sentence) ?? files[0] });
    else if (wordIs('present', state) || (/^(?:goes|go|went|lands?|landed)$/.test(words[0]!) && /^(?:in|into)$/.test(words[1] ?? '')))
      targets.push({ kind: 'exists', ...code });
  }
  return targets;
}
