// Rules as data (rules.ts) for the words the commitment reader's structural readers look for
// (commitment-verbs.ts, -phrases.ts, -subjects.ts, -place-words.ts, -participles.ts, -keywords.ts,
// -lists.ts, -restated.ts, -places.ts): each class of words is an entry with why it is there,
// sentences that hold such a word and sentences that hold none. A word decides nothing about a
// sentence alone (the reader's structure around it does), so the readers ask `wordIs` without
// counting hits; the generated rule test checks every class.
import { messageSentences } from './language.ts';
import { firstMatch, type RuleTable } from './rules.ts';

export type WordClass =
  | 'exported-word'
  | 'about-code'
  | 'used-list'
  | 'definition-noun'
  | 'parameter-kind'
  | 'member-kind'
  | 'introducing'
  | 'phrase-word'
  | 'calling'
  | 'called'
  | 'from-place'
  | 'sits'
  | 'unchanged'
  | 'present'
  | 'change-word'
  | 'state-verb'
  | 'first-word'
  | 'begin-verb'
  | 'everything'
  | 'loop-word'
  | 'subject-pronoun'
  | 'export-participle'
  | 'subordinator'
  | 'clause-opening';

export const WORD_CLASSES: RuleTable<string, WordClass> = {
  label: 'commitment',
  kinds: {
    'exported-word': 'label',
    'about-code': 'label',
    'used-list': 'label',
    'definition-noun': 'label',
    'parameter-kind': 'label',
    'member-kind': 'label',
    introducing: 'label',
    'phrase-word': 'label',
    calling: 'label',
    called: 'label',
    'from-place': 'label',
    sits: 'label',
    unchanged: 'label',
    present: 'label',
    'change-word': 'label',
    'state-verb': 'label',
    'first-word': 'label',
    'begin-verb': 'label',
    everything: 'label',
    'loop-word': 'label',
    'subject-pronoun': 'label',
    'export-participle': 'label',
    subordinator: 'label',
    'clause-opening': 'label',
  },
  read: (example) => messageSentences(example).flatMap((s) => s.terms.map((t) => t.normal)),
  rules: [
    {
      id: 'exported-word',
      kind: 'exported-word',
      why: 'Words that say a symbol is visible from its module: "`X` is exported", "importable from `pkg`", "make it public".',
      examples: ['`slugify` is exported from the package.', '`Pool` is importable from `pool`.'],
      nonExamples: ['`slugify` is in text.py.'],
      matches: (word) => /^(?:exports?|exported|re-exported|reexported|exposed|importable|public|pub)$/.test(word),
    },
    {
      id: 'about-code',
      kind: 'about-code',
      why: 'Words for what is written about code, not code itself: "tests for `parse_date`", "a docstring on `load()`" make no definition.',
      examples: ['I added tests for `parse_date`.', 'I wrote a docstring on `load()`.'],
      nonExamples: ['I added `parse_date` to dates.py.'],
      matches: (word) => /^(?:tests?|coverage|docs?|documentation|docstrings?|comments?|examples?|benchmarks?|hints?|changelog|readme)$/.test(word),
    },
    {
      id: 'used-list',
      kind: 'used-list',
      why: 'Lists of what code uses, which hold no definitions: "`Optional` to the imports".',
      examples: ['I added `Optional` to the imports.', 'I put `requests` in the requirements.'],
      nonExamples: ['I added `Optional` to types.py.'],
      matches: (word) => /^(?:imports?|requirements|dependencies|deps)$/.test(word),
    },
    {
      id: 'definition-noun',
      kind: 'definition-noun',
      why: 'Nouns that name a kind of definition: "a `tick()` method", "a new helper `parseIso()`".',
      examples: ['I will add a new `tick()` method.', 'a `select_columns()` helper'],
      nonExamples: ['I will add `tick()` to batcher.py.'],
      matches: (word) =>
        /^(?:helper|helpers|function|functions|func|fn|method|methods|class|struct|type|interface|enum|trait|field|fields|attribute|attr|property|constant|variable|parameter|param|argument|arg|kwarg|keyword|option|flag|setting|decorator|wrapper|constructor)$/.test(
          word,
        ),
    },
    {
      id: 'parameter-kind',
      kind: 'parameter-kind',
      why: 'Kind nouns of a parameter: "a `delimiter` parameter on `read_rows()`" is a parameter of that function.',
      examples: ['a `delimiter` parameter on `read_rows()`', 'a `--strict` flag'],
      nonExamples: ['a `tick()` method on `Batcher`'],
      matches: (word) => /^(?:parameter|param|argument|arg|kwarg|keyword|option|flag)$/.test(word),
    },
    {
      id: 'member-kind',
      kind: 'member-kind',
      why: 'Kind nouns of a member: "a `filters` field on `Prompt`" is a member of that class.',
      examples: ['a `filters` field on `Prompt`', 'a `close()` method on `Pool`'],
      nonExamples: ['a `delimiter` parameter on `read_rows()`'],
      matches: (word) => /^(?:field|fields|attribute|attr|property|method|methods)$/.test(word),
    },
    {
      id: 'introducing',
      kind: 'introducing',
      why: 'Determiners that introduce something not there before: one does not say "a `parse()`" of existing code.',
      examples: ['I will add a `tick()` method.', 'another `close()` helper'],
      nonExamples: ['The `tick()` method is done.'],
      matches: (word) => /^(?:a|an|new|another)$/.test(word),
    },
    {
      id: 'phrase-word',
      kind: 'phrase-word',
      why: 'Words inside a new-code noun phrase that say only what the new code is like: "a new exported `render()` helper".',
      examples: ['a new `render()` helper', 'a small private `_norm()` function'],
      nonExamples: ['The `render()` helper is done.'],
      matches: (word) =>
        /^(?:new|exported|public|private|optional|trailing|small|tiny|separate|dedicated|single|multi-line|module-level|top-level|static|internal|extra|additional)$/.test(
          word,
        ),
    },
    {
      id: 'calling',
      kind: 'calling',
      why: 'Words that call, apply or run code: "calling it from `parse_line()`", "`handle()` runs `use()`", "wiring it into `f()`".',
      examples: ['calling it from `parse_line()`', 'wiring it into `f()`'],
      nonExamples: ['I added `parse_line()` to lines.py.'],
      matches: (word) =>
        /^(?:call|calls|calling|called|invoke|invokes|invoking|invoked|apply|applies|applying|applied|wire|wires|wiring|wired|hook|hooks|hooking|hooked|plug|plugs|plugging|plugged)$/.test(
          word,
        ),
    },
    {
      id: 'called',
      kind: 'called',
      why: 'The passive of the calling words: "`X` is called from `f()`", "hooked up in `__init__`".',
      examples: ['`X` is called from `f()`.', '`X()` is wired into `f()`.'],
      nonExamples: ['I will call `X` from `f()`.'],
      matches: (word) => /^(?:called|invoked|wired|hooked|plugged)$/.test(word),
    },
    {
      id: 'from-place',
      kind: 'from-place',
      why: 'Words before the function a call or guard sits in: "called from `f()`", "inside `run()`".',
      examples: ['`X` is called from `f()`.', 'the guard sits inside `run()`'],
      nonExamples: ['I added `f()` to x.py.'],
      matches: (word) => /^(?:from|in|inside|within|into)$/.test(word),
    },
    {
      id: 'sits',
      kind: 'sits',
      why: 'Place verbs a guard\'s claim uses: "the guard `if l.disabled` sits in `Allow()`".',
      examples: ['The guard sits at the top of `Allow()`.', 'The check goes at the top of `Allow()`.'],
      nonExamples: ['I will add a guard to `Allow()`.'],
      matches: (word) => /^(?:sits|sit|is|lives|live|goes|go|runs|run|happens|happen|comes|come|stays)$/.test(word),
    },
    {
      id: 'unchanged',
      kind: 'unchanged',
      why: 'State words that say code is left as it was: "`X` is untouched", "`X` stays the same".',
      examples: ['`render()` stays untouched.', 'Its arguments are unchanged.'],
      nonExamples: ['`render()` is done.'],
      matches: (word) => /^(?:untouched|unchanged|intact|same|alone)$/.test(word),
    },
    {
      id: 'present',
      kind: 'present',
      why: 'State words that say code is there: "`X` is done", "`tick()` landed", "`X` is in".',
      examples: ['`render()` is done.', '`tick()` landed.'],
      nonExamples: ['I will write `render()` later.'],
      matches: (word) =>
        /^(?:done|in|landed|added|implemented|there|ready|merged|live|finished|complete|completed|defined|available|pushed|shipped|committed)$/.test(word),
    },
    {
      id: 'change-word',
      kind: 'change-word',
      why: 'Words of changing, negated to say code was left alone: "none of its existing arguments gets renamed".',
      examples: ['No argument was renamed.', 'Nothing changed.'],
      nonExamples: ['The arguments stay as they are.'],
      matches: (word) => /^(?:change|changes|changed|touched|edited|modified|removed|renamed|altered|reordered|dropped)$/.test(word),
    },
    {
      id: 'state-verb',
      kind: 'state-verb',
      why: 'Verbs that say what state a described subject is in: "the registry functions are exported", "the EXIF step is in".',
      examples: ['The registry functions are exported.', 'The EXIF step landed.'],
      nonExamples: ['I will add the registry functions.'],
      matches: (word) => /^(?:is|are|was|were|'s|has|have|stays?|stayed|remains?|remained|goes|go|went|lands?|landed|looks?)$/.test(word),
    },
    {
      id: 'first-word',
      kind: 'first-word',
      why: 'Words for the first statement of a function: "the first statement", "at the top", "its beginning".',
      examples: ['The check goes first in `get()`.', 'at the top of `get()`'],
      nonExamples: ['The check goes last in `get()`.'],
      matches: (word) => /^(?:first|top|start|beginning|first-thing|earliest)$/.test(word),
    },
    {
      id: 'begin-verb',
      kind: 'begin-verb',
      why: 'Verbs of starting, before "with": "`get()` begins with the bypass check" puts it first.',
      examples: ['`get()` begins with the bypass check.', '`run()` starts with a guard.'],
      nonExamples: ['`get()` ends with the bypass check.'],
      matches: (word) => /^(?:begin|begins|began|start|starts|started|open|opens|opened)$/.test(word),
    },
    {
      id: 'everything',
      kind: 'everything',
      why: 'What nothing comes before: "before anything else", "ahead of everything" is first.',
      examples: ['The check runs before anything else.', 'ahead of everything'],
      nonExamples: ['The check runs before the lookup.'],
      matches: (word) => /^(?:anything|everything|all)$/.test(word),
    },
    {
      id: 'loop-word',
      kind: 'loop-word',
      why: 'Words for a loop of the function: "inside the `for` loop", "on every iteration", "each pass".',
      examples: ['inside the `for` loop', 'on every iteration'],
      nonExamples: ['inside `run()`'],
      matches: (word) => /^(?:loop|loops|iteration|iterations|pass)$/.test(word),
    },
    {
      id: 'subject-pronoun',
      kind: 'subject-pronoun',
      why: 'Subject pronouns that open a clause after "before" or "after": "before it writes" names the anchor by its verb.',
      examples: ['before it writes', 'after we flush'],
      nonExamples: ['before the write'],
      matches: (word) => /^(?:it|we|i|you|they|he|she|this|that)$/.test(word),
    },
    {
      id: 'export-participle',
      kind: 'export-participle',
      why: 'Export participles that open a clause with no subject: "`formatPercent` in src/percent.ts, also exported from the index".',
      examples: ['`slugify`, exported from the package.', '`Pool`, exposed in __init__.py.'],
      nonExamples: ['`slugify` is in text.py.'],
      matches: (word) => /^(?:exported|re-exported|reexported|exposed)$/.test(word),
    },
    {
      id: 'subordinator',
      kind: 'subordinator',
      why: 'Words that open a subordinate clause: a verb after them ("as you named it", "so your CLI can call them") tells, it does not ask.',
      examples: ['Both are exported so your CLI can call them.', 'I named it as you asked.'],
      nonExamples: ['Please export `slugify` from the package.'],
      matches: (word) => /^(?:as|since|because|so|when|while|once|that|which|like|where|until|whenever|unless)$/.test(word),
    },
    {
      id: 'clause-opening',
      kind: 'clause-opening',
      why: 'Words a clause may open with before its subject: "and `Batcher(sink, config=...)` works" still has the code as its subject.',
      examples: ['And `Batcher(config=...)` works.', 'Now `Editor(env=...)` is passed through.'],
      nonExamples: ['`Batcher(config=...)` works.'],
      matches: (word) => /^(?:and|but|so|now|also|then|both)$/.test(word),
    },
  ],
};

/** Whether `word` is of the class `kind`. */
export const wordIs = (kind: WordClass, word: string): boolean => firstMatch(WORD_CLASSES, [kind], word) !== undefined;
