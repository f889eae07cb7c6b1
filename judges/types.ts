// What every judge reads (one task's conversation, patches, merge and test results) and what it
// returns (labels, each backed by evidence). Judges are pure functions of a JudgeInput, so they
// run the same on a stored task and on a calibration case.

/** `detectors`, or an LLM judge's name (llm/registry.ts lists them all). */
export type JudgeName = string;

/** One message of a task's conversation, as the harness stores it. */
export interface ConversationMessage {
  id: number;
  from: string;
  to: string[];
  message: string;
  sentAt: string;
  /** Per recipient: when the message reached its prompt (null: never delivered). */
  deliveredAt: Record<string, string | null>;
}

export interface AgentPatch {
  agent: string;
  patch: string;
}

export interface JudgeInput {
  conversation: ConversationMessage[];
  patches: AgentPatch[];
  /** Absent when the task never reached the merge. */
  merge?: { status: string; patch: string };
  evaluations: { feature: number; passed: boolean; cause: string | null; output: string }[];
  bothPassed: boolean | null;
}

/** Where a piece of evidence comes from. */
export type EvidenceSource = 'conversation' | 'patch' | 'merged' | 'tests';

/**
 * One piece of evidence, stored as JSON in judge_labels.evidence (a list of these).
 * - quote: text copied verbatim from the source (checked before the label is kept);
 * - absence: code a message promised that the source does not contain (`text` is what is missing);
 * - fact: something a detector established from the record itself (e.g. "no messages were exchanged").
 */
export type Evidence =
  | { kind: 'quote'; source: EvidenceSource; text: string; messageId?: number; agent?: string; file?: string; feature?: number }
  | { kind: 'absence'; source: 'patch' | 'merged'; text: string; note: string; agent?: string; file?: string }
  | { kind: 'fact'; text: string };

export interface JudgeLabel {
  judge: JudgeName;
  label: string;
  /** The failure-symptom judge names one primary symptom; every other label is not primary. */
  isPrimary: boolean;
  /** The message the label is about (speech acts, detectors), or where its first quote is. */
  messageId?: number;
  agent?: string;
  description: string;
  evidence: Evidence[];
}

/**
 * A deterministic detector labels only what it is sure of. What it found but is not sure of it stores
 * under `undecided:<label>`, with the same evidence: counted and shown, never counted as the label.
 */
const UNDECIDED = 'undecided:';
export const undecidedLabel = (label: string): string => `${UNDECIDED}${label}`;
/** The label an undecided label is about, or undefined for a decided label. */
export const undecidedOf = (label: string): string | undefined => (label.startsWith(UNDECIDED) ? label.slice(UNDECIDED.length) : undefined);

/** The label as undecided, with why the detector is not sure of it. */
export function asUndecided(label: JudgeLabel, why: string): JudgeLabel {
  return { ...label, label: undecidedLabel(label.label), evidence: [...label.evidence, { kind: 'fact', text: `undecided: ${why}` }] };
}
