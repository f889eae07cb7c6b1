// Rules as data (rules.ts) for a reply to the partner's request: whether it takes the request on
// ("Sure, will do", "Good call, I'll do that too") or turns it down ("No, …", "I'd rather not").
// commitment-requests.ts applies them; what was requested is read from the request's structure.
import { verbIs } from './commitment-verb-words.ts';
import { messageSentences, type Sentence } from './language.ts';
import type { RuleTable } from './rules.ts';
import { acceptsByPronoun } from './stance.ts';

/** A reply as the rules read it: its text and its sentences. */
export interface Reply {
  message: string;
  sentences: readonly Sentence[];
}

type ReplyKind = 'accept' | 'refuse';

const ACCEPTANCE =
  /^\W*(?:sure|ok|okay|k|will do|agreed|agree|sounds good|yes|yep|yeah|got it|deal|roger|on it|absolutely|of course|no problem|np|confirmed|perfect|great|understood|ack|works for me|fine by me|happy to|can do|noted|done|fair point|good point|good call|good catch|makes sense|alright|all right|👍)\b/i;

const REFUSAL = /\b(?:won't|will not|can't|cannot|instead|rather not|prefer not|not going to|disagree|decline)\b/i;

/** "`flush_every` won't change": a negated verb of changing code is a boundary the reply promises, not a refusal. */
const boundary = (s: Sentence) => s.verbs.some((v) => v.negative && verbIs('touch', v.lemma)) && !REFUSAL.test(s.text.replace(/\b(?:won't|will not)\b/gi, ''));

export const REPLY_RULES: RuleTable<Reply, ReplyKind> = {
  label: 'accepted_request',
  kinds: { accept: 'label', refuse: 'not-label' },
  read: (example) => [{ message: example, sentences: messageSentences(example) }],
  rules: [
    {
      id: 'agreement-word',
      kind: 'accept',
      why: 'A reply that opens with a word of agreement ("Sure", "Will do", "Good call") takes the request on.',
      examples: ['Sure, will do.', 'Good call — exporting it now.', 'Yep, on it.'],
      nonExamples: ['I added `retry()` to client.py.', 'Surely that belongs in utils.py?'],
      matches: ({ sentences }) => !!sentences[0] && ACCEPTANCE.test(sentences[0].text),
    },
    {
      id: 'do-that',
      kind: 'accept',
      why: '"I\'ll do that too", "I\'ll add it now": a reply that opens with a promise whose object is only a pronoun for what was asked.',
      examples: ["I'll do that too.", "I'll add it now."],
      nonExamples: ["I'll add `retry()` to client.py.", 'Will you do that?'],
      matches: ({ sentences }) => !!sentences[0] && acceptsByPronoun(sentences[0]),
    },
    {
      id: 'opens-with-no',
      kind: 'refuse',
      why: 'A reply that opens with "No" turns the request down, whatever follows.',
      examples: ["No, I'd keep it in utils.py.", 'No — sorry.'],
      nonExamples: ['Now adding it.', 'Sure, no problem.'],
      matches: ({ message }) => /^\W*no\b/i.test(message),
    },
    {
      id: 'refusal-word',
      kind: 'refuse',
      why: 'A refusal word in any sentence of the reply ("won\'t", "rather not", "instead") turns the request down; "`flush_every` won\'t change" is a boundary it promises.',
      examples: ["Sure, but I'd rather not export it.", "OK. I won't add `retry()`, the client retries already."],
      nonExamples: ["Sure, and `flush_every` won't change.", 'Sure, will do.'],
      matches: ({ sentences }) => sentences.some((s) => REFUSAL.test(s.text) && !boundary(s)),
    },
  ],
};
