// The merge cascade's stages, in the order they run. A new stage is a file in this folder and one
// line here; the store, the summaries and the reports follow this list.
import { llmStage } from './llm.ts';
import { naiveStage } from './naive.ts';
import { unionReversedStage } from './union-reversed.ts';
import { unionStage } from './union.ts';
import type { MergeStage } from './stage.ts';

export const MERGE_STAGES: readonly MergeStage[] = [naiveStage, unionStage, unionReversedStage, llmStage];

/** Statuses of a merge that produced no code. */
export const NO_CODE_STATUSES = ['conflict', 'missing_input'] as const;

/** Every merge status, in cascade order: the merge stages' statuses, then conflict and missing_input. */
export const MERGE_STATUSES: readonly string[] = [...MERGE_STAGES.filter((s) => s.kind === 'merge').map((s) => s.status), ...NO_CODE_STATUSES];

export const stageNamed = (name: string): MergeStage | undefined => MERGE_STAGES.find((s) => s.name === name);
