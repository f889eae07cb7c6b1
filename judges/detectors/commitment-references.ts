// Promises that name their target by reference, resolved through the conversation before them:
// "I stayed out of your lines" (the ranges and code the partner announced as its own work), "the
// existing keyword arguments are unchanged" (the parameter list of the function the talk is about),
// "the EXIF step is in", "the registry functions are exported" (code the sender named earlier,
// found by the words that describe it), "exported from the package" (the package of the file the
// code lives in). A reference that resolves to nothing commits to nothing checkable.
import type { ConversationMessage } from '../types.ts';
import type { Sentence, Term } from './language.ts';

/** What a target refers to when the sentence names no code for it. */
export type Reference =
  /** The partner's announced work: its line ranges, and the existing code it said it changes. */
  | { to: 'partner_work'; only: 'ranges' | 'all' }
  /** The existing parameters of a function (`scope` when the sentence names it). */
  | { to: 'parameters'; fallback?: string }
  /** Code the sender named before, described in words ("the EXIF step", "registry functions"). */
  | { to: 'described'; words: string[]; functions: boolean }
  /** "Both get exported", "added them": the code the sender named last. */
  | { to: 'previous' };

/** Nouns that say what kind of thing is meant, not which one. */
export const GENERIC_NOUN =
  /^(?:step|steps|change|changes|function|functions|method|methods|helper|helpers|code|support|feature|features|part|parts|thing|things|stuff|work|fix|fixes|logic|implementation|bit|piece|one|ones|side|version|update|updates|test|tests|everything|anything|something|nothing|all|rest|pr|patch|branch|commit|file|files|module|line|lines|new|existing|own|whole|entire|main|first|other|both|call|calls|done|change|edit|edits|api|class|classes|option|options|plan|task|it|this|that|these|those|mine|yours|we|i)$/;
const FUNCTION_NOUN = /^(?:function|functions|method|methods|helper|helpers|func|funcs|fn|fns|routine|routines)$/;
/** What an agent's own announced work is called: "your lines", "your range", "your code". */
export const WORK_NOUN =
  /^(?:lines?|ranges?|regions?|sections?|blocks?|hunks?|parts?|areas?|code|changes|edits|functions?|methods?|territory|side|stuff|work|bits?|span)$/;
const RANGE_NOUN = /^(?:lines?|ranges?|regions?|sections?|blocks?|hunks?|span)$/;
export const PARAMETER_NOUN = /^(?:param|params|parameter|parameters|argument|arguments|arg|args|kwarg|kwargs|signature|signatures|keywords)$/;
const EXISTING = /^(?:existing|pre-existing|preexisting|current|old|original|other|public|present)$/;

/** The name's words: `ImageOps.exif_transpose` gives image, ops, exif, transpose. */
export function nameParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w.length >= 2);
}

/** A describing word matches a name's word by its stem: "registry" names `register_filter` and `unregister_filter`. */
function describes(word: string, part: string): boolean {
  const stem = word.length <= 5 ? word : word.slice(0, Math.max(5, word.length - 2));
  return part.includes(stem);
}

/** The describing words of a noun phrase: its nouns and adjectives that say which thing is meant. */
export function describingWords(terms: readonly Term[]): string[] {
  return terms
    .filter((t) => !t.mask && (t.tags.has('Noun') || t.tags.has('Adjective') || t.tags.has('Acronym')) && !t.tags.has('Pronoun') && !t.tags.has('Determiner'))
    .map((t) => t.normal.replace(/[^a-z0-9-]/g, ''))
    .filter((w) => w.length >= 3 && !GENERIC_NOUN.test(w));
}

export const meansFunctions = (terms: readonly Term[]) => terms.some((t) => FUNCTION_NOUN.test(t.normal));

/** "the existing keyword arguments", "the signature": the parameter list of a function. */
export function namesParameterList(terms: readonly Term[]): boolean {
  return terms.some(
    (t, i) =>
      PARAMETER_NOUN.test(t.normal) &&
      // "the `timeout` keyword argument" names one parameter, not the list.
      !terms.slice(Math.max(0, i - 3), i).some((x) => x.mask && !/'s$/.test(x.text)) &&
      (/^signatures?$/.test(t.normal) ||
        terms.slice(Math.max(0, i - 3), i).some((x) => EXISTING.test(x.normal) || x.normal === 'keyword' || (x.mask && /'s$/.test(x.text)))),
  );
}

/** "your lines", "their code", "the range you announced": the partner's own work. */
export function partnerWork(terms: readonly Term[]): Reference | undefined {
  for (let i = 0; i < terms.length; i++) {
    const t = terms[i]!;
    if (t.normal === 'yours' || t.normal === 'theirs') return { to: 'partner_work', only: 'all' };
    const owner = /^(?:your|their)$/.test(t.normal) ? i : -1;
    const noun = owner >= 0 ? terms.slice(i + 1, i + 4).find((x) => WORK_NOUN.test(x.normal)) : undefined;
    if (noun) return { to: 'partner_work', only: RANGE_NOUN.test(noun.normal) ? 'ranges' : 'all' };
    // "the range you announced", "the lines you claimed"
    if (RANGE_NOUN.test(t.normal) && terms[i + 1]?.normal === 'you') return { to: 'partner_work', only: 'ranges' };
  }
  return undefined;
}

/** A line range an agent announced as its own work, with the file it is in. */
export interface AnnouncedRange {
  agent: string;
  messageId: number;
  at: number;
  lines: [number, number];
  files: string[];
}

/** Code an agent named, with its words, in conversation order. */
export interface NamedCode {
  agent: string;
  messageId: number;
  /** Position in the conversation: message index * 1000 + sentence index. */
  at: number;
  name: string;
  /** The words of its name, and of the phrase it stands for ("an EXIF orientation fix: `exif_transpose(img)`"). */
  parts: string[];
  isFunction: boolean;
  /** Named as code the agent changes or adds (its own work), not the partner's. */
  own: boolean;
  /** Files named in the same sentence, else the agent's last named file. */
  files: string[];
  /** Whether `files` were named in the same sentence. */
  filesNamed: boolean;
}

export interface ConversationMentions {
  ranges: AnnouncedRange[];
  code: NamedCode[];
  /** Functions whose parameters were talked about ("a `config` keyword to `__init__`"). */
  parameterScopes: { agent: string; at: number; scope: string }[];
  /** Files each agent named, in order. */
  files: { agent: string; at: number; file: string }[];
}

const SECOND_PERSON = /^(?:you|your|yours|you'll|you're)$/;

function lineRangeOf(text: string): [number, number] | undefined {
  const numbers = [...text.matchAll(/\d+/g)].map((m) => Number(m[0]));
  return numbers.length ? [Math.min(...numbers), Math.max(...numbers)] : undefined;
}

/**
 * What each message names, for resolving later references. `symbols` and `functionOf` come from
 * the extractor (what a code mask names, and the function a phrase places code in).
 */
export function conversationMentions(
  conversation: readonly ConversationMessage[],
  analysed: readonly Sentence[][],
  symbols: (code: string) => string[],
  functionOf: (terms: readonly Term[]) => string | undefined,
): ConversationMentions {
  const mentions: ConversationMentions = { ranges: [], code: [], parameterScopes: [], files: [] };
  conversation.forEach((message, m) => {
    analysed[m]!.forEach((sentence, s) => {
      const at = m * 1000 + s;
      const files = sentence.masks.filter((x) => x.kind === 'file').map((x) => x.text);
      const lastFiles = files.length
        ? files
        : mentions.files
            .filter((f) => f.agent === message.from)
            .slice(-1)
            .map((f) => f.file);
      for (const file of files) mentions.files.push({ agent: message.from, at, file });
      const terms = sentence.terms.filter((t) => t.text !== '');
      terms.forEach((t, i) => {
        if (!t.mask) return;
        const clause = terms.filter((x) => x.clause === t.clause);
        const negated = clause.some((x) => /^(?:not|n't|never|no|without|won't)$/.test(x.normal));
        // The partner's code: "your `parseDate()`", "`parseDate()` is yours".
        const others =
          terms.slice(Math.max(0, i - 3), i).some((x) => SECOND_PERSON.test(x.normal) || /^(?:partner|their|his|her)$/.test(x.normal)) ||
          clause.some((x) => /^(?:yours|theirs)$/.test(x.normal));
        // A bare range ("10-19") names lines only by repeating one named before: it announces none.
        if (t.mask.kind === 'lines' && t.mask.bare) return;
        if (t.mask.kind === 'lines') {
          const lines = lineRangeOf(t.mask.text);
          // A range the sender works on: not the partner's ("your lines 40-50"), not one it stays out of.
          if (lines && !negated && !others && !clause.some((x) => SECOND_PERSON.test(x.normal)))
            mentions.ranges.push({ agent: message.from, messageId: message.id, at, lines, files: lastFiles });
          return;
        }
        if (t.mask.kind !== 'code') return;
        const described = apposedWords(terms, i);
        for (const name of symbols(t.mask.text)) {
          mentions.code.push({
            agent: message.from,
            messageId: message.id,
            at,
            name,
            parts: [...nameParts(name), ...described],
            isFunction: /\(\)$/.test(t.mask.text.trim()) || /\b(?:def|function|func|fn)\b/.test(t.mask.text) || meansFunctions(terms.slice(i + 1, i + 3)),
            own: !others && !negated,
            files: lastFiles,
            filesNamed: files.length > 0,
          });
        }
      });
      if (terms.some((t) => PARAMETER_NOUN.test(t.normal) || t.normal === 'keyword')) {
        const scope = functionOf(terms);
        if (scope) mentions.parameterScopes.push({ agent: message.from, at, scope });
      }
    });
  });
  return mentions;
}

/** Code listed after a colon stands for the phrase before it: "adding an EXIF orientation fix to `load()`: `exif_transpose(img)`". */
function apposedWords(terms: readonly Term[], i: number): string[] {
  let start = i;
  while (start > 0 && !/:/.test(terms[start - 1]!.post) && (terms[start - 1]!.mask?.kind === 'code' || /^(?:and|or)$/.test(terms[start - 1]!.normal))) start--;
  const lead = terms[start - 1];
  if (!lead || !/:/.test(lead.post)) return [];
  return describingWords(terms.slice(0, start).filter((t) => t.clause === lead.clause));
}

/** The code the sender named last before `before` (its own, not the partner's). */
export function previousCode(mentions: ConversationMentions, agent: string, before: number): NamedCode[] {
  const own = mentions.code.filter((c) => c.agent === agent && c.at < before && c.own);
  const latest = own.at(-1)?.at;
  return own.filter((c) => c.at === latest);
}

/** The sender's earlier code that a description names: the best-matching names of the latest sentence that has any. */
export function describedCode(mentions: ConversationMentions, agent: string, before: number, words: readonly string[], functions: boolean): NamedCode[] {
  if (words.length === 0) return [];
  const scored = mentions.code
    .filter((c) => c.agent === agent && c.at < before && c.own)
    .map((c) => ({ c, score: words.filter((w) => c.parts.some((p) => describes(w, p))).length }))
    .filter((x) => x.score > 0 && (!functions || x.c.isFunction));
  if (scored.length === 0) return [];
  const best = Math.max(...scored.map((x) => x.score));
  const top = scored.filter((x) => x.score === best);
  const latest = Math.max(...top.map((x) => x.c.at));
  const chosen = top.filter((x) => x.c.at === latest).map((x) => x.c);
  return chosen.filter((c, i) => chosen.findIndex((d) => d.name === c.name) === i);
}

/** The ranges the partners of `agent` announced before `before`. */
export function partnerRanges(mentions: ConversationMentions, agent: string, before: number): AnnouncedRange[] {
  return mentions.ranges.filter((r) => r.agent !== agent && r.at < before);
}

/** Existing code the partners said they change (their own work), named before `before`. */
export function partnerCode(mentions: ConversationMentions, agent: string, before: number): NamedCode[] {
  return mentions.code.filter((c) => c.agent !== agent && c.at < before && c.own);
}

/** The function whose parameters the talk was last about: the sender's own mention first, then anyone's. */
export function parameterScope(mentions: ConversationMentions, agent: string, before: number): string | undefined {
  const earlier = mentions.parameterScopes.filter((p) => p.at <= before);
  return (earlier.filter((p) => p.agent === agent).at(-1) ?? earlier.at(-1))?.scope;
}

/** The module that exports a package's names, for the file a symbol lives in. */
export function packageModule(file: string): string | undefined {
  const dir = file.includes('/') ? file.replace(/\/[^/]*$/, '') : '';
  const prefix = dir ? `${dir}/` : '';
  if (/\.pyi?$/.test(file)) return dir ? `${prefix}__init__.py` : undefined;
  const js = /\.(ts|tsx|js|jsx|mjs|cjs|mts)$/.exec(file);
  if (js) return `${prefix}index.${js[1]}`;
  if (/\.rs$/.test(file)) return `${prefix}lib.rs`;
  if (/\.go$/.test(file)) return file;
  return undefined;
}
