// Sentence and clause structure of agents' prose, from the `compromise` NLP library: who is the
// subject of each verb, its lemma, tense and mood, negation, modality and condition. The
// detectors decide questions, requests, plans and promises from this structure instead of lists
// of phrasings. Code in a sentence (inline code, file paths, line references, code-shaped names)
// is swapped for a placeholder noun first, so the tagger sees "I'll add Zqa to Zqb" and the
// detectors still get the code back from `masks`.
import type nlpType from 'compromise';
import { maskCode, type Mask, type MaskKind } from './code-masks.ts';
import { proseOf, sentences } from '../text.ts';

export type { Mask, MaskKind } from './code-masks.ts';

type Nlp = typeof nlpType;
let nlp: Nlp | undefined;

/** Loads the NLP library (half a second): once, and only when a detector needs it. */
export async function loadLanguage(): Promise<void> {
  nlp ??= (await import('compromise')).default as Nlp;
}

function model(): Nlp {
  if (!nlp) throw new Error('call loadLanguage() before analysing sentences');
  return nlp;
}

export type Person = 'first' | 'second' | 'other' | 'none';

export interface VerbPhrase {
  /** Dictionary form of the main verb ("add" for "added", "adding"). */
  lemma: string;
  /** compromise's form: simple-future, present-perfect, imperative, modal-infinitive, ... */
  form: string;
  tense: 'past' | 'present' | 'future';
  progressive: boolean;
  negative: boolean;
  /** Auxiliaries and modals before the verb ("will", "can", "have", "am going to"). */
  auxiliary: string;
  subject: Person;
  /** Index of the verb phrase's first term (an auxiliary, if any) in the sentence's terms. */
  start: number;
  /** Index of the main verb's term: its object follows it. */
  index: number;
  /** Index of the clause the verb belongs to. */
  clause: number;
  /** The verb this one completes ("planning" for "planning to add", "let" for "let me add"). */
  governor?: VerbPhrase;
}

export interface Term {
  text: string;
  /** Lower case, contractions expanded ("'ll" -> "will"). */
  normal: string;
  tags: Set<string>;
  clause: number;
  /** Punctuation after the term (a comma or colon ends a clause). */
  post: string;
  mask?: Mask;
}

export interface Sentence {
  /** Verbatim from the message. */
  text: string;
  /** Offset in the message. */
  start: number;
  masks: Mask[];
  terms: Term[];
  verbs: VerbPhrase[];
  /** Ends with a question mark. */
  questionMark: boolean;
  /** An item of a bulleted or numbered list. */
  listItem: boolean;
}

/** A check mark: "count_ones is done ✅", "- ✓ `NewLimiter(rate)`". */
export const COMPLETION_MARK = /[✓✔✅☑]/u;

/** Bullets, numbering, headings, emphasis and check marks around a line, which are not words. */
function stripDecoration(text: string): string {
  return (
    text
      .replace(/^(?:\s*(?:[-*+•>]|\d+[.)]|#{1,6}|(?:[✓✔✅☑✗✘❌]|⚠\uFE0F?)+|\[[ xX]\]))+\s*/u, '')
      .replace(/\*\*|__/g, '')
      // A mark between two words ends a clause ("Len() ✓ didn't go near …"), as a dash does.
      .replace(/\s*[✓✔✅☑]+\s*(?=[\w`])/gu, ' — ')
      .replace(/[✓✔✅☑]/gu, '')
      // Shouting and capitals after a colon ("Line 26: Added BOTH") are not names.
      .replace(/\b[A-Z]{2,}\b/g, (w) => w.toLowerCase())
      .replace(/([:;—–]\s*)([A-Z][a-z]+)\b/g, (_, lead: string, w: string) => lead + (w.startsWith('Zq') ? w : w.toLowerCase()))
  );
}

const FIRST_PERSON = new Set(['i', 'we', 'me', 'us', 'my', 'our', 'myself', 'ourselves', "i'm", "i'll", "i've", "i'd", "we're", "we'll", "we've"]);
const SECOND_PERSON = new Set(['you', 'your', 'yourself', "you'll", "you're", "you've", "you'd"]);
/** "My plan is to …", "our proposal is …": the sender's intent as a subject. */
const INTENT_NOUN = /^(?:plan|proposal|approach|intention|idea|part|side|job|task|scope|change|changes|split)$/;
/** Words a subject search skips on its way back from the verb. */
export const SKIPPED =
  /^(?:also|then|now|just|already|still|first|next|finally|actually|really|only|both|each|all|probably|definitely|currently|simply|go|ahead|and)$/;

function personOf(term: Term | undefined): Person {
  if (!term) return 'none';
  if (FIRST_PERSON.has(term.normal)) return 'first';
  if (SECOND_PERSON.has(term.normal)) return 'second';
  return 'other';
}

interface RawTerm {
  text: string;
  normal?: string;
  machine?: string;
  tags: string[];
  pre: string;
  post: string;
  offset?: { start: number; length: number };
}

function toTerms(raw: RawTerm[], masks: Mask[]): Term[] {
  return raw.map((t) => {
    const normal = (t.machine ?? t.normal ?? t.text).toLowerCase();
    // "`render()`'s": the placeholder with a possessive.
    const mask = masks.find((m) => m.placeholder === t.text.replace(/'s$/, '').replace(/[^\w]/g, ''));
    return { text: t.text, normal, tags: new Set(t.tags), clause: 0, post: t.post, ...(mask && { mask }) };
  });
}

/** Clause boundaries: punctuation after a term, and a conjunction that starts a new clause. */
const CLAUSE_CONJUNCTION = /^(?:and|but|or|so|then|unless|if|because|while|when|once|although|though|otherwise)$/i;

function markClauses(terms: Term[]): void {
  let clause = 0;
  terms.forEach((t, i) => {
    if (
      i > 0 &&
      t.tags.has('Conjunction') &&
      CLAUSE_CONJUNCTION.test(t.text) &&
      terms[i - 1]!.clause === clause &&
      (startsClause(terms, i + 1) || joinsClauses(terms, i, clause))
    )
      clause++;
    t.clause = clause;
    if (/[,;:—–]|\s-\s/.test(t.post) && !inSeries(terms, i)) clause++;
  });
}

const isCode = (t: Term | undefined) => t?.mask?.kind === 'code';

/** "`foo`, `bar` and `baz`", "`foo`, `bar`, or `baz`": a comma between listed code names ends no clause. */
function inSeries(terms: Term[], at: number): boolean {
  if (!isCode(terms[at]) || terms[at]!.post.trim() !== ',') return false;
  const next = terms[at + 1];
  return isCode(next) || (/^(?:and|or)$/.test(next?.normal ?? '') && isCode(terms[at + 2]));
}

/** "and" before a verb or a pronoun starts a clause; between two nouns it does not. */
function startsClause(terms: Term[], from: number): boolean {
  for (let i = from; i < terms.length; i++) {
    const t = terms[i]!;
    if (t.tags.has('Adverb') || SKIPPED.test(t.normal)) continue;
    return t.tags.has('Verb') || t.tags.has('Pronoun') || t.tags.has('Condition') || CLAUSE_CONJUNCTION.test(t.normal);
  }
  return false;
}

/**
 * "`offset` is in and `Kind` is exported": after a clause that has its verb, "and" before a subject
 * with a verb of its own starts a clause ("`a` and `b` are exported" shares one verb: no clause).
 */
function joinsClauses(terms: Term[], at: number, clause: number): boolean {
  if (!terms.slice(0, at).some((t) => t.clause === clause && t.tags.has('Verb'))) return false;
  let i = at + 1;
  while (
    i < terms.length &&
    i <= at + 4 &&
    !terms[i]!.tags.has('Verb') &&
    (terms[i]!.tags.has('Determiner') || terms[i]!.tags.has('Adjective') || terms[i]!.tags.has('Noun')) &&
    !terms[i]!.tags.has('Pronoun')
  )
    i++;
  return i > at + 1 && terms[i]?.tags.has('Verb') === true;
}

function tenseOf(form: string, tense: string): VerbPhrase['tense'] {
  if (/future/.test(form) || tense === 'FutureTense') return 'future';
  if (/past|perfect/.test(form) || tense === 'PastTense') return 'past';
  return 'present';
}

/** The subject of the verb at `index`: the nearest noun before it in its clause. */
function subjectOf(terms: Term[], index: number): Person {
  for (let i = index - 1; i >= 0; i--) {
    const t = terms[i]!;
    if (t.clause !== terms[index]!.clause) return 'none';
    if (t.tags.has('Pronoun')) return personOf(t);
    if (t.tags.has('Noun')) return INTENT_NOUN.test(t.normal) && /^(?:my|our)$/.test(terms[i - 1]?.normal ?? '') ? 'first' : personOf(t);
    if (
      t.tags.has('Adverb') ||
      t.tags.has('Negative') ||
      t.tags.has('Auxiliary') ||
      t.tags.has('Modal') ||
      t.tags.has('Copula') ||
      SKIPPED.test(t.normal) ||
      t.text === ''
    )
      continue;
    if (t.tags.has('Conjunction') || t.tags.has('Preposition') || t.tags.has('Verb')) return 'none';
  }
  return 'none';
}

interface RawVerb {
  text: string;
  offset?: { start: number };
  verb?: { infinitive?: string; root?: string; auxiliary?: string; negative?: boolean; grammar?: { form?: string; tense?: string; progressive?: boolean } };
  terms?: RawTerm[];
}

/** The dictionary form of one verb ("keep" for "kept"). */
function infinitiveOf(word: string): string {
  const verb = (model()(word).verbs().json() as RawVerb[])[0]?.verb;
  return (verb?.infinitive || word).toLowerCase();
}

function analyse(masked: string, masks: Mask[]): { terms: Term[]; verbs: VerbPhrase[] } {
  const doc = model()(masked);
  // A clause-initial "-ing" word before its object is a verb ("Changing `flush()` in …"), whatever the tagger guessed.
  doc.match('^/^(?!(?:no|some|any|every)thing$|string$|during$)[a-z]+ing$/').tag('Gerund');
  // "Added: `a` and `b`", "Exported: …": the tagger may take the verb heading a list for an interjection.
  doc.match('^#Expression').match('/^(?:added|exported|implemented|introduced|created|defined)$/').tag('PastTense');
  // "Updated `__init__.py` to export …", "Exposed `parse_args` via …": a report's opening past form before
  // code or a determiner is its verb, where the tagger took it for an adjective.
  doc.match('^[#Adjective] (#ProperNoun|#Determiner)', 0).match('/^[a-z]+ed$/').tag('PastTense');
  // "All tests pass, including `test_empty`": after a word that is no form of "be", "including" is a preposition.
  doc.match('!#Copula [(including|excluding)]', 0).unTag('Verb').tag('Preposition');
  // A hedge between a modal and its verb ("I'll most likely give `Pool` …") leaves the verb a verb.
  doc.match('#Modal (#Adverb|likely)+ [#Noun]', 0).not('(#ProperNoun|#Pronoun|#Determiner)').tag('Infinitive');
  const raw = (doc.json({ offset: true }) as { terms: RawTerm[] }[]).flatMap((s) => s.terms);
  const terms = toTerms(raw, masks);
  markClauses(terms);
  const starts = raw.map((t) => t.offset?.start ?? -1);
  const verbs: VerbPhrase[] = [];
  for (const v of doc.verbs().json({ offset: true }) as RawVerb[]) {
    const vTerms = v.terms ?? [];
    const first = vTerms[0]?.offset?.start ?? v.offset?.start ?? -1;
    const begin = starts.indexOf(first);
    if (begin === -1) continue;
    // The main verb: the phrase's last verb term ("add" in "will not add").
    const heads = vTerms
      .map((t) => starts.indexOf(t.offset?.start ?? -1))
      .filter((i) => i >= 0 && terms[i]!.tags.has('Verb') && !terms[i]!.tags.has('Auxiliary') && !terms[i]!.tags.has('Modal'));
    const index = heads.at(-1) ?? begin;
    // "`Len()` added ✓ — didn't go near …": a phrase the tagger runs across a clause boundary has the
    // subject of its main verb's clause, looked for from the phrase's first word in that clause.
    const inClause = vTerms.map((t) => starts.indexOf(t.offset?.start ?? -1)).find((i) => i >= 0 && terms[i]!.clause === terms[index]!.clause);
    const g = v.verb?.grammar ?? {};
    const form = g.form ?? '';
    // One word: compromise sometimes folds the next word in ("change that"), and then leaves a
    // past form as it is ("kept clear"): the first word alone gets its own dictionary form.
    const words = (v.verb?.infinitive || v.verb?.root || v.text)
      .toLowerCase()
      .replace(/[^a-z' -]/g, '')
      .trim()
      .split(/\s+/);
    const lemma = words.length > 1 ? infinitiveOf(words[0]!) : (words[0] ?? '');
    verbs.push({
      lemma,
      form,
      // "didn't go near": the tagger may leave a phrase's tense unset; its "did" says past.
      tense: terms.slice(inClause ?? begin, index).some((t) => /^(?:did|didn't)$/.test(t.normal)) ? 'past' : tenseOf(form, g.tense ?? ''),
      progressive: Boolean(g.progressive),
      // "I'll make sure not to touch …": the tagger leaves "not" before "to" out of the phrase.
      negative: Boolean(v.verb?.negative) || (terms[index - 1]?.normal === 'to' && /^(?:not|never)$/.test(terms[index - 2]?.normal ?? '')),
      auxiliary: (v.verb?.auxiliary ?? '').toLowerCase(),
      subject: subjectOf(terms, inClause ?? begin),
      start: inClause ?? begin,
      index,
      clause: terms[index]!.clause,
    });
  }
  verbs.forEach((v, i) => {
    const previous = verbs[i - 1];
    const before = terms[v.index - 1];
    if (!previous || previous.clause !== v.clause || !before) return;
    // "planning to add", "going to add", "want to add"; "let me add"; "is to insert" (my plan is to insert).
    if (before.normal === 'to' || (previous.lemma === 'let' && (before.normal === 'me' || before.normal === 'us')) || v.start - previous.index === 1) {
      v.governor = previous;
      // "I want you to add …", "I asked agent2 not to touch …": the one named between the verbs does the second.
      const doer = terms.slice(previous.index + 1, v.index).find((t) => /^(?:you|him|her|them|agent\d*)$/.test(t.normal));
      if (doer) v.subject = doer.normal === 'you' ? 'second' : 'other';
      else if (v.subject === 'none') v.subject = previous.subject;
    }
  });
  return { terms, verbs };
}

/** One sentence (or list item) of prose, analysed. */
export function analyseSentence(text: string, start = 0): Sentence {
  const { masked: code, masks } = maskCode(text);
  const masked = stripDecoration(code);
  const { terms, verbs } = masked.trim() ? analyse(masked, masks) : { terms: [], verbs: [] };
  return {
    text,
    start,
    masks,
    terms,
    verbs,
    questionMark: /[\p{L}\p{N}][^?]*\?["')\]*_]*$/u.test(text.trim()),
    listItem: /^\s*(?:[-*+•]|\d+[.)])\s/.test(text),
  };
}

/** Analyses are pure: the detectors read the same message several times (questions, plans, commitments, repeats). */
const analysed = new Map<string, Sentence[]>();
const MAX_CACHED = 5000;

/** The sentences of a message's prose (pasted code and quoted lines left out), analysed. */
export function messageSentences(message: string): Sentence[] {
  const hit = analysed.get(message);
  if (hit) return hit;
  const result = sentences(proseOf(message)).map((s) => analyseSentence(message.slice(s.start, s.start + s.text.length), s.start));
  if (analysed.size >= MAX_CACHED) analysed.delete(analysed.keys().next().value!);
  analysed.set(message, result);
  return result;
}

/** The masked code of a sentence of one kind. */
export function masksOf(sentence: Sentence, ...kinds: MaskKind[]): Mask[] {
  return sentence.masks.filter((m) => kinds.includes(m.kind));
}

/** Terms from `from` (inclusive) to `to` (exclusive), as text with masks restored. */
export function span(sentence: Sentence, from: number, to = sentence.terms.length): string {
  return sentence.terms
    .slice(from, to)
    .map((t) => (t.mask ? t.mask.text : t.text) + t.post.replace(/\s+$/, ' '))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}
