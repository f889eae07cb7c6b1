// First-turn planning (definitions.ts: first_turn_plan; paper section 5: a plan in the very first
// message nearly halves the conflict rate). A sentence is a plan when one of its verbs is the
// sender's own work to come or under way (language.ts: stance will or doing: "Unless you object,
// I'll put…", "I'm planning to…", "Taking parser.py L40-60", "Proposed split: I take lines 1-60")
// on code the sentence names (a file, a line range, a symbol); a "## Plan" heading over a list is
// one too, and so is taking ownership ("`max_length` is mine", "I'm on footnotes in render.ts"),
// putting work somewhere ("Retries go into `request()`"), naming the sender as the source of a
// change ("`Config` gets a `Retries` field from me", "`formatBytes` from me") and a list of who does
// what. Offers ("I can add it if you want"), questions and intentions that name no code ("Starting
// on the timeout feature") are not plans.
// The detector is sure of a plan in a message that does not offer it ("if that's useful, just say
// the word"); such a message, and a first message that names code under a heading or in a list
// without a plan verb ("Scope for feature 2: …"), leave the label undecided. The rules are the
// entries of PLAN_RULES.
import { asUndecided, type ConversationMessage, type JudgeLabel } from '../types.ts';
import { proseOf } from '../text.ts';
import { messageSentences, type Sentence, type VerbPhrase } from './language.ts';
import { stanceOf } from './stance.ts';
import { firstMatch, sentencesAt, type RuleTable, type SentenceAt } from './rules.ts';

/** Verbs of talking, looking, waiting and wanting: "I'll wait for your reply", "I'll check the file" plan no code. */
const NOT_WORK =
  /^(?:wait|reply|respond|answer|ask|look|read|review|investigate|explore|inspect|see|think|confirm|know|hear|ping|tell|say|get|be|have|coordinate|sync|check|notify|inform|message|send|let|hope|need|want|like|appreciate|thank|agree|understand|follow|note|mention|share|verify|test|run|try|go|come|finish|stop|pause|begin|start)$/;
/**
 * Taking ownership of named code: "`max_length` is mine", "I'm on footnotes in render.ts", "My part: …",
 * "I'm in `place()`, lines 21 to 34", "first step is a `MaxRetries int` field".
 */
const OWNERSHIP =
  /\b(?:is|are)\s+mine\b|\bmine\s*[:(,]|\bi(?:'m| am) on\b|\bi(?:'m| am) in\s+(?:`|[\w./-]+\.\w{1,5}\b|\w+\(\))|\bi(?:'ve| have)? got\b|\bmy (?:part|side|piece|share|scope|half|task)s?\b|\b(?:i|we)(?:'ll| will)? take\b|\b(?:first|next) step is\b/i;
/** Verbs that put work somewhere: "Retries go into `request()`", "`strict` lives in parser.py". */
const PLACE_VERB = /^(?:go|live|sit|land|belong|stay|end)$/;
/** Headings that introduce a plan: "## Plan", "Proposed split:", "My plan:", "Division of work:". */
const PLAN_HEADING =
  /^\s*(?:#{1,6}\s*)?(?:\*\*|__)?[^\n:?]{0,40}\b(?:plan|proposal|split|division of (?:work|labou?r)|ownership|assignments?|who does what)\b[^\n:?]{0,80}(?:\*\*|__)?\s*(?::\s*(\S[^\n]*)?)?$/im;
/** Lines of a list or a table after a heading. */
const LIST_ITEM = /^\s*(?:[-*+•|]|\d+[.)])\s*\S/m;

function namesCode(sentence: Sentence, verb: VerbPhrase): boolean {
  return sentence.terms.some((t, i) => i > verb.index && t.clause === verb.clause && t.mask !== undefined);
}

/** "from me", "by us" right after the term at `i`: the sender is where the change comes from. */
const bySenderAt = (terms: Sentence['terms'], i: number) => /^(?:from|by)$/.test(terms[i]?.normal ?? '') && /^(?:me|us)$/.test(terms[i + 1]?.normal ?? '');

/** "`Queue.drain()` is getting a `limit` argument from me": the clause's change comes from the sender, whoever its subject is. */
function senderIsSource(sentence: Sentence, verb: VerbPhrase): boolean {
  return verb.tense !== 'past' && !verb.negative && sentence.terms.some((t, i) => i > verb.index && t.clause === verb.clause && bySenderAt(sentence.terms, i));
}

/** "`formatBytes` from me — new file src/bytes.ts": a clause of code and its source, with no verb, assigns the code to the sender. */
function assignsCodeToSender(sentence: Sentence): boolean {
  return sentence.terms.some(
    (t, i) => t.mask !== undefined && bySenderAt(sentence.terms, i + 1) && !sentence.verbs.some((v) => v.clause === t.clause && v.index < i),
  );
}

/**
 * Code changed in the passive, the change to come: "`pad()` will be called in `finish()`", "`await
 * task()` gets wrapped in try/finally", "There'll be a `MAX_TOASTS` constant", "`Walker` gets a
 * `maxDepth` option". With no agent named,
 * the change a first message announces is its sender's; one said to be the partner's is not.
 */
function passiveChangeToCome(sentence: Sentence, verb: VerbPhrase): boolean {
  if (verb.negative || verb.subject !== 'other') return false;
  const terms = sentence.terms;
  const getPassive = verb.lemma === 'get' && /^gets?$/.test(terms[verb.index - 1]?.normal ?? '') && terms[verb.index]?.tags.has('PastTense') === true;
  const futurePassive = verb.tense === 'future' && /\bbe$/.test(verb.auxiliary);
  const thereWillBe = verb.lemma === 'be' && verb.tense === 'future' && terms[verb.start - 1]?.normal === 'there';
  const clause = terms.filter((t) => t.clause === verb.clause);
  // "`Station.__init__` gets a `smoothing` kwarg": code that gets new code, the change to come.
  const getsCode =
    verb.lemma === 'get' &&
    verb.tense === 'present' &&
    clause.find((t) => t.text !== '')?.mask?.kind === 'code' &&
    terms.slice(verb.index + 1).some((t) => t.clause === verb.clause && t.mask?.kind === 'code');
  return (
    (getPassive || futurePassive || thereWillBe || getsCode) && clause.some((t) => t.mask !== undefined) && !clause.some((t) => /^(?:you|your)$/.test(t.normal))
  );
}

/** "The PDF exporter I'm writing calls it": a first-person clause right after a noun phrase describes the noun. */
function describesNoun(sentence: Sentence, verb: VerbPhrase): boolean {
  const terms = sentence.terms;
  const subject = terms[verb.start - 1];
  const noun = terms[verb.start - 2];
  return (
    verb.subject === 'first' &&
    /^(?:i|we)$/.test(subject?.normal ?? '') &&
    noun?.tags.has('Noun') === true &&
    !noun.tags.has('Pronoun') &&
    noun.post.trim() === '' &&
    terms.slice(0, verb.start - 2).some((t) => t.clause === verb.clause && t.tags.has('Determiner'))
  );
}

/** "I'm in upload/handler.go adding sniffing": a gerund after the sender says where it is, in the same clause. */
function doingAfterPlace(sentence: Sentence, verb: VerbPhrase): boolean {
  const at = sentence.verbs.indexOf(verb);
  const before = sentence.verbs[at - 1];
  return (
    sentence.terms[verb.index]?.tags.has('Gerund') === true &&
    before?.lemma === 'be' &&
    before.subject === 'first' &&
    before.tense === 'present' &&
    before.clause === verb.clause &&
    sentence.terms[before.index + 1]?.tags.has('Preposition') === true
  );
}

function planStance(sentence: Sentence, verb: VerbPhrase) {
  if (describesNoun(sentence, verb)) return 'none';
  return doingAfterPlace(sentence, verb) ? 'doing' : stanceOf(sentence, verb);
}

/**
 * Which reading of a verb says the sender will do work on code: a change to come in the passive, a
 * verb that puts work somewhere, the sender named as the source of a change, or a verb of the
 * sender's own work to come or under way (not one of talking, looking or waiting).
 */
function verbReading(sentence: Sentence, verb: VerbPhrase): 'passive' | 'place' | 'source' | 'work' | undefined {
  if (passiveChangeToCome(sentence, verb)) return 'passive';
  if (PLACE_VERB.test(verb.lemma) && verb.tense !== 'past' && !verb.negative) return 'place';
  // The subject receives what the sender does: "gets" is the change, not a verb of fetching.
  if (senderIsSource(sentence, verb)) return 'source';
  const stance = planStance(sentence, verb);
  if (stance !== 'will' && stance !== 'doing') return undefined;
  if (NOT_WORK.test(verb.lemma) || (verb.lemma === 'update' && sentence.terms[verb.index + 1]?.normal === 'you')) return undefined;
  return 'work';
}

const verbsRead = (sentence: Sentence, reading: ReturnType<typeof verbReading>) => sentence.verbs.filter((v) => verbReading(sentence, v) === reading);

/** "new exported func `ParseSize`", "a cached table": a participle between a determiner or adjective and its noun describes the noun; it reports nothing done. */
function isAttributive(sentence: Sentence, verb: VerbPhrase): boolean {
  const before = sentence.terms[verb.index - 1];
  const after = sentence.terms[verb.index + 1];
  return (
    verb.auxiliary === '' &&
    (before?.tags.has('Determiner') || before?.tags.has('Adjective')) === true &&
    (after?.tags.has('Noun') || after?.mask !== undefined) === true
  );
}

/** List items that assign named code ("- size.go: new exported func `ParseSize`"), not a report of work done. */
function isAssignmentList(sentences: readonly Sentence[]): boolean {
  const items = sentences.filter(
    (s) => /^\s*(?:[-*+•|]|\d+[.)])/.test(s.text) && /^\s*(?:[-*+•|]|\d+[.)])\s*(?:\S+\s*){0,3}[:|]/.test(s.text) && s.masks.length > 0,
  );
  const reports = items.filter((s) => s.verbs.some((v) => v.tense === 'past' && !isAttributive(s, v)));
  return items.length > 0 && reports.length * 2 < items.length;
}

/** An offer or a condition on the work: "if that's useful", "just say the word", "happy to … if". */
const OFFER =
  /\bif (?:that(?:'s| is| would be| works)|it(?:'d| would) be)\s+(?:useful|helpful|ok|okay|fine|welcome|wanted|easier|better)\b|\bif you(?:'d)? (?:want|like|prefer)\b|\bjust say the word\b|\bhappy to\b[^.!?\n]{0,40}\bif\b|\b(?:i|we) (?:could|can|might) (?:also )?(?:add|take|do|handle|write|put|make|own|cover)\b/i;
/** A heading or a list over named code with no plan verb: "Scope for feature 2: …", "My footprint: …". */
const CODE_HEADING = /^[ \t]*(?:[-*+•|]|\d+[.)]|#{1,6})?[ \t]*([^\n:?]{1,40}):[ \t]*\S[^\n]*$/m;
/** Headings of a report, a question or a request: no plan. */
const NOT_PLAN_HEADING = /\b(?:done|fixed|added|finished|status|update|q|question|request|ask|note|fyi|re)\b/i;

/** A plan heading with its content on the same line ("Split: agent1 does …") or a list or table below it. */
function planHeading(text: string): string | undefined {
  const prose = proseOf(text);
  const heading = PLAN_HEADING.exec(prose);
  if (heading && (heading[1] ? messageSentences(heading[1]).some((s) => s.masks.length > 0) : LIST_ITEM.test(prose.slice(heading.index + heading[0].length)))) {
    return text.slice(heading.index, heading.index + heading[0].length).trim();
  }
  return undefined;
}

/** A heading over named code, in a message that neither reports, asks nor has a plan verb. */
function codeHeading(at: PlanAt): string | undefined {
  const heading = CODE_HEADING.exec(proseOf(at.text));
  const reports = at.sentences.some((s) => s.verbs.some((v) => v.tense === 'past'));
  const names = at.sentences.some((s) => s.masks.length > 0) && !at.sentences.some((s) => s.questionMark);
  return heading && !NOT_PLAN_HEADING.test(heading[1]!) && !reports && names ? heading[0].trim() : undefined;
}

const plain = (text: string) => text.replace(/[’‘]/g, "'");

/** A sentence of the first message; `quote`: the plan found in it (the doubts read it). */
export interface PlanAt extends SentenceAt {
  quote: string;
}

/** A statement: a question proposes nothing yet. */
const statement = (at: PlanAt) => !at.sentence.questionMark;

type PlanKind = 'plan' | 'plan-context' | 'plan-layout' | 'doubt' | 'code-heading';

/** The first-turn plan's rules. A sentence is tried against the `plan` rules, then (none matching) the `plan-context` ones; then the message's layout. */
export const PLAN_RULES: RuleTable<PlanAt, PlanKind> = {
  label: 'first_turn_plan',
  kinds: { plan: 'label', 'plan-context': 'label', 'plan-layout': 'label', doubt: 'not-label', 'code-heading': 'label' },
  read: (text) => sentencesAt(text).map((at) => ({ ...at, quote: at.sentence.text })),
  rules: [
    {
      id: 'ownership',
      kind: 'plan',
      why: 'taking named code as one\'s own ("is mine", "I\'m on", "my part") assigns it',
      examples: ['`max_length` for `slugify()` is mine (slugkit/slug.py).', "I'm in `place()`, lines 21 to 34 of src/atlas.rs."],
      nonExamples: ['`max_length` was mine to review.', 'The mine module in `game.py` is untouched.'],
      matches: (at) => statement(at) && at.sentence.masks.length > 0 && OWNERSHIP.test(plain(at.sentence.text)),
    },
    {
      id: 'code-from-sender',
      kind: 'plan',
      why: 'code followed by "from me" with no verb names the sender as its source',
      examples: ['formatBytes from me — new file src/bytes.ts, exported through the package entry point.'],
      nonExamples: ['I got `formatBytes` from you yesterday.'],
      matches: (at) => statement(at) && assignsCodeToSender(at.sentence),
    },
    {
      id: 'code-arrow',
      kind: 'plan',
      why: 'code mapped by an arrow to the place it goes ("`humanize()` → src/humanize.ts")',
      examples: ['`humanize()` → src/humanize.ts'],
      nonExamples: ['The arrow -> in the docs is fine.', 'Does `humanize()` → src/humanize.ts work for you?'],
      matches: (at) => statement(at) && /[`\w)]\s*(?:→|->|=>)\s*\S/.test(at.sentence.text) && at.sentence.masks.length > 1,
    },
    {
      id: 'passive-change',
      kind: 'plan',
      why: 'a change to come in the passive with no agent named is the sender\'s ("`pad()` will be called in `finish()`"); one said to be the partner\'s is not',
      examples: [
        'Padding: `pad_to_block()` will be called in `finish()` right before the bytes are encoded.',
        "Capping the queue. There'll be a `MAX_TOASTS` constant exported from src/toast.js.",
        '- `Station.__init__` gets a `smoothing` kwarg (window size, default 1)',
      ],
      nonExamples: ['`pad_to_block()` will be called in `finish()` by you.', 'Your `await task()` will be wrapped in try/finally.'],
      matches: (at) => statement(at) && verbsRead(at.sentence, 'passive').length > 0,
    },
    {
      id: 'place-verb',
      kind: 'plan',
      why: 'a verb that puts work somewhere ("go into", "lives in") on named code',
      examples: ['Retries with exponential backoff go into `request()` in src/client.ts.'],
      nonExamples: ['Retries went into `request()` last week.', 'Let us go.'],
      matches: (at) => statement(at) && at.sentence.masks.length > 0 && verbsRead(at.sentence, 'place').length > 0,
    },
    {
      id: 'sender-source',
      kind: 'plan',
      why: 'a change to come "from me" on named code, whatever the subject',
      examples: ['`Config` will get a `Retries int` field from me.', 'The cache in store.py is getting a `limit` argument from me.'],
      nonExamples: ['`Config` got a `Retries` field from me yesterday.'],
      matches: (at) =>
        statement(at) &&
        verbsRead(at.sentence, 'source').some(
          (v) => namesCode(at.sentence, v) || at.sentence.terms.slice(0, v.index).some((t) => t.clause === v.clause && t.mask !== undefined),
        ),
    },
    {
      id: 'own-work',
      kind: 'plan',
      why: 'a verb of the sender\'s work to come or under way, in a sentence that names code (a boundary "I will NOT edit lines 68–84" included)',
      examples: [
        "Unless you object, I'll put the cache in parser.py.",
        "I'm planning to add the tokenizer to parser.py after line 40.",
        'Taking parser.py L40-60.',
        'I will NOT edit lines 68–84.',
      ],
      nonExamples: [
        'Hello! Starting on the timeout feature now.',
        "I'll wait for your reply about parser.py.",
        'Will you add the helper to utils.py?',
        "The PDF exporter I'm writing calls it as `format_total(amount)`.",
      ],
      matches: (at) => statement(at) && verbsRead(at.sentence, 'work').some((v) => namesCode(at.sentence, v) || (!v.negative && at.sentence.masks.length > 0)),
    },
    {
      id: 'own-work-code-elsewhere',
      kind: 'plan-context',
      why: "the sender's work in one sentence and the code in another, in a message that asks nothing (an answer could change the plan)",
      examples: ["About `Server.handle()` in src/server.ts. I'll make the auth check its first statement."],
      nonExamples: ["Which part of store/cart.py are you going to edit? I'd like to avoid the same lines.", "I'll make the auth check its first statement."],
      matches: (at) =>
        statement(at) &&
        at.sentences.some((s) => s.masks.length > 0) &&
        !at.sentences.some((s) => s.questionMark) &&
        verbsRead(at.sentence, 'work').some((v) => namesCode(at.sentence, v) || !v.negative),
    },
    {
      id: 'plan-heading',
      kind: 'plan-layout',
      why: 'a heading that introduces a plan ("## Plan", "Proposed split:") over a list, or with named code on its line',
      examples: ['## Plan\n- parser.py: tokenizer\n- lexer.py: keywords', 'Proposed split: agent1 does `parse()`, agent2 does `lex()`.'],
      nonExamples: ['## Plan\nNothing yet.', 'The plan: none so far.'],
      matches: (at) => planHeading(at.text) !== undefined,
    },
    {
      id: 'assignment-list',
      kind: 'plan-layout',
      why: 'list items that assign named code ("- size.go: new exported func `ParseSize`"); a list of work done is a report',
      examples: ['- size.go: new exported func `ParseSize(s string) (int64, error)` after `FormatSize`\n- decimal units only\n- `FormatSize` untouched'],
      nonExamples: ['- size.go: exported `ParseSize`\n- api.go: added `FormatSizeIEC`'],
      matches: (at) => isAssignmentList(at.sentences),
    },
    {
      id: 'offer',
      kind: 'doubt',
      why: 'the plan is an offer or a condition ("if that\'s useful", "just say the word", "I could add")',
      examples: ['I could add `retry()` to client.py, if that would be useful.', '`retry()` goes into client.py if you want it. Just say the word.'],
      nonExamples: ["I'll add `retry()` to client.py, lines 40-60."],
      matches: (at) => OFFER.test(plain(at.quote)) || /\bjust say the word\b/i.test(plain(proseOf(at.text))),
    },
    {
      id: 'code-heading',
      kind: 'code-heading',
      why: 'named code under a heading with no verb of the sender\'s work ("Scope for feature 2: …") may be a plan or a description',
      examples: ['Scope for feature 2: `max_retries` on `Client` in client.py, plus its tests.'],
      nonExamples: ['Status: `max_retries` on `Client` in client.py was added.', 'Question: `max_retries` on `Client` in client.py?'],
      matches: (at) => codeHeading(at) !== undefined,
    },
  ],
};

/** The sentence (or heading) that makes the message a plan, if any, and the rule that found it. `messageId`: count the hit. */
function findPlan(text: string, messageId?: number): { quote: string; rule: string } | undefined {
  const all = PLAN_RULES.read(text);
  for (const kind of ['plan', 'plan-context'] as const) {
    for (const at of all) {
      const rule = firstMatch(PLAN_RULES, [kind], at, messageId);
      if (rule) return { quote: at.sentence.text, rule: rule.id };
    }
  }
  if (all.length === 0) return undefined;
  const rule = firstMatch(PLAN_RULES, ['plan-layout'], all[0]!, messageId);
  if (rule?.id === 'plan-heading') return { quote: planHeading(text)!, rule: rule.id };
  if (rule) return { quote: all.find((a) => a.sentence.masks.length > 0)!.sentence.text, rule: rule.id };
  return undefined;
}

/** The sentence (or heading) that makes the message a plan, if any. */
export function planSentence(text: string): string | undefined {
  return findPlan(text)?.quote;
}

/** Why a message whose plan is `quote` may not be one (the reason of the first doubt rule that matches), if any. */
export function unsurePlan(text: string, quote: string): string | undefined {
  const first = PLAN_RULES.read(text)[0];
  return first ? firstMatch(PLAN_RULES, ['doubt'], { ...first, quote })?.why : undefined;
}

/** A label when the conversation's first message is a plan (undecided where the detector is not sure). */
export function firstTurnPlan(conversation: readonly ConversationMessage[]): JudgeLabel[] {
  const first = conversation[0];
  if (!first) return [];
  const label = (text: string): JudgeLabel => ({
    judge: 'detectors',
    label: 'first_turn_plan',
    isPrimary: false,
    messageId: first.id,
    agent: first.from,
    description: `the first message (${first.from}) states a plan`,
    evidence: [{ kind: 'quote', source: 'conversation', text, messageId: first.id, agent: first.from }],
  });
  const all = PLAN_RULES.read(first.message);
  if (all.length === 0) return [];
  const found = findPlan(first.message, first.id);
  const whole: PlanAt = { ...all[0]!, quote: found?.quote ?? '' };
  if (found) {
    const doubt = firstMatch(PLAN_RULES, ['doubt'], whole, first.id);
    return [doubt ? asUndecided(label(found.quote), doubt.why) : label(found.quote)];
  }
  const heading = firstMatch(PLAN_RULES, ['code-heading'], whole, first.id) && codeHeading(whole);
  return heading ? [asUndecided(label(heading), "the message names code under a heading or in a list, with no verb of the sender's work")] : [];
}
