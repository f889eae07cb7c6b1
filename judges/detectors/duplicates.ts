// Near-duplicate messages (definitions.ts: near_duplicate, the C4b part of appendix F): an agent
// sends what it already sent, in nearly the same words. Messages are compared on their content:
// quoted text, resend prefixes ("Resending in case you missed it:"), greetings and filler words
// are set aside, words are reduced to a stem, and code, files and numbers are kept whole. A later
// message is a repeat when almost all of its content was already in one earlier message of the
// same sender. A plan followed by the report that it is done is not a repeat: it adds the news.
// The detector is sure of a repeat that adds no code name, file or number and keeps the tense, and
// of a message that holds an earlier one word for word or says it is sent again; a repeat in nearly
// the same words that names new code or lines is undecided. The rules are the entries of
// DUPLICATE_RULES.
import { asUndecided, type ConversationMessage, type JudgeLabel } from '../types.ts';
import { proseOf, quotePrefix, sentences } from '../text.ts';
import { messageSentences } from './language.ts';
import { reportedDoneAt, stanceOf } from './stance.ts';
import { FILE_PATH } from './mentions.ts';
import { firstMatch, type RuleTable } from './rules.ts';

/** Messages with fewer content words (a "thanks", an "ok, done") are never called repeats. */
const MIN_CONTENT = 3;
/** At most this share of the later message's content may be new. */
const MAX_NOVELTY = 0.2;
/** And it restates most of the earlier one: a short report is no near-duplicate of a long plan. */
const MAX_LEFT_OUT = 0.5;
/** A short line whose content all occurs in a long report is not a repeat of it. */
const MIN_SIZE_RATIO = 0.35;

/** A word-for-word repost is most of the later message (the rest a new prefix or sign-off). */
const MIN_VERBATIM_SHARE = 0.5;

/** Function words and filler: they carry no information a partner can act on. */
const FILLER = new Set(
  `a an the and or but so to of in on at by for with from into onto as is are was were be been being am it its it's this that these those
there here i i'm i've i'll i'd me my we we're we've we'll our us you you're your he she they them their just really basically actually simply quickly
again also now already still successfully fully completely totally definitely finally then very quite please thanks thank ok okay hi hello hey
note fyi update status quick all both some any have has had do does did done will would shall should can could may might must not no yes
sure well going about let know here's that's what's via per which who what when where how why if than too only even much more most
nothing else final summary recap set side end there's`.split(/\s+/),
);

/** Words that make a sentence a resend note rather than content ("In case my last message didn't arrive"). */
const META =
  /^(?:re|posting|posted|sending|resend|resending|re-sending|resent|repost|reposting|re-post|re-posting|reposted|buried|lost|drowned|got|it|case|repeat|repeating|again|missed|miss|case|reminder|remind|reminding|earlier|previous|previously|last|message|messages|msg|above|said|saying|mentioned|mention|before|once|told|arrive|arrived|didn't|did|not|see|saw|sure|make|making|get|got|in|my|the|a|you|your|it|i|as|just|this|that|here|is|again|ping|pinging|following|follow|up|bump|bumping|copy|same|scroll|scrolled|past)$/;

const CODE_TOKEN =
  /`[^`\n]+`|[A-Za-z0-9]*_[\w$]*[A-Za-z0-9][\w$]*|(?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z]{1,5}\b|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+|\w+\(\)|\d+(?:\s*[-–—]\s*\d+)?/g;

function stem(word: string): string {
  if (word.length <= 4) return word;
  return word.replace(/(?:ing|ed|es|s)$/, '') || word;
}

/** Words that say a message is sent again ("Re-posting in case it got buried", "(resend)", "bumping this"). */
const RESEND =
  /^(?:re|resend|resending|re-sending|resent|re-sent|repost|reposting|re-post|re-posting|reposted|re-posted|bump|bumping|reminder|again|buried|missed|scrolled)$/;

/** Sentences that are only a resend or reminder note. */
function isMetaSentence(text: string): boolean {
  const words = text.toLowerCase().match(/[\p{L}']+/gu) ?? [];
  return words.length > 0 && words.every((w) => META.test(w) || FILLER.has(w));
}

const saysResent = (text: string) => (text.toLowerCase().match(/[\p{L}'-]+/gu) ?? []).some((w) => RESEND.test(w));

/** A leading "Resending in case you missed it:", "Reminder —" or "Final status:" before the content, and whether it says the message is sent again. */
function withoutPrefix(text: string): { rest: string; resent: boolean } {
  let rest = text.trimStart();
  let resent = false;
  // Up to two: "Re-posting in case it got buried: Update: …", "[resent] Update: …".
  for (let i = 0; i < 2; i++) {
    const bracket = /^[[(]([^\])\n]{1,30})[\])]\s*/.exec(rest);
    if (bracket && isMetaSentence(bracket[1]!)) {
      resent ||= saysResent(bracket[1]!);
      rest = rest.slice(bracket[0].length);
      continue;
    }
    const prefix = /^([^:\n—–]{0,60})[:—–]\s+/.exec(rest);
    if (!prefix) break;
    const words = prefix[1]!.trim().split(/\s+/);
    const header = words.length <= 3 && !/[\d`_./]/.test(prefix[1]!);
    const meta = isMetaSentence(prefix[1]!);
    if (!header && !meta) break;
    resent ||= meta && saysResent(prefix[1]!);
    rest = rest.slice(prefix[0].length);
  }
  return { rest, resent };
}

export interface Content {
  tokens: Set<string>;
  /** The code names, files and numbers among the tokens. */
  code: Set<string>;
  /** The prose, lower case, whitespace collapsed (a word-for-word repost holds it whole). */
  words: string;
  /** The message says it is sent again: a resend note before it, or a sentence of its own. */
  resent: boolean;
  /** The message announces work to come, or reports work done (a plan then its completion is news). */
  future: boolean;
  past: boolean;
}

export function contentOf(text: string): Content {
  const unprefixed = withoutPrefix(proseOf(text).replace(/[’‘]/g, "'"));
  const all = sentences(unprefixed.rest).map((s) => s.text);
  const notes = all.filter(isMetaSentence);
  const prose = all.filter((s) => !isMetaSentence(s)).join(' ');
  const tokens = new Set<string>();
  const code = new Set<string>();
  const rest = prose
    .replace(CODE_TOKEN, (m) => {
      const token = m
        .replace(/`/g, '')
        .replace(/\s*[-–—]\s*/g, '-')
        .replace(/\(\)$/, '')
        .toLowerCase();
      tokens.add(token);
      code.add(token);
      return ' ';
    })
    .replace(FILE_PATH, ' ');
  for (const word of rest.toLowerCase().match(/[\p{L}][\p{L}'-]*/gu) ?? []) {
    if (!FILLER.has(word)) tokens.add(stem(word.replace(/'s$/, '')));
  }
  const lower = prose.toLowerCase();
  const analysed = messageSentences(prose);
  const stances = analysed.flatMap((s) => s.verbs.map((v) => stanceOf(s, v)));
  return {
    tokens,
    code,
    words: lower.replace(/\s+/g, ' ').trim(),
    resent: unprefixed.resent || notes.some(saysResent),
    future: stances.some((x) => x === 'will' || x === 'doing') || /\b(?:i'll|i will|we'll|we will|going to|plan to|about to|will)\b/.test(lower),
    past: stances.includes('did') || analysed.some((s) => reportedDoneAt(s) >= 0),
  };
}

/** Whether `later` is nearly `earlier`: big enough beside it, with little new and most of it restated. */
function similar({ later, earlier }: Pair): boolean {
  if (later.tokens.size < MIN_CONTENT || later.tokens.size < MIN_SIZE_RATIO * earlier.tokens.size) return false;
  let novel = 0;
  for (const t of later.tokens) if (!earlier.tokens.has(t)) novel++;
  let leftOut = 0;
  for (const t of earlier.tokens) if (!later.tokens.has(t)) leftOut++;
  return novel / later.tokens.size <= MAX_NOVELTY && leftOut / earlier.tokens.size <= MAX_LEFT_OUT;
}

/** Code the later message names that the earlier did not, as code or as a plain word ("in Schedule", then "in `Schedule`"). */
const newCode = ({ later, earlier }: Pair) => [...later.code].filter((t) => !earlier.code.has(t) && !earlier.tokens.has(stem(t)));

/** The later message reports as done what the earlier only stated: the status is news ("… ✅ done, 4 tests"). */
const reportsDone = ({ later, earlier }: Pair) => later.past && !earlier.past;

/** A later message and an earlier one of the same sender. */
export interface Pair {
  later: Content;
  earlier: Content;
}

type DuplicateKind = 'verbatim' | 'not-repeat' | 'doubt' | 'repeat';

/**
 * The near-duplicates' rules, on a pair of messages of one sender (examples: [earlier, later]). A
 * `verbatim` rule decides first; then the first of the others that matches.
 */
export const DUPLICATE_RULES: RuleTable<Pair, DuplicateKind, readonly [string, string]> = {
  label: 'near_duplicate',
  kinds: { verbatim: 'label', 'not-repeat': 'not-label', doubt: 'not-label', repeat: 'label' },
  read: ([earlier, later]) => [{ earlier: contentOf(earlier), later: contentOf(later) }],
  rules: [
    {
      id: 'verbatim-repost',
      kind: 'verbatim',
      why: 'the later message holds the earlier one word for word and is mostly made of it, whatever it puts before or after',
      examples: [
        [
          'Status: added the `env` parameter to `edit()` in editor.py and wired it through the CLI.',
          'Posting again, the channel was noisy: Status: added the `env` parameter to `edit()` in editor.py and wired it through the CLI.',
        ],
      ],
      nonExamples: [
        [
          'Added `env` to `edit()`.',
          'Added `env` to `edit()`. Next I wire it through the CLI, add tests for both modes, document the flag and update the changelog.',
        ],
        [
          'Mine: `count.go`, per-extension totals behind a new `--by-ext` flag.',
          'Mine: `count.go`, per-extension totals behind a new `--by-ext` flag. Done, 4 tests.',
        ],
      ],
      matches: (pair) =>
        pair.earlier.tokens.size >= MIN_CONTENT &&
        pair.earlier.words.length >= MIN_VERBATIM_SHARE * pair.later.words.length &&
        pair.later.words.includes(pair.earlier.words) &&
        !reportsDone(pair),
    },
    {
      id: 'resent',
      kind: 'verbatim',
      why: 'the later message says it is sent again ("(resend)", "bumping this in case it got buried") and restates the earlier one with no new code',
      examples: [
        [
          'Quick one: should `round_amount()` round half-up or half-even?',
          'Re-posting in case it scrolled past: should `round_amount()` round half-up or half-even?',
        ],
        ['What does a `*` field come back as in Schedule?', '(resend) What does a `*` field come back as in `Schedule`?'],
      ],
      nonExamples: [
        ['Should `round_amount()` round half-up or half-even?', 'Re-posting with the change: should `round_half()` round half-up or half-even?'],
        ["I'll add `parse_header()` to parser.py.", 'Resending: should `parse_header()` live in parser.py or in http.py, and who writes its tests?'],
      ],
      matches: (pair) => pair.later.resent && similar(pair) && newCode(pair).length === 0 && !reportsDone(pair),
    },
    {
      id: 'plan-then-report',
      kind: 'not-repeat',
      why: 'a plan, then the report that it is done, in the same words: the report is news',
      examples: [["I'll add `parse_header()` to src/http/parser.py at lines 40-58.", 'Added `parse_header()` to src/http/parser.py at lines 40-58.']],
      nonExamples: [
        ["I'll add `parse_header()` to src/http/parser.py at lines 40-58.", "I'll add `parse_header()` to src/http/parser.py at lines 40-58, as said."],
      ],
      matches: (pair) => similar(pair) && pair.earlier.future && !pair.earlier.past && pair.later.past && !pair.later.future,
    },
    {
      id: 'names-new-code',
      kind: 'doubt',
      why: 'the same template naming other code or other lines may be news in the same words',
      examples: [
        [
          'Status: added the `env` parameter to `edit()` in editor.py and wired it through the CLI.',
          'Status: added the `env` parameter to `view()` in editor.py and wired it through the CLI.',
        ],
      ],
      nonExamples: [
        [
          'Status: added the `env` parameter to `edit()` in editor.py and wired it through the CLI.',
          'Status again: added the `env` parameter to `edit()` in editor.py, wired it through the CLI.',
        ],
      ],
      matches: (pair) => similar(pair) && newCode(pair).length > 0,
    },
    {
      id: 'same-content',
      kind: 'repeat',
      why: 'almost all of the later message was in the earlier one, which it mostly restates, with no new code and the same tense',
      examples: [
        ["I'll add the `env` parameter to `edit()` and wire it through the CLI.", "I'll add the `env` parameter to `edit()`, then wire it through the CLI."],
      ],
      nonExamples: [
        ["I'll add the `env` parameter to `edit()` and wire it through the CLI.", "Tests for `edit()` fail on Windows; I'm looking into the path handling."],
      ],
      matches: similar,
    },
  ],
};

/** Whether `later` repeats `earlier`: 'sure', undecided (with why) or false. `messageId`: the later message, to count the rules' hits. */
export function repeats(later: Content, earlier: Content, messageId?: number): 'sure' | { undecided: string } | false {
  const pair = { later, earlier };
  const rule = firstMatch(DUPLICATE_RULES, ['verbatim'], pair, messageId) ?? firstMatch(DUPLICATE_RULES, ['not-repeat', 'doubt', 'repeat'], pair, messageId);
  if (!rule || rule.kind === 'not-repeat') return false;
  if (rule.id === 'names-new-code') return { undecided: `it names ${newCode(pair).slice(0, 3).join(', ')}, which the earlier message does not` };
  return rule.kind === 'doubt' ? { undecided: rule.why } : 'sure';
}

/** One label per message that repeats an earlier message of the same sender (undecided where the detector is not sure). */
export function nearDuplicates(conversation: readonly ConversationMessage[]): JudgeLabel[] {
  const contents = conversation.map((m) => contentOf(m.message));
  const labels: JudgeLabel[] = [];
  conversation.forEach((message, i) => {
    const verdicts = conversation.map((other, j) => (j < i && other.from === message.from ? repeats(contents[i]!, contents[j]!, message.id) : false));
    const sure = verdicts.indexOf('sure');
    const earlier = sure !== -1 ? sure : verdicts.findIndex((v) => v !== false);
    if (earlier === -1) return;
    const verdict = verdicts[earlier]!;
    const original = conversation[earlier]!;
    const label: JudgeLabel = {
      judge: 'detectors',
      label: 'near_duplicate',
      isPrimary: false,
      messageId: message.id,
      agent: message.from,
      description: `${message.from} repeats its message ${original.id} with little new information`,
      evidence: [
        { kind: 'quote', source: 'conversation', text: quotePrefix(original.message), messageId: original.id, agent: original.from },
        { kind: 'quote', source: 'conversation', text: quotePrefix(message.message), messageId: message.id, agent: message.from },
      ],
    };
    labels.push(verdict === 'sure' ? label : asUndecided(label, (verdict as { undecided: string }).undecided));
  });
  return labels;
}
