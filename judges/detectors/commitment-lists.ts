// Checklist items that report code without a verb: "- ✓ `NewLimiter(rate)` in ratelimit/limiter.go",
// "- [x] `formatBytes` in src/bytes.ts", and the verbless clause after a leading label ("Plan: new
// `RetryPolicy` class in netkit/policy.py, and …"). The item's head is the code (a kind noun may
// follow it), then the file it is in, the type it is on ("method in `HttpClient`"), or only where it
// is ("interface (src/types.ts, lines 12-20)"); a list item states what the sender did or
// will do (commitment-extract.ts). A completion mark after code alone ("deleteJson ✓", "`a` + `b` ✅")
// reports that code done. A claim whose subject only counts ("All three are in: `reset()`, the
// remaining property and `DEFAULT_BURST`") is about the list after its colon.
import { codeOf, fileMasks, symbolsIn, type Target, untouchedRange } from './commitment-code.ts';
import { describingWords, meansFunctions } from './commitment-references.ts';
import { stateWord } from './commitment-subjects.ts';
import { COMPLETION_MARK, type Sentence, type Term } from './language.ts';
import { wordIs } from './commitment-word-classes.ts';

/** Where the listed code is: "in", "into" or "to" a file. */
const IN_FILE = /^(?:in|into|to|inside)$/;

/** The verbless words of a list item, or of the clause after a leading label ("Plan:"). */
function verblessItem(sentence: Sentence): Term[] | undefined {
  const terms = sentence.terms.filter((t) => t.text !== '' && !COMPLETION_MARK.test(t.text));
  if (sentence.listItem) return sentence.verbs.length === 0 ? terms : undefined;
  const label = terms[0];
  // "Yours: `read_string()` in src/lexer.rs" gives the partner code; it reports none of the sender's.
  if (!label || label.mask || !label.post.includes(':') || /^(?:you|your|yours|partner|agent\d*)$/.test(label.normal)) return undefined;
  const clause = terms.filter((t) => t.clause === terms[1]?.clause && t !== label);
  return clause.some((t) => t.tags.has('Verb')) ? undefined : clause;
}

export function listedCodeTargets(sentence: Sentence): Target[] {
  // "- `Warehouse.reserve(sku, qty)` – moves qty into a held bucket", "- `archiveColumn(name)`: moves …", "- `cardCount()`":
  // code alone heads the item (before a dash or colon, or all of it); the rest describes it.
  const lead = sentence.terms.filter((t) => t.text !== '' && t.clause === 0);
  const alone = lead.length === 1 && sentence.terms.filter((t) => t.text !== '').length === 1;
  if (sentence.listItem && !sentence.questionMark && lead.length === 1 && lead[0]!.mask?.kind === 'code' && (alone || /[—–:]|\s-\s/.test(lead[0]!.post))) {
    const names = codeOf(lead);
    return names.length ? [{ kind: 'exists', names, files: fileMasks(sentence) }] : [];
  }
  const item = sentence.questionMark ? undefined : verblessItem(sentence);
  if (!item) return [];
  const start = /^(?:new|a|an)$/.test(item[0]?.normal ?? '') ? 1 : 0;
  const head = item[start];
  const kindNoun = wordIs('definition-noun', item[start + 1]?.normal ?? '') ? 1 : 0;
  const rest = item.slice(start + 1 + kindNoun);
  if (head?.mask?.kind !== 'code') return [];
  const names = symbolsIn(head.mask.text);
  const [place, where] = rest;
  const placed = place && IN_FILE.test(place.normal) ? where?.mask : undefined;
  // "`retryWithBackoff()` method in `HttpClient`": a member of the type named.
  const owner = placed?.kind === 'code' ? /^[A-Z][\w$]*$/.exec(placed.text.trim())?.[0] : undefined;
  // "`RetryPolicy` interface (src/types.ts, lines 12-20)": only where it is follows.
  const located = (kindNoun > 0 || rest.length > 0) && rest.every((t) => t.mask?.kind === 'file' || t.mask?.kind === 'lines');
  if (!names.length || !(placed?.kind === 'file' || owner || located)) return [];
  const files = placed?.kind === 'file' ? [placed.text] : fileMasks(sentence);
  return [{ kind: 'exists', names: owner ? names.map((n) => `${owner}.${n}`) : names, files }];
}

/** A word or code span, and words or spans joined to it: what may stand before a completion mark. */
const CODE_HEAD = /^[\s*•-]*(?:`[^`]+`|[\w$.]+(?:\(\))?)(?:\s*(?:and|&|\+)\s*(?:`[^`]+`|[\w$.]+(?:\(\))?))*\s*$/;

/** "deleteJson ✓", "with_capacity ✓", "formatPercent ✓ exported ✓": code alone, then a completion mark. */
export function checkedCodeTargets(sentence: Sentence): Target[] {
  const mark = COMPLETION_MARK.exec(sentence.text)?.index;
  if (mark === undefined || sentence.questionMark || !CODE_HEAD.test(sentence.text.slice(0, mark))) return [];
  const terms = sentence.terms.filter((t) => t.text !== '');
  const end = terms.findIndex((t) => t.mask?.kind !== 'code' && !/^(?:and|&|\+)$/.test(t.normal));
  const head = terms.slice(0, end < 0 ? terms.length : end);
  // Every word before the mark is code ("Tests ✓" reports no code).
  const words = sentence.text
    .slice(0, mark)
    .split(/\s*(?:\band\b|&|\+)\s*/)
    .filter((w) => w.trim() !== '');
  const names = head.filter((t) => t.mask?.kind === 'code').length === words.length ? codeOf(head) : [];
  return names.length ? [{ kind: 'exists', names, files: [] }] : [];
}

/** Subject words that count what the claim is about without naming it: "all three", "both", "everything". */
const COUNTING = /^(?:all|both|everything|each|every|three|two|four|five)$/;

/** "All three are in", "all three done", "done with all three": counting words and a state that says the code is there, nothing else named. */
function countingClaim(claim: readonly Term[]): boolean {
  if (!claim.some((t) => COUNTING.test(t.normal)) || claim.some((t) => t.mask)) return false;
  const rest = claim.filter((t) => !COUNTING.test(t.normal) && !t.tags.has('Value') && !/^(?:with|of)$/.test(t.normal));
  return wordIs('present', stateWord(rest.map((t) => t.normal)) ?? '');
}

/**
 * "All three are in: `reset()`, the remaining property and `DEFAULT_BURST`", "All in: `RetryPolicy`,
 * the policy kwarg", "reset(), remaining and DEFAULT_BURST: all three done", "done with all three —
 * reset(), …": a claim that counts what it is about (a counting word and a state that says the code
 * is there) on one side of a colon or dash, the list on the other; each item is code named or
 * described. An item about an export ("the package export") says how code is reached, not which
 * code is there.
 */
export function countedListTargets(sentence: Sentence): Target[] {
  const terms = sentence.terms.filter((t) => t.text !== '');
  const split = terms.findIndex((t) => /[:—–]|\s-\s/.test(t.post));
  if (split < 0 || split === terms.length - 1 || sentence.questionMark) return [];
  const [before, after] = [terms.slice(0, split + 1), terms.slice(split + 1)];
  const list = countingClaim(before) ? after : countingClaim(after) ? before : undefined;
  if (!list) return [];
  const files = fileMasks(sentence);
  // The items: split at commas and at "and", "plus", "+".
  const items: Term[][] = [[]];
  list.forEach((t, i, list) => {
    if (i > 0 && /[,;]/.test(list[i - 1]!.post)) items.push([]);
    if (/^(?:and|plus|&|\+)$/.test(t.normal)) items.push([]);
    else items.at(-1)!.push(t);
  });
  const targets: Target[] = [];
  const named = codeOf(items.flat());
  if (named.length) targets.push({ kind: 'exists', names: named, files });
  for (const item of items.filter((i) => i.length && !i.some((t) => t.mask || wordIs('exported-word', t.normal)))) {
    // "reset(), remaining and DEFAULT_BURST": a one-word item among code names is a name, whatever the tagger read.
    const words = item.length === 1 && named.length ? [item[0]!.normal] : describingWords(item);
    if (words.length) targets.push({ kind: 'exists', names: [], files, refers: { to: 'described', words, functions: meansFunctions(item) } });
  }
  return targets;
}

/**
 * "- you: `Flush` (lines 31–44) — make it keep the buffer", "Yours: `read_string()`": an item of a split
 * labelled for the partner gives it those lines (else that code), which the sender leaves alone.
 */
export function partnerItemTargets(sentence: Sentence): Target[] {
  const terms = sentence.terms.filter((t) => t.text !== '');
  const label = terms[0];
  if (!label || label.mask || !/^(?:you|yours)$/.test(label.normal) || !label.post.includes(':') || sentence.questionMark) return [];
  const given = terms.filter((t) => t.clause === terms[1]?.clause);
  const files = fileMasks(sentence);
  const ranges = given.flatMap((t) => (t.mask?.kind === 'lines' ? [untouchedRange(t.mask, files)] : [])).filter((r): r is Target => r !== undefined);
  // As for "`Flush` / lines 31–44 is yours": the lines, where they are named, are what is given.
  const names = ranges.length ? [] : codeOf(given.filter((t) => t.mask?.kind === 'code'));
  return [...ranges, ...(names.length ? [{ kind: 'untouched_symbol' as const, names, files }] : [])];
}
