// What `coop-bench judge` prints: each task's labels with their evidence, a summary with the
// judges' cost, and the calibration tables. Agents wrote the quotes: every piece of their text
// goes through displayLine (one line, no control characters, bounded).
import { DETECTOR_DEFINITIONS } from './definitions.ts';
import { addUsage, type UsageTotal } from './llm/ask.ts';
import type { DetectorScores, LabelScore, LlmScores } from './calibration/score.ts';
import { precision, recall } from './calibration/score.ts';
import type { TaskJudgement } from './judge-task.ts';
import type { JudgeOutcome } from './run-judge.ts';
import { displayLine } from './text.ts';
import { undecidedOf, type Evidence, type JudgeLabel } from './types.ts';

const QUOTE_CHARS = 160;

function evidenceLine(e: Evidence): string {
  switch (e.kind) {
    case 'quote': {
      const where =
        e.source === 'conversation'
          ? `message ${e.messageId}, ${e.agent}`
          : e.source === 'tests'
            ? `test output, feature ${e.feature}`
            : `${e.source === 'merged' ? 'merged patch' : `${e.agent}'s patch`}${e.file ? `, ${e.file}` : ''}`;
      return `“${displayLine(e.text, QUOTE_CHARS)}” (${displayLine(where, 100)})`;
    }
    case 'absence':
      return `missing: ${displayLine(e.text, 80)}: ${displayLine(e.note, 200)}`;
    case 'fact':
      return displayLine(e.text, 200);
  }
}

function formatLabel(label: JudgeLabel, indent = '    '): string[] {
  const where = label.messageId !== undefined ? ` (message ${label.messageId}${label.agent ? `, ${label.agent}` : ''})` : '';
  return [
    `${indent}${label.isPrimary ? 'primary ' : ''}${label.label}${where}: ${displayLine(label.description, 200)}`,
    ...label.evidence.map((e) => `${indent}  ${evidenceLine(e)}`),
  ];
}

/** The detectors' metrics (DetectorMetrics, stored as a plain record). */
function metricsLine(m: JudgeOutcome['metrics']): string {
  const undecided = [
    [m.undecidedPlan, 'first-turn plan'],
    [m.undecidedQuestions, 'question without reply'],
    [m.undecidedDuplicates, 'near-duplicate'],
    [m.undecidedCommitments, 'broken commitment'],
  ].filter(([n]) => typeof n === 'number' && n > 0);
  return (
    `${m.messages} messages, ${m.questions} questions (${m.questionsWithoutReply} without reply), ${m.lineNumberMentions} line-number and ${m.filePathMentions} file-path mentions, ` +
    `first-turn plan: ${m.firstTurnPlan ? 'yes' : 'no'}, ${m.commitmentsReadByModel ? 'commitments read by the judge model' : `${m.commitments} commitments checked`}` +
    (undecided.length ? `; undecided: ${undecided.map(([n, what]) => `${n} ${what}`).join(', ')}` : '')
  );
}

function outcomeLines(o: JudgeOutcome): string[] {
  const model = o.judge === 'detectors' ? '' : ` [${o.model}${o.cached ? ', cached' : ''}]`;
  const head = `  ${o.judge}${model}`;
  if (o.status === 'error') return [`${head}: ERROR ${displayLine(o.reason ?? '', 300)}`];
  if (o.status === 'skipped') return [`${head}: skipped (${o.reason})`];
  const summary =
    o.judge === 'detectors'
      ? metricsLine(o.metrics)
      : o.judge === 'speech_acts'
        ? Object.entries(o.metrics)
            .map(([act, n]) => `${act} ${n}`)
            .join(', ')
        : o.judge === 'initiative'
          ? `${o.metrics.initiative ?? 0} taking initiative, ${o.metrics.no_initiative ?? 0} not${o.metrics.undecided ? `, ${o.metrics.undecided} undecided (the report needs a judge model to measure this team)` : ''}`
          : `${o.labels.length === 0 ? 'no label' : `${o.labels.length} label${o.labels.length === 1 ? '' : 's'}`}`;
  return [
    `${head}: ${summary}`,
    ...o.labels.flatMap((l) => formatLabel(l)),
    ...o.dropped.map((d) => `    dropped ${displayLine(d.label, 40)}: ${displayLine(d.reason, 200)}`),
  ];
}

export function formatTaskJudgement(title: string, judgement: TaskJudgement): string[] {
  if (judgement.skipped) return [`task ${judgement.taskId} ${title}: skipped (${judgement.skipped})`];
  return [`task ${judgement.taskId} ${title}`, ...judgement.outcomes.flatMap(outcomeLines)];
}

export function formatUsage(u: UsageTotal): string {
  return `${u.calls} model call${u.calls === 1 ? '' : 's'}, ${u.inputTokens.toLocaleString('en-US')} input + ${u.outputTokens.toLocaleString('en-US')} output tokens, $${u.costUsd.toFixed(4)}`;
}

export interface RunTotals {
  judged: number;
  skipped: number;
  labels: number;
  /** Findings the detectors and the initiative fallback left undecided (stored, not counted in `labels`). */
  undecided: number;
  dropped: number;
  errors: number;
  cachedAnswers: number;
  usage: UsageTotal;
}

/** Adds one judge outcome to the run's totals. */
export function addOutcome(t: RunTotals, o: JudgeOutcome): void {
  const undecided = o.labels.filter((l) => undecidedOf(l.label) !== undefined).length;
  t.labels += o.labels.length - undecided;
  t.undecided += undecided;
  t.dropped += o.dropped.length;
  if (o.status === 'error') t.errors++;
  if (o.cached) t.cachedAnswers++;
  else t.usage = addUsage(t.usage, o.usage);
}

export function formatSummary(t: RunTotals, model: string | undefined): string[] {
  return [
    `Judged ${t.judged} task${t.judged === 1 ? '' : 's'} (${t.skipped} skipped): ${t.labels} labels, ${t.undecided} left undecided by the deterministic judges, ${t.dropped} dropped because their evidence did not check out, ${t.errors} judge error${t.errors === 1 ? '' : 's'}.`,
    model
      ? `Judge model ${model}: ${formatUsage(t.usage)} (${t.cachedAnswers} answer${t.cachedAnswers === 1 ? '' : 's'} from the cache, no call).`
      : 'No --judge-model: only the deterministic detectors and the initiative fallback ran (no model calls, $0).',
  ];
}

const ratio = (x: number | null) => (x === null ? '    -' : x.toFixed(2).padStart(5));

function scoreTable(rows: readonly LabelScore[], withJudge: boolean): string[] {
  const judgeWidth = withJudge ? Math.max(5, ...rows.map((r) => r.judge.length)) + 2 : 0;
  const labelWidth = Math.max(5, ...rows.map((r) => r.label.length)) + 2;
  // Counts of four digits (speech acts over every message) keep a space between them.
  const countWidth = Math.max(3, ...rows.flatMap((r) => [r.tp, r.fp, r.fn].map((n) => String(n).length))) + 1;
  const counts = (values: readonly (string | number)[]) => values.map((v) => String(v).padStart(countWidth)).join('');
  const head = `${withJudge ? 'judge'.padEnd(judgeWidth) : ''}${'label'.padEnd(labelWidth)}${counts(['TP', 'FP', 'FN'])}  precision  recall`;
  return [
    `  ${head}`,
    ...rows.map(
      (r) =>
        `  ${withJudge ? r.judge.padEnd(judgeWidth) : ''}${r.label.padEnd(labelWidth)}${counts([r.tp, r.fp, r.fn])}      ${ratio(precision(r))}   ${ratio(recall(r))}`,
    ),
  ];
}

/** The definitions a calibration table scores, one line each, so the numbers read against them. */
export function formatDefinitions(): string[] {
  return [
    'Detector labels (judges/definitions.ts):',
    ...DETECTOR_DEFINITIONS.map(
      (d) =>
        `  ${d.id}: ${displayLine(d.definition, 700)}${'covers' in d && d.covers ? ` Covers part of ${d.covers.label}; leaves ${d.covers.leavesOut}.` : ''}`,
    ),
  ];
}

/** The case files scored, each with its split as the file writes it. */
export function formatCaseFiles(files: readonly { file: string; split: string; cases: number }[]): string[] {
  return ['Calibration case files (split as written in the file):', ...files.map((f) => `  ${f.file}: ${f.split}, ${f.cases} conversations`)];
}

export function formatDetectorScores(split: string, scores: DetectorScores): string[] {
  const p = scores.paraphrases;
  return [
    `Deterministic detectors, ${split} split (${scores.cases} calibration conversations)`,
    ...(scores.cases === 0
      ? ['  no conversations in this split']
      : [
          ...scoreTable(scores.labels, false),
          `  undecided (not labelled; a gold item left undecided counts as FN): ${scores.undecided
            .map((u) => `${u.label} ${u.items} (${u.positives} in the gold)`)
            .join(', ')}`,
          ...scores.counts.map((c) => `  ${c.label}: exact on ${c.exact}/${c.cases} conversations, mean absolute error ${c.meanAbsoluteError.toFixed(2)}`),
          ...(scores.commitments.length
            ? [
                '  commitments found, by kind and message (cases with gold commitments; the gold need not list kept promises, yet an extra one counts as FP: precision is a lower bound):',
                ...scoreTable(scores.commitments, false).map((l) => `  ${l}`),
              ]
            : []),
          ...(scores.brokenByKind.length
            ? [
                '  broken_checkable_commitment by the kind of the broken promise, by message (cases with gold commitments; an accepted request as the kind it is checked as):',
                ...scoreTable(scores.brokenByKind, false).map((l) => `  ${l}`),
              ]
            : []),
          ...(scores.goldReading.labels.length
            ? [
                `  the code checks alone, on the gold's reading of every commitment (what a reader that misses no promise would get; placements approximate; ${scores.goldReading.unread} gold entries unreadable):`,
                ...scoreTable(scores.goldReading.labels, false).map((l) => `  ${l}`),
              ]
            : []),
          "  each rule's decisions (hits), right and wrong by the gold (a rule that vetoes or doubts is right where the gold has no label; a doubt or withdrawal of a commitment, where its target is no broken gold target; a verb's class, a new-code frame or an accepted request, where the gold has a commitment (of that kind) on the message, in cases with gold commitments):",
          ...scores.rules.map(
            (r) => `    ${`${r.label} ${r.rule}`.padEnd(50)} ${String(r.hits).padStart(4)} ${String(r.right).padStart(4)} ${String(r.wrong).padStart(4)}`,
          ),
          `  paraphrases labelled like their original: ${p.same}/${p.of}${
            p.differing.length
              ? ` (differ: ${p.differing
                  .slice(0, 10)
                  .map((d) => displayLine(d, 120))
                  .join('; ')})`
              : ''
          }`,
        ]),
  ];
}

export function formatLlmScores(model: string, split: string, scores: LlmScores): string[] {
  return [
    `LLM judges (${model}), ${split} split`,
    ...scoreTable(scores.labels, true),
    ...(scores.commitments.length
      ? [
          "  commitments the commitments judge read, by kind and message (as the detectors' are scored: precision is a lower bound):",
          ...scoreTable(scores.commitments, false).map((l) => `  ${l}`),
        ]
      : []),
    `  clean conversations left without a communication error: ${scores.cleanKeptClean.kept}/${scores.cleanKeptClean.of}`,
    `  labels dropped because their evidence did not check out: ${scores.dropped}; judge errors: ${scores.errors.length}`,
    ...scores.errors.slice(0, 10).map((e) => `    ${displayLine(e, 200)}`),
    `  cost: ${formatUsage(scores.usage)}`,
  ];
}
