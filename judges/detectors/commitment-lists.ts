// Checklist items that report code without a verb: "- ✓ `NewLimiter(rate)` in ratelimit/limiter.go",
// "- [x] `formatBytes` in src/bytes.ts". The item's head is the code and a place phrase names the
// file it is in; a list item states what the sender did or will do (commitment-extract.ts).
import { symbolsIn, type Target } from './commitment-code.ts';
import type { Sentence } from './language.ts';

/** Where the listed code is: "in", "into" or "to" a file. */
const IN_FILE = /^(?:in|into|to|inside)$/;

export function listedCodeTargets(sentence: Sentence): Target[] {
  if (!sentence.listItem || sentence.verbs.length > 0 || sentence.questionMark) return [];
  const terms = sentence.terms.filter((t) => t.text !== '' && !/^[✓✔☑✅]$/u.test(t.text));
  const [head, place, file] = terms;
  if (head?.mask?.kind !== 'code' || !place || !IN_FILE.test(place.normal) || file?.mask?.kind !== 'file') return [];
  const names = symbolsIn(head.mask.text);
  return names.length ? [{ kind: 'exists', names, files: [file.mask.text] }] : [];
}
