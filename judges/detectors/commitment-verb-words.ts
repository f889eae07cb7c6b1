// Rules as data (rules.ts) for the commitment reader's verbs: the class of a verb's lemma says what
// kind of target its clause can name ("add" makes code, "export" makes it visible, "leave … alone"
// keeps it). The readers (commitment-verbs.ts, -boundaries.ts, -needs.ts, -only.ts, -places.ts)
// ask `verbIs`; the target itself is read from the clause's structure and stays code. Calibration
// counts, for each commitment a verb's clause reads, the class of that verb.
import { messageSentences } from './language.ts';
import { firstMatch, type RuleTable } from './rules.ts';

export type VerbClass = 'create' | 'export' | 'make' | 'call' | 'guard' | 'touch' | 'leave';

export const VERB_WORDS: RuleTable<string, VerbClass> = {
  label: 'commitment',
  kinds: { create: 'label', export: 'label', make: 'label', call: 'label', guard: 'label', touch: 'label', leave: 'label' },
  read: (example) => messageSentences(example).flatMap((s) => s.verbs.map((v) => v.lemma)),
  rules: [
    {
      id: 'create',
      kind: 'create',
      why: 'Verbs that make code that was not there: "add", "implement", "introduce", "wire", "ship". Not verbs that remove or only use code.',
      examples: ["I'll add `retry()` to client.py.", 'Implemented `slugify` in text.py.', "I'll wire `on_close` into the pool."],
      nonExamples: ["I'll remove `retry()` from client.py.", "I'll call `retry()` from `send()`."],
      matches: (lemma) =>
        /^(?:add|insert|create|implement|define|introduce|append|write|put|declare|register|place|build|include|wire|hook|extend|provide|push|ship|land|finish|complete)$/.test(
          lemma,
        ),
    },
    {
      id: 'export',
      kind: 'export',
      why: 'Verbs that make code visible from its module: "export", "re-export", "expose", "publish".',
      examples: ["I'll export `slugify` from the package.", 'I exposed `Pool` in __init__.py.'],
      nonExamples: ["I'll import `slugify` from the package."],
      matches: (lemma) => /^(?:export|re-export|reexport|expose|publish)$/.test(lemma),
    },
    {
      id: 'make',
      kind: 'make',
      why: 'Verbs that turn code into something ("make `X` public", "convert the loop into an exported `render()`"): with an export word they export.',
      examples: ["I'll make `parse` public.", "I'll convert the loop into a function."],
      nonExamples: ["I'll add `parse` to utils.py."],
      matches: (lemma) => /^(?:make|turn|convert|mark|change)$/.test(lemma),
    },
    {
      id: 'call',
      kind: 'call',
      why: 'Verbs that run code somewhere: "call `flush()` at the end of `close()`". Not verbs that name it ("call it `debounce`" is told apart by the clause).',
      examples: ["I'll call `flush()` at the end of `close()`.", "I'll invoke `validate()` first in `save()`."],
      nonExamples: ["I'll add `flush()` to the pool."],
      matches: (lemma) => /^(?:call|invoke|apply|run)$/.test(lemma),
    },
    {
      id: 'guard',
      kind: 'guard',
      why: 'Verbs whose object is what a guard tests: "check `self.closed` first in `get()`".',
      examples: ["I'll check `self.closed` first in `get()`.", "I'll validate `timeout` in `connect()`."],
      nonExamples: ["I'll read `self.closed` in `get()`."],
      matches: (lemma) => /^(?:check|test|validate|verify|guard|assert)$/.test(lemma),
    },
    {
      id: 'touch',
      kind: 'touch',
      why: 'Verbs that change existing code: negated ("I won\'t touch `close()`") they leave it alone; "only touching `route()`" limits the change.',
      examples: ["I won't touch `Session.close()`.", "I won't rename `timeout`."],
      nonExamples: ["I'll leave `Session.close()` alone."],
      matches: (lemma) =>
        /^(?:touch|edit|modify|change|alter|rewrite|refactor|move|rename|remove|delete|reformat|update|reorder|restructure|replace|overlap)$/.test(lemma),
    },
    {
      id: 'leave',
      kind: 'leave',
      why: 'Verbs that keep code as it is: "leave lines 40-53 alone", "keep the signature", "avoid `parse()`".',
      examples: ["I'll leave lines 40-53 alone.", "I'll keep the signature of `render()`."],
      nonExamples: ["I won't touch lines 40-53."],
      matches: (lemma) => /^(?:leave|keep|preserve|avoid)$/.test(lemma),
    },
  ],
};

/** Whether `lemma` is a verb of `kind`. */
export const verbIs = (kind: VerbClass, lemma: string): boolean => firstMatch(VERB_WORDS, [kind], lemma) !== undefined;
