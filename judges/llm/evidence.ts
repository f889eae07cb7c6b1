// The evidence check: a quote an LLM judge returns counts only if it appears, whitespace-
// normalised, inside one item of the material the judge was shown. Labels whose quotes do not
// check out are dropped (and counted) by the judges.
import type { Material, MaterialItem } from './material.ts';
import type { Evidence, EvidenceSource } from '../types.ts';
import { normalizeWhitespace } from '../text.ts';

/** Shorter quotes ("ok", "the") prove nothing, unless they are a whole message. */
export const MIN_QUOTE_CHARS = 8;

export interface QuoteCheck {
  ok: boolean;
  /** Why the quote does not count. */
  problem?: string;
  /** The item the quote was found in. */
  item?: MaterialItem;
}

function foundIn(item: MaterialItem, quote: string): boolean {
  return item.segments.some((segment) => normalizeWhitespace(segment).includes(quote));
}

function isWholeMessage(item: MaterialItem, quote: string): boolean {
  return item.source === 'conversation' && item.segments.length === 1 && normalizeWhitespace(item.segments[0]!) === quote;
}

export function checkQuote(material: Material, rawQuote: string, where: { sources?: readonly EvidenceSource[]; messageId?: number } = {}): QuoteCheck {
  const quote = normalizeWhitespace(rawQuote);
  if (quote === '') return { ok: false, problem: 'empty quote' };
  const candidates = material.items.filter(
    (item) => (!where.sources || where.sources.includes(item.source)) && (where.messageId === undefined || item.messageId === where.messageId),
  );
  const item = candidates.find((c) => foundIn(c, quote));
  if (!item)
    return { ok: false, problem: `not found verbatim${where.messageId !== undefined ? ` in message ${where.messageId}` : ''}: "${quote.slice(0, 120)}"` };
  if (quote.length < MIN_QUOTE_CHARS && !isWholeMessage(item, quote)) return { ok: false, problem: `too short to be evidence: "${quote}"` };
  return { ok: true, item };
}

/** The stored form of a checked quote, pointing at where it was found. */
export function quoteEvidence(text: string, item: MaterialItem): Evidence {
  return {
    kind: 'quote',
    source: item.source,
    text: normalizeWhitespace(text),
    ...(item.messageId !== undefined && { messageId: item.messageId }),
    ...(item.agent !== undefined && { agent: item.agent }),
    ...(item.file !== undefined && { file: item.file }),
    ...(item.feature !== undefined && { feature: item.feature }),
  };
}
