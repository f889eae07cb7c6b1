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
// The detector is sure of a plan in a message that neither offers ("if that's useful, just say the
// word") nor puts the plan off ("reading first, plan later"); such a message, and a first message
// that names code under a heading or in a list without a plan verb ("Scope for feature 2: …"),
// leave the label undecided.
import { asUndecided, type ConversationMessage, type JudgeLabel } from '../types.ts';
import { proseOf } from '../text.ts';
import { messageSentences, type Sentence, type VerbPhrase } from './language.ts';
import { stanceOf } from './stance.ts';

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

/** `elsewhere`: another sentence of the message names code ("About `Server.handle()`. I'll make the auth check its first statement"). */
function isPlanVerb(sentence: Sentence, verb: VerbPhrase, elsewhere = false): boolean {
  if (passiveChangeToCome(sentence, verb)) return true;
  const stance = planStance(sentence, verb);
  if (PLACE_VERB.test(verb.lemma) && verb.tense !== 'past' && !verb.negative) return sentence.masks.length > 0;
  // The subject receives what the sender does: "gets" is the change, not a verb of fetching.
  if (senderIsSource(sentence, verb))
    return namesCode(sentence, verb) || sentence.terms.slice(0, verb.index).some((t) => t.clause === verb.clause && t.mask !== undefined);
  if (stance !== 'will' && stance !== 'doing') return false;
  if (NOT_WORK.test(verb.lemma) || (verb.lemma === 'update' && sentence.terms[verb.index + 1]?.normal === 'you')) return false;
  // A plan says where: it names a file, a line range or code (a boundary "I will NOT edit lines 68–84" included).
  return namesCode(sentence, verb) || (!verb.negative && (sentence.masks.length > 0 || elsewhere));
}

function isPlanSentence(sentence: Sentence, elsewhere = false): boolean {
  if (sentence.questionMark) return false;
  if (elsewhere) return sentence.verbs.some((v) => isPlanVerb(sentence, v, true));
  if (sentence.masks.length > 0 && OWNERSHIP.test(sentence.text.replace(/[’‘]/g, "'"))) return true;
  if (assignsCodeToSender(sentence)) return true;
  // "`humanize()` → src/humanize.ts": code mapped to where it goes.
  if (/[`\w)]\s*(?:→|->|=>)\s*\S/.test(sentence.text) && sentence.masks.length > 1) return true;
  return sentence.verbs.some((v) => isPlanVerb(sentence, v));
}

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

/** The sentence (or heading) that makes the message a plan, if any. */
export function planSentence(text: string): string | undefined {
  const all = messageSentences(text);
  // Work to come in one sentence, code in another: a plan, unless the message asks (what it says then may wait on the answer).
  const elsewhere = all.some((s) => s.masks.length > 0) && !all.some((s) => s.questionMark);
  const found = all.find((s) => isPlanSentence(s)) ?? (elsewhere ? all.find((s) => isPlanSentence(s, true)) : undefined);
  if (found) return found.text;
  const prose = proseOf(text);
  const heading = PLAN_HEADING.exec(prose);
  // A heading with its content on the same line ("Split: agent1 does …") or in a list or table below it.
  if (heading && (heading[1] ? messageSentences(heading[1]).some((s) => s.masks.length > 0) : LIST_ITEM.test(prose.slice(heading.index + heading[0].length)))) {
    return text.slice(heading.index, heading.index + heading[0].length).trim();
  }
  if (isAssignmentList(all)) return all.find((s) => s.masks.length > 0)!.text;
  return undefined;
}

/** An offer or a condition on the work: "if that's useful", "just say the word", "happy to … if". */
const OFFER =
  /\bif (?:that(?:'s| is| would be| works)|it(?:'d| would) be)\s+(?:useful|helpful|ok|okay|fine|welcome|wanted|easier|better)\b|\bif you(?:'d)? (?:want|like|prefer)\b|\bjust say the word\b|\bhappy to\b[^.!?\n]{0,40}\bif\b|\b(?:i|we) (?:could|can|might) (?:also )?(?:add|take|do|handle|write|put|make|own|cover)\b/i;
/** The plan put off: "reading first, plan later", "I'll propose a split once I've read …". */
const DEFERRED =
  /\b(?:plan|split|proposal|details?)\s+(?:to follow|later|soon|after|once|when)\b|\b(?:read|reading|look(?:ing)?|explor(?:e|ing)|skim(?:ming)?|survey(?:ing)?)\b[^.!?\n]{0,40}\bfirst\b|\bonce i(?:'ve| have)? (?:read|looked|explored)\b/i;
/** A heading or a list over named code with no plan verb: "Scope for feature 2: …", "My footprint: …". */
const CODE_HEADING = /^[ \t]*(?:[-*+•|]|\d+[.)]|#{1,6})?[ \t]*([^\n:?]{1,40}):[ \t]*\S[^\n]*$/m;
/** Headings of a report, a question or a request: no plan. */
const NOT_PLAN_HEADING = /\b(?:done|fixed|added|finished|status|update|q|question|request|ask|note|fyi|re)\b/i;

/** Why a message whose plan sentence is `sentence` may not be a plan: an offer, or the plan put off. */
export function unsurePlan(text: string, sentence: string): string | undefined {
  const prose = proseOf(text).replace(/[’‘]/g, "'");
  if (OFFER.test(sentence.replace(/[’‘]/g, "'")) || /\bjust say the word\b/i.test(prose)) return 'the plan is an offer or a condition';
  if (DEFERRED.test(prose)) return 'the message puts the plan off until the code is read';
  return undefined;
}

/** A label when the conversation's first message is a plan (undecided where the detector is not sure). */
export function firstTurnPlan(conversation: readonly ConversationMessage[]): JudgeLabel[] {
  const first = conversation[0];
  if (!first) return [];
  const sentence = planSentence(first.message);
  const label = (text: string): JudgeLabel => ({
    judge: 'detectors',
    label: 'first_turn_plan',
    isPrimary: false,
    messageId: first.id,
    agent: first.from,
    description: `the first message (${first.from}) states a plan`,
    evidence: [{ kind: 'quote', source: 'conversation', text, messageId: first.id, agent: first.from }],
  });
  if (sentence) {
    const doubt = unsurePlan(first.message, sentence);
    return [doubt ? asUndecided(label(sentence), doubt) : label(sentence)];
  }
  const all = messageSentences(first.message);
  const heading = CODE_HEADING.exec(proseOf(first.message));
  const reports = all.some((s) => s.verbs.some((v) => v.tense === 'past'));
  if (heading && !NOT_PLAN_HEADING.test(heading[1]!) && !reports && all.some((s) => s.masks.length > 0) && !all.some((s) => s.questionMark)) {
    return [asUndecided(label(heading[0].trim()), "the message names code under a heading or in a list, with no verb of the sender's work")];
  }
  return [];
}
