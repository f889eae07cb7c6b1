// Checklist items that report code without a verb: "- ✓ `NewLimiter(rate)` in ratelimit/limiter.go",
// "- [x] `formatBytes` in src/bytes.ts". The item's head is the code and a place phrase names the
// file it is in; a list item states what the sender did or will do (commitment-extract.ts). A
// completion mark after code alone ("deleteJson ✓", "`a` + `b` ✅") reports that code done.
import { codeOf, symbolsIn, type Target } from './commitment-code.ts';
import type { Sentence } from './language.ts';

/** Where the listed code is: "in", "into" or "to" a file. */
const IN_FILE = /^(?:in|into|to|inside)$/;

const COMPLETION_MARK = /[✓✔☑✅]/u;

export function listedCodeTargets(sentence: Sentence): Target[] {
  if (!sentence.listItem || sentence.verbs.length > 0 || sentence.questionMark) return [];
  const terms = sentence.terms.filter((t) => t.text !== '' && !/^[✓✔☑✅]$/u.test(t.text));
  const [head, place, file] = terms;
  if (head?.mask?.kind !== 'code' || !place || !IN_FILE.test(place.normal) || file?.mask?.kind !== 'file') return [];
  const names = symbolsIn(head.mask.text);
  return names.length ? [{ kind: 'exists', names, files: [file.mask.text] }] : [];
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
