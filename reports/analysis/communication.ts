// Section 5 and 6: how much agents talk and what they say (figure 5c, figure 6), the judges'
// communication errors and failure symptoms (table 1), and the deterministic detectors.
import type { LabelView, TaskOutcome } from '../run-data.ts';
import { proportion, type Proportion } from '../stats.ts';
import { countWhere, groupBy, isDone, isMainCoop } from './conditions.ts';
import { readStoredScores, type StoredScores } from '../../judges/calibration/stored-scores.ts';
import { undecidedLabel, undecidedOf } from '../../judges/types.ts';
import { modelTestScores, type ModelMeasurement } from '../../judges/calibration/model-scores.ts';
import { llmJudges } from '../../judges/llm/registry.ts';
import {
  COMMUNICATION_ERRORS,
  DETECTORS,
  IMPLEMENTATION_FAILURE,
  IMPLEMENTATION_FAILURE_MEANING,
  JUDGES,
  SPEECH_ACTS,
  SYMPTOMS,
  normalizeLabel,
} from './taxonomy.ts';

export const UNLABELED = 'unlabeled';

export interface TeamCommunication {
  team: string;
  /** Finished Coop tasks with messaging. */
  tasks: number;
  conversations: number;
  messages: number;
  steps: number;
  /** Messages as a share of all agent steps (figure 5c); null without steps. */
  overhead: number | null;
  messagesPerTask: number | null;
  /** Messages per speech act (a message's primary act, else its first), plus `unlabeled`. */
  speechActs: Record<string, number>;
}

export interface TeamErrors {
  team: string;
  /** Coop tasks with at least one message. */
  conversations: number;
  /** Conversations carrying each communication-judge label (by label id, e.g. `C1a`). */
  byLabel: Record<string, number>;
}

export interface SymptomRow {
  label: string;
  meaning: string | null;
  /** Failed tasks whose primary symptom this is. */
  primary: number;
  /** Failed tasks where it is a secondary symptom. */
  secondary: number;
}

export interface SymptomAnalysis {
  failedTasks: number;
  labeledTasks: number;
  rows: SymptomRow[];
}

/** How far a detector's label can be trusted: its figures on the held-out calibration split. */
export interface DetectorCalibration {
  split: string;
  /** For labels of promises read by a judge model: the model whose figures these are. */
  model?: string;
  cases: number;
  tp: number;
  fp: number;
  fn: number;
  precision: number | null;
  recall: number | null;
}

/** A detector's label against outcomes: success and naive conflict, with the label and without. */
export interface DetectorRow {
  /** detectors, or the commitments judge (promises read by the judge model, checked by the detectors' code checks). */
  judge: string;
  label: string;
  /** What the label means (judges/definitions.ts), with the part of the paper's label it leaves out. */
  definition: string | null;
  /** Precision and recall on the test split; null where none is stored (for a judge model's labels: of that model). */
  calibration: DetectorCalibration | null;
  tasks: number;
  /** Tasks where the detector found this label but was not sure of it (stored as `undecided:<label>`; counted in neither group below). */
  undecided: number;
  successWith: Proportion | null;
  successWithout: Proportion | null;
  conflictWith: Proportion | null;
  conflictWithout: Proportion | null;
}

/**
 * An LLM judge's figures on the held-out split, per label: only when every label it gave in the run
 * came from one model, measured with the judge as it is now (model-scores.ts).
 */
export interface JudgeTrust {
  model: string;
  /** Conversations of the test split it was measured on. */
  cases: number;
  /** By the label's key in the report: a communication error's id, a symptom's or speech act's normalized name. */
  labels: Record<string, DetectorCalibration>;
}

/** One LLM judge (judges/llm/registry.ts) in the run: what it gave, and how far its labels can be trusted. */
export interface LlmJudgeRow {
  judge: string;
  /** What it labels. */
  title: string;
  labels: number;
  /** Tasks it gave at least one label. */
  tasks: number;
  /** Labels given, by label, most frequent first. */
  byLabel: [string, number][];
  /** Its model's figures on the held-out split, per label (as stored, unnormalized). */
  trust: JudgeTrust | null;
}

export interface CommunicationAnalysis {
  /** Labels per judge in the whole run (0: that judge has not run). */
  labelCounts: Record<string, number>;
  teams: TeamCommunication[];
  errors: TeamErrors[];
  symptoms: SymptomAnalysis;
  detectors: DetectorRow[];
  /** Every registered LLM judge, in the registry's order. */
  llmJudges: LlmJudgeRow[];
  /** The LLM judges' figures, for the tables of their labels (symptoms: as the primary symptom). */
  trust: { communication: JudgeTrust | null; symptoms: JudgeTrust | null; speechActs: JudgeTrust | null };
}

const labelsOf = (t: TaskOutcome, judge: string) => t.labels.filter((l) => l.judge === judge);
const rate = (k: number, n: number) => (n > 0 ? proportion(k, n) : null);

export function communicationAnalysis(tasks: TaskOutcome[], judgeCalibration: readonly ModelMeasurement[] = []): CommunicationAnalysis {
  const labelCounts: Record<string, number> = {};
  for (const t of tasks) for (const l of t.labels) labelCounts[l.judge] = (labelCounts[l.judge] ?? 0) + 1;
  const coop = tasks.filter((t) => t.setting === 'coop' && isDone(t));
  const withMessaging = coop.filter(isMainCoop);
  const trust = (judge: string, key: (label: string) => string) =>
    judgeTrust(
      tasks.flatMap((t) => labelsOf(t, judge)),
      judge,
      judgeCalibration,
      key,
    );
  return {
    labelCounts,
    teams: [...groupBy(withMessaging, (t) => t.team)].map(([team, list]) => teamCommunication(team, list)),
    errors: [
      ...groupBy(
        coop.filter((t) => t.messages > 0),
        (t) => t.team,
      ),
    ].map(([team, list]) => teamErrors(team, list)),
    symptoms: symptomAnalysis(coop.filter((t) => t.passed === false)),
    detectors: detectorRows(withMessaging, judgeCalibration),
    llmJudges: llmJudges().map((j) =>
      llmJudgeRow(
        tasks,
        j.name,
        j.title,
        trust(j.name, (label) => label),
      ),
    ),
    trust: {
      communication: trust(JUDGES.communication, communicationLabelId),
      symptoms: trust(JUDGES.symptoms, normalizeLabel),
      speechActs: trust(JUDGES.speechActs, normalizeLabel),
    },
  };
}

function llmJudgeRow(tasks: TaskOutcome[], judge: string, title: string, trust: JudgeTrust | null): LlmJudgeRow {
  const labels = tasks.flatMap((t) => labelsOf(t, judge));
  const byLabel = new Map<string, number>();
  for (const l of labels) byLabel.set(l.label, (byLabel.get(l.label) ?? 0) + 1);
  return {
    judge,
    title,
    labels: labels.length,
    tasks: countWhere(tasks, (t) => labelsOf(t, judge).length > 0),
    byLabel: [...byLabel].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
    trust,
  };
}

function teamCommunication(team: string, tasks: TaskOutcome[]): TeamCommunication {
  const messages = tasks.reduce((s, t) => s + t.messages, 0);
  const steps = tasks.reduce((s, t) => s + t.steps, 0);
  const speechActs: Record<string, number> = Object.fromEntries(SPEECH_ACTS.map((a) => [a, 0]));
  let labeled = 0;
  for (const t of tasks) {
    for (const act of messageActs(labelsOf(t, JUDGES.speechActs)).values()) {
      speechActs[act] = (speechActs[act] ?? 0) + 1;
      labeled++;
    }
  }
  speechActs[UNLABELED] = Math.max(0, messages - labeled);
  return {
    team,
    tasks: tasks.length,
    conversations: countWhere(tasks, (t) => t.messages > 0),
    messages,
    steps,
    overhead: steps > 0 ? messages / steps : null,
    messagesPerTask: tasks.length > 0 ? messages / tasks.length : null,
    speechActs,
  };
}

/** One act per message: the label marked primary, else the first given. */
function messageActs(labels: LabelView[]): Map<number, string> {
  const acts = new Map<number, string>();
  for (const l of labels) {
    if (l.messageId === null) continue;
    if (!acts.has(l.messageId) || l.isPrimary) acts.set(l.messageId, normalizeLabel(l.label));
  }
  return acts;
}

function teamErrors(team: string, conversations: TaskOutcome[]): TeamErrors {
  const byLabel: Record<string, number> = {};
  for (const t of conversations) {
    for (const label of new Set(labelsOf(t, JUDGES.communication).map((l) => communicationLabelId(l.label)))) byLabel[label] = (byLabel[label] ?? 0) + 1;
  }
  return { team, conversations: conversations.length, byLabel };
}

/** `c1a`, `C1a: unanswered` -> `C1a`; other labels keep their text. */
export function communicationLabelId(label: string): string {
  const known = COMMUNICATION_ERRORS.flatMap((g) => g.labels).find((l) => new RegExp(`^${l.id}\\b`, 'i').test(label.trim()));
  return known ? known.id : label;
}

function symptomAnalysis(failed: TaskOutcome[]): SymptomAnalysis {
  const known = [...SYMPTOMS, { name: IMPLEMENTATION_FAILURE, meaning: IMPLEMENTATION_FAILURE_MEANING }];
  const rows = new Map<string, SymptomRow>(known.map((s) => [normalizeLabel(s.name), { label: s.name, meaning: s.meaning, primary: 0, secondary: 0 }]));
  let labeledTasks = 0;
  for (const t of failed) {
    const labels = labelsOf(t, JUDGES.symptoms);
    if (labels.length === 0) continue;
    labeledTasks++;
    for (const l of labels) {
      const key = normalizeLabel(l.label);
      const row = rows.get(key) ?? { label: l.label, meaning: null, primary: 0, secondary: 0 };
      if (l.isPrimary) row.primary++;
      else row.secondary++;
      rows.set(key, row);
    }
  }
  return { failedTasks: failed.length, labeledTasks, rows: [...rows.values()] };
}

/** Precision and recall from counts on the held-out split. */
function calibrationFrom(counts: { cases: number; tp: number; fp: number; fn: number } | undefined, model?: string): DetectorCalibration | null {
  if (!counts) return null;
  const { cases, tp, fp, fn } = counts;
  return {
    split: 'test',
    ...(model ? { model } : {}),
    cases,
    tp,
    fp,
    fn,
    precision: tp + fp > 0 ? tp / (tp + fp) : null,
    recall: tp + fn > 0 ? tp / (tp + fn) : null,
  };
}

/** The held-out split's figures of a detector label, from the stored calibration scores. */
function calibrationOf(label: string, stored: StoredScores | undefined): DetectorCalibration | null {
  const test = stored?.splits.test;
  const row = test?.labels.find((l) => l.label === label);
  return calibrationFrom(test && row ? { cases: test.cases, ...row } : undefined);
}

/** A judge's figures per label (by key), when every one of these labels came from one measured model. */
function judgeTrust(labels: readonly LabelView[], judge: string, measurements: readonly ModelMeasurement[], key: (label: string) => string): JudgeTrust | null {
  const [model, ...others] = new Set(labels.map((l) => l.model));
  const test = model !== undefined && others.length === 0 ? modelTestScores(measurements, judge, model) : undefined;
  if (!test) return null;
  return {
    model,
    cases: test.cases,
    labels: Object.fromEntries(test.labels.map((row) => [key(row.label), calibrationFrom({ cases: test.cases, ...row }, model)!])),
  };
}

function definitionText(label: string): string | null {
  const d = DETECTORS.find((x) => x.id === label);
  if (!d) return null;
  return d.covers ? `${d.definition} Covers part of ${d.covers.label}; leaves ${d.covers.leavesOut}.` : d.definition;
}

/**
 * The detectors' labels, then the commitments judge's (the model reads the promises, the detectors'
 * checks decide): its calibration depends on the judge model, so it comes from that model's stored
 * measurement (model-scores.ts), not from the detectors' figures.
 */
function detectorRows(tasks: TaskOutcome[], judgeCalibration: readonly ModelMeasurement[]): DetectorRow[] {
  const stored = readStoredScores();
  return [JUDGES.detectors, JUDGES.commitments].flatMap((judge) => {
    const labels = tasks.flatMap((t) => labelsOf(t, judge));
    return [...new Set(labels.map((l) => undecidedOf(l.label) ?? l.label))].sort().map((label) =>
      detectorRow(
        tasks,
        judge,
        label,
        judge === JUDGES.commitments
          ? (judgeTrust(
              labels.filter((l) => l.label === label),
              judge,
              judgeCalibration,
              (l) => l,
            )?.labels[label] ?? null)
          : calibrationOf(label, stored),
      ),
    );
  });
}

function detectorRow(tasks: TaskOutcome[], judge: string, label: string, calibration: DetectorCalibration | null): DetectorRow {
  const has = (t: TaskOutcome) => labelsOf(t, judge).some((l) => l.label === label);
  const unsure = (t: TaskOutcome) => !has(t) && labelsOf(t, judge).some((l) => l.label === undecidedLabel(label));
  const withLabel = tasks.filter(has);
  const without = tasks.filter((t) => !has(t) && !unsure(t));
  const success = (list: TaskOutcome[]) =>
    rate(
      countWhere(list, (t) => t.passed === true),
      list.length,
    );
  const conflict = (list: TaskOutcome[]) => {
    const merged = list.filter((t) => t.naiveClean !== null && t.mergeStatus !== 'missing_input');
    return rate(
      countWhere(merged, (t) => t.naiveClean === false),
      merged.length,
    );
  };
  const byModel = judge === JUDGES.commitments;
  return {
    judge,
    label: byModel ? `${label} (promises read by the judge model)` : label,
    definition: definitionText(label),
    calibration,
    tasks: withLabel.length,
    undecided: countWhere(tasks, unsure),
    successWith: success(withLabel),
    successWithout: success(without),
    conflictWith: conflict(withLabel),
    conflictWithout: conflict(without),
  };
}
