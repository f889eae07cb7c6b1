// Commitments in messages: promises ("I'll add `max_batch_size` to processors.py, lines 26-30")
// and completion claims ("✓ Line 26: Added fallback_processor and max_batch_size"). What is
// checkable about them is the code they name (identifiers) and the files they name; anything
// vaguer ("I'll add the bypass check") is left alone, since precision comes first.
import type { ConversationMessage } from '../../harness/store/records.ts';
import { proseOf, sentences } from '../text.ts';
import { filePathMentions, FILE_PATH } from './mentions.ts';

export interface Commitment {
  messageId: number;
  agent: string;
  /** The sentence, verbatim from the message. */
  quote: string;
  kind: 'promise' | 'claim';
  /** Code the sentence says will be (or was) added. */
  identifiers: string[];
  /** Files the sentence names. */
  files: string[];
  /** Promises to change a file without naming new code ("I'll modify cache.py lines 10-20"). */
  modifiesFiles: boolean;
}

const ADD_VERBS = 'add|insert|create|implement|define|introduce|append|register|export|write';
const MODIFY_VERBS = 'modify|change|update|edit|refactor|extend|touch|rework|rewrite';
const ADDING = 'adding|inserting|creating|implementing|defining|introducing|appending|registering|exporting|writing';
const MODIFYING = 'modifying|changing|updating|editing|refactoring|extending|touching|reworking|rewriting';
const PAST_ADD = 'added|inserted|created|implemented|defined|introduced|appended|registered|exported|wrote';

const INTENT = String.raw`\b(?:I(?:['’]ll| will| am going to|['’]m going to| plan to| intend to| am about to|['’]m about to)|[Ll]et me|[Mm]y plan is to)`;
/** Up to three words between the intent and the verb ("I'll also go ahead and add"). */
const FILLER = String.raw`(?:\s+[\w-]+){0,3}?`;
const PROMISE = new RegExp(`${INTENT}${FILLER}\\s+(${ADD_VERBS}|${MODIFY_VERBS})\\b`, 'i');
const PROMISE_NOW = new RegExp(`\\bI(?:['’]m| am)\\s+(?:now\\s+|currently\\s+|also\\s+)?(${ADDING}|${MODIFYING})\\b`, 'i');
const ADVERBS = String.raw`(?:(?:also|now|already|just|successfully|fully|then|finally)\s+)*`;
const CLAIM_IN_SENTENCE = new RegExp(`\\bI(?:['’]ve| have)?\\s+${ADVERBS}(${PAST_ADD})\\b`, 'i');
const CLAIM_AT_START = new RegExp(`^${ADVERBS}(${PAST_ADD})\\b`, 'i');
/** Bullets, check marks and labels before a status line: "- ✓ Line 26:", "DONE:", "2." */
const STATUS_PREFIX = /^(?:[^\p{L}\p{N}]+|\d+[.)]\s*|(?:lines?\s+\d+(?:\s*[-–]\s*\d+)?|done|update|status|step\s+\d+)\s*[:—-]\s*)+/iu;

const NEGATION = /\b(?:not|never|won't|if|unless|could|can|should|shall|may|might|would|maybe|perhaps)\b|n't\b/i;
/** Where the object of "add" ends and its location or a new clause begins. */
const OBJECT_END = new RegExp(
  String.raw`\s(?:to|in|into|at|after|before|inside|within|on|under|between|near|above|below|right|immediately|from|so|which|that|for|but|except|without|instead|while|because|as|when|once|if|unless|then|via|using|with)\b` +
    String.raw`|\s(?:and|,)\s+(?:then\s+)?(?:I(?:['’]ll| will)\s+)?(?:update|modify|change|edit|refactor|rename|remove|delete|call|use|import|wire|hook|keep|leave|make|move|fix|test|run|adjust|replace|wrap|pass|document|ensure|check|verify)\b`,
  'i',
);

const KEYWORDS = new Set([
  'None', 'True', 'False', 'null', 'undefined', 'true', 'false', 'self', 'this', 'cls', 'def', 'class', 'return', 'import', 'from',
  'async', 'await', 'const', 'let', 'var', 'function', 'new', 'str', 'int', 'bool', 'float', 'dict', 'list', 'tuple', 'set',
  'string', 'number', 'boolean', 'object', 'any', 'void', 'Optional', 'Any', 'Union', 'List', 'Dict',
]);

const IDENTIFIER = /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?/g;

/** Shaped like code even without backticks: snake_case, camelCase, or a call `name()`. */
function looksLikeCode(token: string): boolean {
  return /[A-Za-z0-9]_[A-Za-z0-9]|^_+[A-Za-z]/.test(token) || /^[a-z]+[A-Z]/.test(token) || token.endsWith('()') || token.includes('.');
}

/**
 * How a named identifier is found in code: `Prompt.from_str()` as `from_str`, even after a dot;
 * a plain `max_batch_size` only where it is not an attribute access (`self.max_batch_size` uses a
 * name, it does not define it).
 */
export function identifierPattern(name: string): RegExp {
  const last = name.slice(name.lastIndexOf('.') + 1).replace(/[$]/g, '\\$');
  return new RegExp(name.includes('.') ? `(?<![\\w$])${last}(?![\\w$])` : `(?<![\\w$.])${last}(?![\\w$])`);
}

/** Identifiers a phrase names as new code: backticked names and code-shaped bare words. */
export function identifiersIn(phrase: string): string[] {
  const found: string[] = [];
  const withoutPaths = phrase.replace(FILE_PATH, (m) => ' '.repeat(m.length));
  const outsideTicks = withoutPaths.replace(/`([^`\n]*)`/g, (_, code: string) => {
    const trimmed = code.trim();
    if (/^[A-Za-z_$][\w$.]*(?:\(\))?$/.test(trimmed)) found.push(trimmed);
    else {
      // A snippet: its code-shaped names, and names being defined (`reverse: bool = False`, `def foo(`).
      for (const m of trimmed.matchAll(IDENTIFIER)) {
        const next = trimmed.slice(m.index + m[0].length).trimStart()[0];
        if (looksLikeCode(m[0]) || (next !== undefined && ':=('.includes(next))) found.push(m[0]);
      }
    }
    return ' '.repeat(code.length + 2);
  });
  // Bare dotted names are module paths ("outlines.prompts") unless called: `Image.open()`.
  for (const m of outsideTicks.matchAll(IDENTIFIER)) if (looksLikeCode(m[0]) && (!m[0].includes('.') || m[0].endsWith('()'))) found.push(m[0]);
  return [...new Set(found.map((t) => t.replace(/\(\)$/, '')).filter((name) => name.length > 1 && !KEYWORDS.has(name)))];
}

function objectOf(rest: string): string {
  const end = OBJECT_END.exec(rest);
  return end ? rest.slice(0, end.index) : rest;
}

function commitmentIn(sentence: string): Omit<Commitment, 'messageId' | 'agent' | 'quote'> | undefined {
  if (sentence.endsWith('?')) return undefined;
  const files = filePathMentions(sentence);

  const promise = PROMISE.exec(sentence) ?? PROMISE_NOW.exec(sentence);
  if (promise) {
    const lead = sentence.slice(0, promise.index + promise[0].length);
    if (NEGATION.test(lead)) return undefined;
    const verb = promise[1]!.toLowerCase();
    const isAdd = [...ADD_VERBS.split('|'), ...ADDING.split('|')].includes(verb);
    const identifiers = isAdd ? identifiersIn(objectOf(sentence.slice(promise.index + promise[0].length))) : [];
    const modifiesFiles = identifiers.length === 0 && files.length > 0;
    if (identifiers.length === 0 && !modifiesFiles) return undefined;
    return { kind: 'promise', identifiers, files, modifiesFiles };
  }

  const status = sentence.replace(STATUS_PREFIX, '');
  const claim = CLAIM_IN_SENTENCE.exec(sentence) ?? CLAIM_AT_START.exec(status);
  if (claim) {
    const text = claim.input;
    if (NEGATION.test(text.slice(0, claim.index + claim[0].length))) return undefined;
    const identifiers = identifiersIn(objectOf(text.slice(claim.index + claim[0].length)));
    if (identifiers.length === 0) return undefined;
    return { kind: 'claim', identifiers, files, modifiesFiles: false };
  }
  return undefined;
}

export function extractCommitments(conversation: readonly ConversationMessage[]): Commitment[] {
  const commitments: Commitment[] = [];
  for (const message of conversation) {
    for (const s of sentences(proseOf(message.message))) {
      const found = commitmentIn(s.text);
      if (found) commitments.push({ messageId: message.id, agent: message.from, quote: message.message.slice(s.start, s.start + s.text.length), ...found });
    }
  }
  return commitments;
}

const WITHDRAWAL = /\b(?:won't|will not|not going to|no longer|instead|decided (?:not|against)|dropp(?:ed|ing)|skip(?:ped|ping)?|revert(?:ed|ing)?|not (?:add|adding|implement|implementing|needed|touch|touching)|you(?:['’]ll| will| can| should)?\s+(?:add|handle|take|implement|own|do))\b/i;

/** A later sentence of the same agent that takes the commitment back for `name` (an identifier or a file). */
export function withdrawal(conversation: readonly ConversationMessage[], commitment: Commitment, name: string): string | undefined {
  const named = new RegExp(`(?<![\\w$])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w$])`);
  for (const message of conversation) {
    if (message.id <= commitment.messageId || message.from !== commitment.agent) continue;
    const hit = sentences(message.message).find((s) => named.test(s.text) && WITHDRAWAL.test(s.text) && !commitmentIn(s.text)?.identifiers.includes(name));
    if (hit) return hit.text;
  }
  return undefined;
}
