// Rules as data (after spaCy's Matcher): a detector's rules are entries of one table, each with an
// id, a kind, a matcher, the texts it must fire on and those it must not, and why it exists; one
// engine applies them. The first rule of the asked kinds that matches decides. Calibration wraps a
// run in `traceRules` to count each rule's hits and score them against the gold: per message, or
// per target where a rule doubts or takes back one commitment's target.
import type { Target } from './commitment-code.ts';
import { messageSentences, type Sentence } from './language.ts';

export interface Rule<In, Kind extends string = string, Example = string> {
  id: string;
  kind: Kind;
  /** Why the rule exists: what it reads, and what it must leave alone. */
  why: string;
  /** Texts the rule fires on (at least one) and texts it must not fire on (at least one). */
  examples: readonly Example[];
  nonExamples: readonly Example[];
  matches: (input: In) => boolean;
}

export interface RuleTable<In, Kind extends string = string, Example = string> {
  /** The label the table's rules decide. */
  label: string;
  /** What each kind says of an item when its rule decides: that it has the label, or that it does not (a veto or a doubt). */
  kinds: Record<Kind, 'label' | 'not-label'>;
  /** The inputs the rules read in an example; a rule fires on the example when it matches one of them. */
  read: (example: Example) => In[];
  rules: readonly Rule<In, Kind, Example>[];
}

export interface RuleHit {
  label: string;
  rule: string;
  says: 'label' | 'not-label';
  /** The message the rule decided on. */
  messageId: number;
  /** The commitment target the rule decided on, where it decided on one target rather than the message. */
  target?: Target;
}

/** What a decision is about, to count its hit: a message, or one commitment target of a message. */
export type HitAt = number | { messageId: number; target: Target };

let trace: RuleHit[] | undefined;

/** Runs `fn` and returns the rule hits recorded while it ran (the decisions of the detectors' labelling paths). */
export function traceRules<T>(fn: () => T): { result: T; hits: RuleHit[] } {
  const outer = trace;
  trace = [];
  try {
    const result = fn();
    return { result, hits: trace };
  } finally {
    trace = outer;
  }
}

/**
 * The first rule of `kinds` (in table order) that matches `input`. `at`: the message (or the
 * commitment target) the decision is about, to count the hit (left out where a detector only
 * counts, not labels).
 */
export function firstMatch<In, Kind extends string, Example>(
  table: RuleTable<In, Kind, Example>,
  kinds: readonly Kind[],
  input: In,
  at?: HitAt,
): Rule<In, Kind, Example> | undefined {
  const rule = table.rules.find((r) => kinds.includes(r.kind) && r.matches(input));
  if (rule && trace && at !== undefined) {
    const about = typeof at === 'number' ? { messageId: at } : at;
    trace.push({ label: table.label, rule: rule.id, says: table.kinds[rule.kind], ...about });
  }
  return rule;
}

/** Whether `rule` fires on an example text of its table (any of the inputs read from it). */
export function firesOn<In, Kind extends string, Example>(table: RuleTable<In, Kind, Example>, rule: Rule<In, Kind, Example>, example: Example): boolean {
  return table.read(example).some((input) => rule.matches(input));
}

/** One sentence of a message, with the message around it: what sentence and message rules read. */
export interface SentenceAt {
  /** The whole message. */
  text: string;
  sentences: readonly Sentence[];
  i: number;
  sentence: Sentence;
}

/** Every sentence of a message, in order, as rules read them. */
export function sentencesAt(text: string): SentenceAt[] {
  const sentences = messageSentences(text);
  return sentences.map((sentence, i) => ({ text, sentences, i, sentence }));
}
