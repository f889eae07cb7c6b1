// Rules as data (rules.ts) for the frame of a sentence that introduces new code in a noun phrase ("a
// `tick()` method on `Batcher`", commitment-phrases.ts newCodeTargets): the sender's plan (a
// promise) or its report (a claim). A sentence in neither frame ("Your `a` helper would be nice")
// commits to no new code. commitment-extract.ts applies them where the sentence names new code.
import type { Commitment } from './commitment-code.ts';
import { ownWork } from './commitment-verbs.ts';
import { messageSentences, type Sentence } from './language.ts';
import type { RuleTable } from './rules.ts';
import { reportedDoneAt, stanceOf } from './stance.ts';

/** A sentence, with what the sentence introducing its list says of the list's items (list items only). */
export interface Framed {
  sentence: Sentence;
  item?: Commitment['kind'];
}

type FrameKind = 'plan' | 'report';

/** The sentence says what will be done (a future verb, or the sender's stance of will or doing), else what is. */
export const statedKind = (sentence: Sentence): Commitment['kind'] =>
  sentence.verbs.some((v) => v.tense === 'future' || /^(?:will|doing)$/.test(stanceOf(sentence, v))) ? 'promise' : 'claim';

/**
 * What the sentence before a list says of its items: a report of work done ("I've finished
 * implementing the feature:", "Done:") makes them claims; anything else, promises.
 */
export function listIntroduction(before: readonly Sentence[]): Commitment['kind'] {
  const intro = before.filter((x) => !x.listItem).at(-1);
  if (!intro || intro.questionMark) return 'promise';
  const reported = intro.verbs.some((v) => stanceOf(intro, v) === 'did') || (intro.verbs.length === 0 && reportedDoneAt(intro) >= 0);
  return reported && !intro.verbs.some((v) => v.tense === 'future') ? 'claim' : 'promise';
}

const PLAN_FRAME = /\b(?:(?:the|my|our)\s+)?(?:first|next)\s+step\s+is\b|\b(?:my|our)\s+(?:plan|part|side|change|approach)\s+(?:is|will be)\b/i;

export const FRAME_RULES: RuleTable<Framed, FrameKind> = {
  label: 'commitment',
  kinds: { plan: 'label', report: 'label' },
  read: (example) => messageSentences(example).map((sentence, i, all) => ({ sentence, ...(sentence.listItem && { item: listIntroduction(all.slice(0, i)) }) })),
  rules: [
    {
      id: 'promised',
      kind: 'plan',
      why: 'A sentence that says what will be done ("I\'ll add a `tick()` method", "I\'m handling X: a `deadline` argument on `run()`") promises the new code it names.',
      examples: ["I'll add a `tick()` method to `Batcher`.", "I'm adding a `close()` method on `Pool`."],
      nonExamples: ['There is a `tick()` method on `Batcher` now.'],
      matches: ({ sentence }) => statedKind(sentence) === 'promise',
    },
    {
      id: 'plan-frame',
      kind: 'plan',
      why: '"First step is a `MaxRetries int` field on Config", "my part is a `--dry-run` flag": the sender\'s plan, in the third person.',
      examples: ['First step is a `MaxRetries` field on `Config`.', 'My part is a `--dry-run` flag.'],
      nonExamples: ['Your part is a `--dry-run` flag.', 'The first test is a `parse()` call.'],
      matches: ({ sentence }) => PLAN_FRAME.test(sentence.text),
    },
    {
      id: 'planned-item',
      kind: 'plan',
      why: 'An item of a list that a plan introduces ("Plan:", "I\'ll do this:") is a promise.',
      examples: ["I'll do this:\n- a `tick()` method on `Batcher`"],
      nonExamples: ['Done:\n- a `tick()` method on `Batcher`'],
      matches: ({ item }) => item === 'promise',
    },
    {
      id: 'own-report',
      kind: 'report',
      why: '"Took X: a `Timer` class": the sender reports its own work, and the new code named is what it made.',
      examples: ['Took the timer: a `Timer` class in timer.py.'],
      nonExamples: ['You took the timer: a `Timer` class in timer.py.'],
      matches: ({ sentence }) => ownWork(sentence) === 'did',
    },
    {
      id: 'reported-item',
      kind: 'report',
      why: 'An item of a list that a report introduces ("Done:") claims the new code it names.',
      examples: ['Done:\n- a `tick()` method on `Batcher`'],
      nonExamples: ['A `tick()` method on `Batcher` would help.'],
      matches: ({ sentence }) => sentence.listItem,
    },
    {
      id: 'verbless-or-now',
      kind: 'report',
      why: '"New helper: `slugify()` in text.py", "There\'s now a `flush_all()` method": new code reported without a verb of the sender\'s. A sentence-initial "Now" marks discourse, not new code.',
      examples: ['New helper: `slugify()` in text.py.', "There's now a `flush_all()` method on `Batcher`."],
      nonExamples: ["Now I see there's a `legacy_parse` helper."],
      matches: ({ sentence }) => sentence.verbs.length === 0 || sentence.terms.some((t, i) => t.normal === 'now' && i > 0),
    },
  ],
};
