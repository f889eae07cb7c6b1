// Rules as data (rules.ts) for the commitment reader's word lists: sentences that commit the sender
// to nothing (an offer, a request to the partner) and sentences that take a commitment back. The
// reader (commitment-extract.ts) applies them; the targets themselves are read from the sentence's
// structure and stay code.
import { messageSentences, type Sentence } from './language.ts';
import type { RuleTable } from './rules.ts';

type ReadingKind = 'offer' | 'request' | 'withdrawal';

const WITHDRAWAL =
  /\b(?:won't|will not|not going to|no longer|instead|decided (?:not|against)|dropp(?:ed|ing)|skip(?:ped|ping)?|revert(?:ed|ing)?|scratch(?:ed|ing)?|forget|never ?mind|nix(?:ed|ing)?|cancel(?:l?ed|l?ing)?|abandon(?:ed|ing)?|no (?:need|point)|not (?:add|adding|implement|implementing|needed|touch|touching)|you(?:['’]ll| will| can| should)?\s+(?:add|handle|take|implement|own|do))\b/i;

export const READING_RULES: RuleTable<Sentence, ReadingKind> = {
  label: 'broken_checkable_commitment',
  kinds: { offer: 'not-label', request: 'not-label', withdrawal: 'not-label' },
  read: (example) => messageSentences(example),
  rules: [
    {
      id: 'offer',
      kind: 'offer',
      why: '"I can either pass it in … or leave its signature alone", "we could add …": an offer commits to nothing.',
      examples: ['I could add `retry()` to client.py.', 'We might export `slugify` from the index.'],
      nonExamples: ["I'll add `retry()` to client.py.", 'You could add `retry()` to client.py.'],
      matches: (sentence) =>
        sentence.terms.some((t, i) => /^(?:i|we)$/.test(t.normal) && /^(?:can|could|might|may)$/.test(sentence.terms[i + 1]?.normal ?? '')),
    },
    {
      id: 'request-to-leave',
      kind: 'request',
      why: '"Please don\'t change the signature of `render()`" asks the partner to leave code alone; it commits the sender to nothing.',
      examples: ["Please don't change the signature of `render()`.", 'Do not touch lines 10-20 of app.py.'],
      nonExamples: ["I won't change the signature of `render()`."],
      matches: (sentence) => /^\W*(?:please|pls|kindly|don't|do not)\b/i.test(sentence.text),
    },
    {
      id: 'taken-back',
      kind: 'withdrawal',
      why: 'A later sentence of the sender that drops, skips or hands over the named code takes the commitment back ("dropping `vintage_range`", "you can add `retry()`").',
      examples: ['Dropping `vintage_range`, not needed.', 'Never mind `retry()`: you can add it.', "I won't add `slugify` after all."],
      nonExamples: ['Added `vintage_range` to rack.py.', 'Done: `retry()` is in.'],
      matches: (sentence) => WITHDRAWAL.test(sentence.text),
    },
  ],
};
