// When the detectors are not sure a promise is broken: then it is reported as undecided, not as a
// label (precision first). A broken promise is sure when its reading names a target the checks can
// find without guessing, and the code's evidence against it cannot be read another way. The
// doubts are the entries of DOUBT_RULES, one per broken target (a finding): a promise is undecided
// when every broken target of it is in doubt. The judge model's reading (llm/commitments.ts) goes
// through the same checks without these doubts.
import { basename } from 'node:path';
import type { JudgeInput } from '../types.ts';
import { lastName, PACKAGE } from './commitment-code.ts';
import type { Commitment, Target } from './commitment-extract.ts';
import type { Finding } from './commitment-evidence.ts';
import type { BrokenPromise } from './commitments.ts';
import { firstMatch, type RuleTable } from './rules.ts';

/** What the code shows, as the doubts read it: every name any patch or the merge writes, and the files they show. */
export interface CodeSeen {
  names: ReadonlySet<string>;
  paths: readonly string[];
}

export interface DoubtInput {
  commitment: Commitment;
  finding: Finding;
  code: CodeSeen;
}

/** An example of a rule, written short: the sentence, its target, what the check found missing, the facts it stated, the code. */
export interface DoubtExample {
  quote: string;
  target: Partial<Target> & { kind: Target['kind'] };
  missing: string;
  facts?: string[];
  /** Every patch's text (default: none). */
  code?: string;
}

const IDENTIFIER = /[A-Za-z_$][\w$]*/g;
const PATCH_PATH = /^(?:\+\+\+ b\/|--- a\/)(\S+)/gm;

/** The names and files of every patch and of the merged patch. */
export function codeSeen(input: Pick<JudgeInput, 'patches' | 'merge'>): CodeSeen {
  const text = [...input.patches.map((p) => p.patch), input.merge?.patch ?? ''].join('\n');
  return { names: new Set(text.match(IDENTIFIER) ?? []), paths: [...new Set([...text.matchAll(PATCH_PATH)].map((m) => m[1]!))] };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const facts = (f: Finding) => f.evidence.flatMap((e) => (e.kind === 'fact' ? [e.text] : []));
const isSymbolTarget = (t: Target) => t.kind === 'exists' || t.kind === 'exported';
const shows = (code: CodeSeen, file: string) => code.paths.some((p) => p === file || p.endsWith(`/${file}`));

type DoubtKind = 'doubt';

export const DOUBT_RULES: RuleTable<DoubtInput, DoubtKind, DoubtExample> = {
  label: 'broken_checkable_commitment',
  kinds: { doubt: 'not-label' },
  read: (example) => [
    {
      commitment: { messageId: 1, agent: 'agent1', quote: example.quote, kind: 'claim', target: { names: [], files: [], ...example.target } },
      finding: { missing: example.missing, evidence: (example.facts ?? []).map((text) => ({ kind: 'fact', text })) },
      code: codeSeen({ patches: [{ agent: 'agent1', patch: example.code ?? '' }] }),
    },
  ],
  rules: [
    {
      id: 'comparison',
      kind: 'doubt',
      why: '"exported from the index like `rgbToHsl`": a name after "like" or "same as" is the model to follow, not the code promised.',
      examples: [
        { quote: 'formatHex goes in src/color/hex.ts, exported like rgbToHsl.', target: { kind: 'exported', names: ['rgbToHsl'] }, missing: 'rgbToHsl' },
      ],
      nonExamples: [
        { quote: 'formatHex goes in src/color/hex.ts, exported like rgbToHsl.', target: { kind: 'exported', names: ['formatHex'] }, missing: 'formatHex' },
      ],
      matches: ({ commitment: c, finding: f }) =>
        new RegExp(`\\b(?:like|same as|as with|just as)\\s+(?:the\\s+)?\`?${escape(lastName(f.missing))}(?![\\w$])`, 'i').test(c.quote),
    },
    {
      id: 'defined-outside-hunks',
      kind: 'doubt',
      why: 'The code uses the name where no hunk shows its definition: it may be defined in lines the patches do not show.',
      examples: [
        {
          quote: 'Added `Pool.close()`.',
          target: { kind: 'exists', names: ['Pool.close'] },
          missing: 'Pool.close',
          facts: ["agent1's patch never defined `close`"],
        },
      ],
      nonExamples: [
        {
          quote: 'Added `Pool.close()`.',
          target: { kind: 'exists', names: ['Pool.close'] },
          missing: 'Pool.close',
          facts: ["agent1's patch never added `close`"],
        },
      ],
      matches: ({ commitment: c, finding: f }) => isSymbolTarget(c.target) && facts(f).some((t) => /'s patch never defined `/.test(t)),
    },
    {
      id: 'unseen-index-module',
      kind: 'doubt',
      why: 'A module that no patch shows may take a name the code defines through a whole-module re-export the checks cannot see (`export * from`, `pub use m::*`, `from .m import *`).',
      examples: [
        {
          quote: '`shiftCues` is exported from src/subs/index.ts.',
          target: { kind: 'exported', names: ['shiftCues'], module: 'src/subs/index.ts' },
          missing: 'shiftCues',
          code: '+++ b/src/subs/cues.ts\n+export function shiftCues() {}',
        },
        {
          quote: '`f_to_c` is re-exported from src/lib.rs.',
          target: { kind: 'exported', names: ['f_to_c'], module: 'src/lib.rs' },
          missing: 'f_to_c',
          code: '+++ b/src/convert.rs\n+pub fn f_to_c(f: f64) -> f64 {',
        },
      ],
      nonExamples: [
        {
          quote: '`shiftCues` is exported from src/subs/index.ts.',
          target: { kind: 'exported', names: ['shiftCues'], module: 'src/subs/index.ts' },
          missing: 'shiftCues',
          code: "+++ b/src/subs/index.ts\n+export { clamp } from './clamp';\n+++ b/src/subs/cues.ts\n+export function shiftCues() {}",
        },
        { quote: '`parse` is exported from pkg/__init__.py.', target: { kind: 'exported', names: ['parse'], module: 'pkg/__init__.py' }, missing: 'parse' },
      ],
      matches: ({ commitment: c, finding: f, code }) =>
        c.target.kind === 'exported' && !!c.target.module && !shows(code, c.target.module) && code.names.has(lastName(f.missing)),
    },
    {
      id: 'placement-without-function',
      kind: 'doubt',
      why: 'A place stated without the function it is in ("right after we take the lock") leaves the checks to guess which function is meant.',
      examples: [
        {
          quote: "I'll check `s.closed` right after we take the lock.",
          target: { kind: 'placement', guard: ['closed'], position: 'after' },
          missing: 'a check on closed',
        },
      ],
      nonExamples: [
        {
          quote: "I'll check `s.closed` first in `Set()`.",
          target: { kind: 'placement', guard: ['closed'], scope: 'Set', position: 'first' },
          missing: 'a check on closed',
          code: '+func (s *Store) Set() {',
        },
      ],
      matches: ({ commitment: c }) => c.target.kind === 'placement' && !c.target.scope && !c.target.definition,
    },
    {
      id: 'function-not-in-code',
      kind: 'doubt',
      why: 'The function the place names appears in no patch nor in the merge ("the constructor" read as `__init__` in TypeScript, a heading word read as a function): the reading, not the code, is in question.',
      examples: [
        {
          quote: 'validation is in the constructor.',
          target: { kind: 'placement', guard: ['timeout'], scope: '__init__' },
          missing: 'a check on timeout',
          code: '+  constructor(opts) {',
        },
      ],
      nonExamples: [
        {
          quote: "I'll validate `timeout` first in `connect()`.",
          target: { kind: 'placement', guard: ['timeout'], scope: 'connect' },
          missing: 'a check on timeout',
          code: ' def connect(self, timeout):',
        },
      ],
      matches: ({ commitment: c, code }) => c.target.kind === 'placement' && !!c.target.scope && !code.names.has(lastName(c.target.scope)),
    },
    {
      id: 'target-in-free-wording',
      kind: 'doubt',
      why: 'Whether a word names code, whose code it is and where a place is (exists, untouched_symbol, placement) are read from free wording, which word rules misread on wordings they were not written for: a judge model reads these (--judge-model).',
      examples: [
        { quote: 'Added `slugify` to text.py.', target: { kind: 'exists', names: ['slugify'], files: ['text.py'] }, missing: 'slugify' },
        { quote: "I won't touch `render()`.", target: { kind: 'untouched_symbol', names: ['render'] }, missing: 'render' },
        {
          quote: "I'll check `s.closed` first in `Set()`.",
          target: { kind: 'placement', guard: ['closed'], scope: 'Set', position: 'first' },
          missing: 'a check on closed',
        },
      ],
      nonExamples: [
        { quote: 'Lines 10-20 of app.py are yours.', target: { kind: 'untouched_lines', lines: [10, 20], files: ['app.py'] }, missing: 'lines 10-20' },
        { quote: '`parse` is exported from pkg/__init__.py.', target: { kind: 'exported', names: ['parse'], module: 'pkg/__init__.py' }, missing: 'parse' },
      ],
      matches: ({ commitment: c }) => c.target.kind === 'exists' || c.target.kind === 'untouched_symbol' || c.target.kind === 'placement',
    },
    {
      id: 'unexportable-go-name',
      kind: 'doubt',
      why: 'Go exports only names that start with a capital letter: a lowercase name read as a promised Go export is the name the code has now ("export it as `Parse` (it is `parse` today)"), not the promise.',
      examples: [
        {
          quote: "I'll export the parser as `Parse` (it's lowercase `parse` today).",
          target: { kind: 'exported', names: ['Parse', 'parse'], module: 'cron/cron.go' },
          missing: 'parse',
        },
      ],
      nonExamples: [
        {
          quote: "I'll export the parser as `Parse` (it's lowercase `parse` today).",
          target: { kind: 'exported', names: ['Parse', 'parse'], module: 'cron/cron.go' },
          missing: 'Parse',
        },
        { quote: 'I export `parse` from src/index.ts.', target: { kind: 'exported', names: ['parse'], module: 'src/index.ts' }, missing: 'parse' },
      ],
      matches: ({ commitment: c, finding: f }) => c.target.kind === 'exported' && /\.go$/.test(c.target.module ?? '') && /^[a-z_]/.test(lastName(f.missing)),
    },
    {
      id: 'export-without-its-module',
      kind: 'doubt',
      why: '"exported from the package", "importable from the top level": the module is guessed from the code\'s layout, not read from the message.',
      examples: [{ quote: '`parse` is now exported from the package.', target: { kind: 'exported', names: ['parse'], module: PACKAGE }, missing: 'parse' }],
      nonExamples: [
        { quote: '`parse` is exported from pkg/__init__.py.', target: { kind: 'exported', names: ['parse'], module: 'pkg/__init__.py' }, missing: 'parse' },
      ],
      matches: ({ commitment: c }) =>
        c.target.kind === 'exported' && !(c.target.module && c.target.module !== PACKAGE && c.quote.includes(basename(c.target.module))),
    },
  ],
};

/** Why the detectors are not sure this promise is broken, or undefined when they are (sure when one broken target is sure). */
export function readingDoubt(broken: BrokenPromise, code: CodeSeen): string | undefined {
  const inputs = broken.findings.map((finding) => ({ commitment: broken.commitment, finding, code }));
  if (!inputs.every((input) => firstMatch(DOUBT_RULES, ['doubt'], input))) return undefined;
  // Counted once per promise, on the rule that decided its first finding, and scored on the promise's target.
  return firstMatch(DOUBT_RULES, ['doubt'], inputs[0]!, { messageId: broken.commitment.messageId, target: broken.commitment.target })?.why;
}
