// Precision and recall on the calibration set, one split at a time: for the deterministic
// detectors (per message, per conversation for the first-turn plan, per target for broken
// commitments where the gold lists them (targets.ts); mention counts as exact
// matches; commitments found, and broken ones, per kind; paraphrases labelled alike), and for the LLM judges
// (communication error and primary symptom per conversation, speech act per message, broken
// checkable commitment per target where the case has patches, targets.ts). Gold is
// read through the definitions: a detector that covers part of a paper label is scored on that part.
import type { Model } from '../model.ts';
import { COMMITMENT_KINDS, DETECTOR_LABELS, type DetectorLabel } from '../definitions.ts';
import type { Commitment } from '../detectors/commitment-extract.ts';
import { brokenPromises, type BrokenPromise } from '../detectors/commitments.ts';
import { detect, DETECTOR_RULE_TABLES, prepareDetectors, type DetectorResult } from '../detectors/index.ts';
import { traceRules, type RuleHit } from '../detectors/rules.ts';
import { addUsage, NO_USAGE, type UsageTotal } from '../llm/ask.ts';
import { commitmentsJudge, commitmentsOf } from '../llm/commitments.ts';
import type { LlmJudge } from '../llm/judge.ts';
import { conversationItems, DEFAULT_BUDGET } from '../llm/material.ts';
import { llmOutcome, memoryCache, type AnswerCache } from '../run-judge.ts';
import { undecidedLabel, type JudgeLabel, type JudgeName } from '../types.ts';
import { caseInput, goldBrokenCommitments, type CalibrationCase } from './cases.ts';
import { goldReading } from './gold-reading.ts';
import { judgesToScore } from './questions.ts';
import { brokenTargetItems, isBrokenGoldTarget } from './targets.ts';
import { Tally, type LabelScore } from './tally.ts';

export { goldBrokenCommitments } from './cases.ts';
export type { LabelScore } from './tally.ts';

export interface CountScore {
  label: string;
  exact: number;
  cases: number;
  meanAbsoluteError: number;
}

export const precision = (s: LabelScore) => (s.tp + s.fp === 0 ? null : s.tp / (s.tp + s.fp));
export const recall = (s: LabelScore) => (s.tp + s.fn === 0 ? null : s.tp / (s.tp + s.fn));

export interface DetectorScores {
  cases: number;
  labels: LabelScore[];
  counts: CountScore[];
  /** Commitments found per kind, against the cases' gold commitments (where given). */
  commitments: LabelScore[];
  /** broken_checkable_commitment per kind of the broken promise (cases with gold commitments): which broken promises it finds. */
  brokenByKind: LabelScore[];
  /**
   * broken_checkable_commitment with the gold's reading of every commitment (gold-reading.ts) in place
   * of the extractor's: the code checks alone. `unread`: gold entries whose target the checks cannot read.
   */
  goldReading: { labels: LabelScore[]; unread: number };
  /** Paraphrases of positive cases that got the same detector labels as their original. */
  paraphrases: { same: number; of: number; differing: string[] };
  /** Per label, the items the detectors left undecided, and how many of them the gold has as that label (counted as FN). */
  undecided: UndecidedCount[];
  /** Each rule of the detectors' tables: its decisions, and how many the gold agrees with (what the rule's kind says of the message or target; a reading of a commitment kind only where the gold lists commitments). */
  rules: RuleScore[];
}

export interface RuleScore {
  label: string;
  rule: string;
  hits: number;
  right: number;
  wrong: number;
}

export interface UndecidedCount {
  label: string;
  items: number;
  positives: number;
}

/**
 * Gold of question_no_reply: the unanswered questions whose partner wrote nothing after the question
 * reached it (C1a). Read from the case's own times (cases.ts: sent, delivered), not through the
 * detectors' code, so a fault there cannot make its own gold.
 */
export function goldQuestionsWithoutReply(c: CalibrationCase): number[] {
  const sentAt = (i: number) => c.messages[i]!.sent ?? i;
  return c.gold.unanswered_question.filter((id) => {
    const m = c.messages[id - 1];
    if (!m) return false;
    const delivered = m.delivered === undefined ? sentAt(id - 1) + 0.5 : m.delivered;
    const recipients = (m.to ?? c.agents).filter((r) => r !== m.from);
    // Never delivered: nothing the partner wrote can answer it.
    if (delivered === null) return true;
    return recipients.every((r) => !c.messages.some((other, i) => other.from === r && sentAt(i) >= delivered));
  });
}

/** The promises the code checks find broken, per kind and message, against the gold's broken ones (an accepted request as the kind it is checked as, its `as`). */
function compareBrokenKinds(tally: Tally, broken: readonly BrokenPromise[], c: CalibrationCase): void {
  if (!c.gold.commitments) return;
  const gold = c.gold.commitments.filter((x) => !x.kept && x.withdrawn === undefined);
  for (const kind of COMMITMENT_KINDS.filter((k) => k !== 'accepted_request')) {
    tally.compare(
      kind,
      broken.filter((b) => b.commitment.target.kind === kind).map((b) => b.commitment.messageId),
      gold.filter((x) => (x.kind === 'accepted_request' ? (x.as ?? x.kind) : x.kind) === kind).map((x) => x.message),
    );
  }
}

/** The commitments read in a case, per kind and message, against its gold commitments (where given). */
function compareKinds(kinds: Tally, read: readonly Commitment[], c: CalibrationCase): void {
  if (!c.gold.commitments) return;
  for (const kind of COMMITMENT_KINDS) {
    const found = read.filter((x) => (kind === 'accepted_request' ? x.request !== undefined : x.target.kind === kind && !x.request)).map((x) => x.messageId);
    kinds.compare(
      kind,
      found,
      c.gold.commitments.filter((x) => x.kind === kind).map((x) => x.message),
    );
  }
}

interface CaseResult extends DetectorResult {
  /** The promises the code checks find broken on the gold's reading, and the gold entries they cannot read. */
  goldReading: { broken: BrokenPromise[]; unread: number };
  hits: RuleHit[];
}

/**
 * broken_checkable_commitment of one case: per target where the gold lists the commitments
 * (targets.ts), per message where it gives only the messages.
 */
function compareBroken(tally: Tally, c: CalibrationCase, broken: readonly BrokenPromise[]): void {
  if (!c.gold.commitments) {
    tally.compare('broken_checkable_commitment', new Set(broken.map((b) => b.commitment.messageId)), c.gold.broken_commitment);
    return;
  }
  const items = brokenTargetItems(c, broken);
  tally.compare('broken_checkable_commitment', items.reported, items.gold);
}

/**
 * The detectors are deterministic: a case's result is computed once per process (calibrating
 * scores every case once for the table and again for the stored figures).
 */
const detected = new WeakMap<CalibrationCase, Promise<CaseResult>>();

function detectCase(c: CalibrationCase): Promise<CaseResult> {
  let result = detected.get(c);
  if (!result) detected.set(c, (result = detectAnew(c)));
  return result;
}

async function detectAnew(c: CalibrationCase): Promise<CaseResult> {
  const input = caseInput(c);
  await prepareDetectors(input);
  const read = commitmentsOf(goldReading(c), conversationItems(input, DEFAULT_BUDGET), input);
  const { result, hits } = traceRules(() => detect(input));
  return {
    ...result,
    hits,
    goldReading: { broken: brokenPromises(input, read.commitments), unread: read.dropped.length },
  };
}

/**
 * Whether the gold has the label where the hit decided: on the conversation (first-turn plan), on
 * the target a commitment rule decided on (per target, as broken promises are scored, where the
 * gold lists the commitments), else on the message. A rule that reads a commitment (a verb's
 * class) or a kind of commitment (an accepted request) is scored on the gold's commitments (of that
 * kind) on the message, where the gold lists them (undefined elsewhere: not scored).
 */
function hitIsOnGold(c: CalibrationCase, hit: RuleHit, gold: Record<DetectorLabel, (number | string)[]>): boolean | undefined {
  if (hit.label === 'commitment' || (COMMITMENT_KINDS as readonly string[]).includes(hit.label))
    return c.gold.commitments ? c.gold.commitments.some((x) => (hit.label === 'commitment' || x.kind === hit.label) && x.message === hit.messageId) : undefined;
  const items = gold[hit.label as DetectorLabel];
  if (hit.label === 'first_turn_plan') return items.length > 0;
  if (hit.target && c.patches && c.gold.commitments) return isBrokenGoldTarget(c, hit.messageId, hit.target);
  return items.includes(hit.messageId);
}

/** What a case's detector labels are, per label: the messages (or the conversation) they are on; `undecided`: those left undecided. */
function labelItems(c: CalibrationCase, labels: readonly JudgeLabel[], decided = true): Record<DetectorLabel, (number | string)[]> {
  const ids = (label: DetectorLabel) => [...new Set(labels.filter((l) => l.label === (decided ? label : undecidedLabel(label))).map((l) => l.messageId!))];
  return {
    question_no_reply: ids('question_no_reply'),
    near_duplicate: ids('near_duplicate'),
    first_turn_plan: ids('first_turn_plan').length > 0 ? [c.id] : [],
    broken_checkable_commitment: c.patches ? ids('broken_checkable_commitment') : [],
  };
}

/** The gold items of each detector label. */
function goldItems(c: CalibrationCase): Record<DetectorLabel, (number | string)[]> {
  return {
    first_turn_plan: c.gold.first_turn_plan ? [c.id] : [],
    question_no_reply: goldQuestionsWithoutReply(c),
    near_duplicate: c.gold.near_duplicate,
    broken_checkable_commitment: c.patches ? goldBrokenCommitments(c) : [],
  };
}

export async function scoreDetectors(cases: readonly CalibrationCase[]): Promise<DetectorScores> {
  const tally = new Tally('detectors');
  const kinds = new Tally('commitments');
  const goldRead = new Tally('gold reading');
  const brokenKinds = new Tally('detectors');
  let unread = 0;
  const counts = { line_number_mentions: [] as number[][], file_path_mentions: [] as number[][] };
  const results = new Map<string, CaseResult>();
  const undecided = new Map(DETECTOR_LABELS.map((label) => [label, { label, items: 0, positives: 0 }]));
  const rules = new Map(
    DETECTOR_RULE_TABLES.flatMap((t) => t.rules.map((r) => [`${t.label} ${r.id}`, { label: t.label, rule: r.id, hits: 0, right: 0, wrong: 0 }])),
  );
  for (const c of cases) {
    const result = await detectCase(c);
    results.set(c.id, result);
    const got = labelItems(c, result.labels);
    const gold = goldItems(c);
    const unsure = labelItems(c, result.labels, false);
    for (const label of DETECTOR_LABELS) {
      const row = undecided.get(label)!;
      row.items += unsure[label].length;
      row.positives += unsure[label].filter((x) => gold[label].includes(x)).length;
    }
    for (const hit of result.hits) {
      const row = rules.get(`${hit.label} ${hit.rule}`)!;
      row.hits++;
      const positive = hitIsOnGold(c, hit, gold);
      if (positive === undefined) continue;
      if ((hit.says === 'label') === positive) row.right++;
      else row.wrong++;
    }
    tally.compare('first_turn_plan', got.first_turn_plan, gold.first_turn_plan);
    tally.compare('question_no_reply', got.question_no_reply, gold.question_no_reply);
    tally.compare('near_duplicate', got.near_duplicate, gold.near_duplicate);
    if (c.patches) {
      compareBroken(tally, c, result.broken);
      compareBrokenKinds(brokenKinds, result.broken, c);
    }
    // The checks alone are scored where the gold reads the promises: a case without gold commitments gives them nothing to check.
    if (c.patches && c.gold.commitments) {
      compareBroken(goldRead, c, result.goldReading.broken);
      unread += result.goldReading.unread;
    }
    compareKinds(kinds, result.commitments, c);
    counts.line_number_mentions.push([result.metrics.lineNumberMentions, c.gold.line_number_mentions]);
    counts.file_path_mentions.push([result.metrics.filePathMentions, c.gold.file_path_mentions]);
  }
  return {
    cases: cases.length,
    labels: tally.rows(DETECTOR_LABELS),
    commitments: kinds.rows(COMMITMENT_KINDS),
    brokenByKind: brokenKinds.rows(COMMITMENT_KINDS),
    goldReading: { labels: goldRead.rows(), unread },
    counts: Object.entries(counts).map(([label, pairs]) => ({
      label,
      exact: pairs.filter(([got, want]) => got === want).length,
      cases: pairs.length,
      meanAbsoluteError: pairs.reduce((sum, [got, want]) => sum + Math.abs(got! - want!), 0) / Math.max(1, pairs.length),
    })),
    paraphrases: paraphraseConsistency(cases, results),
    undecided: [...undecided.values()],
    rules: [...rules.values()],
  };
}

/** Each paraphrase of a case must get the labels its original gets. */
function paraphraseConsistency(cases: readonly CalibrationCase[], results: Map<string, CaseResult>): DetectorScores['paraphrases'] {
  const byId = new Map(cases.map((c) => [c.id, c]));
  const outcome = { same: 0, of: 0, differing: [] as string[] };
  for (const c of cases) {
    const original = c.paraphrase_of ? byId.get(c.paraphrase_of) : undefined;
    if (!original) continue;
    const a = results.get(original.id)!;
    const b = results.get(c.id)!;
    const mine = labelItems(c, b.labels);
    const theirs = labelItems(original, a.labels);
    // Conversation-level labels carry the case id: compare whether they are there.
    const same = DETECTOR_LABELS.every((label) =>
      label === 'first_turn_plan'
        ? mine[label].length === theirs[label].length
        : JSON.stringify([...mine[label]].sort()) === JSON.stringify([...theirs[label]].sort()),
    );
    outcome.of++;
    if (same) outcome.same++;
    else outcome.differing.push(`${c.id} (paraphrase of ${original.id})`);
  }
  return outcome;
}

export interface LlmScores {
  labels: LabelScore[];
  /** The commitments judge's reading: commitments found per kind and message, as the detectors' are scored. */
  commitments: LabelScore[];
  /** Conversations whose gold has no communication error and that got none. */
  cleanKeptClean: { kept: number; of: number };
  dropped: number;
  errors: string[];
  usage: UsageTotal;
}

export async function scoreLlmJudges(
  cases: readonly CalibrationCase[],
  model: Model,
  options: { timeoutMs: number; cache?: AnswerCache; only?: readonly JudgeName[] },
): Promise<LlmScores> {
  const cache = options.cache ?? memoryCache();
  const judges = judgesToScore(options.only);
  const tallies = judges.map((j) => new Tally(j.name));
  const kinds = new Tally('commitments');
  let dropped = 0;
  const errors: string[] = [];
  let usage = NO_USAGE;
  const clean = { kept: 0, of: 0 };

  for (const c of cases) {
    const input = caseInput(c);
    const outcomes = await Promise.all(judges.map((j) => (j.calibration.covers(c) ? llmOutcome(j, input, model, cache, options) : undefined)));
    outcomes.forEach((o, i) => {
      if (!o) return;
      dropped += o.dropped.length;
      if (!o.cached) usage = addUsage(usage, o.usage);
      if (o.status === 'error') errors.push(`${c.id} ${o.judge}: ${o.reason}`);
      judges[i]!.calibration.score(tallies[i]!, o.labels, c);
    });
    const outcomeOf = (name: string) => outcomes.find((o) => o?.judge === name);
    const communication = outcomeOf('communication');
    if (communication && c.gold.communication === null) {
      clean.of++;
      if (communication.labels.length === 0) clean.kept++;
    }
    const promised = outcomeOf(commitmentsJudge.name);
    if (promised) {
      // What the model read, from its cached answer (the outcome keeps only the broken ones' labels, not their targets): scored per target.
      const answer = promised.status === 'ok' ? commitmentsJudge.schema.safeParse(cache.get(promised.inputHash)?.answer) : undefined;
      const read = answer?.success ? commitmentsOf(answer.data, conversationItems(input, DEFAULT_BUDGET), input).commitments : [];
      compareBroken(tallies[judges.indexOf(commitmentsJudge as LlmJudge<unknown>)]!, c, read.length > 0 ? brokenPromises(input, read) : []);
      if (answer?.success) compareKinds(kinds, read, c);
    }
  }
  return {
    labels: judges.flatMap((j, i) => tallies[i]!.rows(j.calibration.order)),
    commitments: kinds.rows(COMMITMENT_KINDS),
    cleanKeptClean: clean,
    dropped,
    errors,
    usage,
  };
}
