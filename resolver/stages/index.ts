// The merge cascade's stages, in the order they run. A new stage is a file in this folder and one
// line here; the store, the summaries and the reports follow this list.
import { llmStage } from './llm.ts';
import { naiveStage } from './naive.ts';
import { structuralStage } from './structural.ts';
import { unionReversedStage } from './union-reversed.ts';
import { unionStage } from './union.ts';
import type { MergeStage } from './stage.ts';

export const MERGE_STAGES: readonly MergeStage[] = [naiveStage, structuralStage, unionStage, unionReversedStage, llmStage];

export const stageNamed = (name: string): MergeStage | undefined => MERGE_STAGES.find((s) => s.name === name);

/** The paper's cascade: the merge stages, in order. */
export const DEFAULT_CASCADE: readonly string[] = MERGE_STAGES.filter((s) => s.kind === 'merge').map((s) => s.name);

/** Stages a cascade may hold: the merge stages and the probes that can act as one. */
export const CASCADE_STAGES: readonly string[] = MERGE_STAGES.filter((s) => s.kind === 'merge' || s.cascadable).map((s) => s.name);

/**
 * Each stage's role in a cascade of these stages: merge (its code can be the result), probe (a
 * measurement), or absent (not run). Throws an Error saying what is wrong with the list.
 */
export function cascadeRoles(cascade: readonly string[] = DEFAULT_CASCADE): Map<string, 'merge' | 'probe'> {
  const unknown = cascade.filter((name) => !CASCADE_STAGES.includes(name));
  if (unknown.length > 0) throw new Error(`unknown merge stage ${unknown.join(', ')}: the cascade may hold ${CASCADE_STAGES.join(', ')}`);
  if (cascade[0] !== 'naive') throw new Error(`the cascade starts with naive (CooperBench's git merge), e.g. ${DEFAULT_CASCADE.join(',')}`);
  const order = cascade.map((name) => CASCADE_STAGES.indexOf(name));
  if (order.some((k, i) => i > 0 && k <= order[i - 1]!)) throw new Error(`the cascade's stages run in this order, each once: ${CASCADE_STAGES.join(', ')}`);
  const roles = new Map<string, 'merge' | 'probe'>();
  for (const stage of MERGE_STAGES) {
    if (cascade.includes(stage.name)) roles.set(stage.name, 'merge');
    else if (stage.kind === 'probe') roles.set(stage.name, 'probe');
  }
  return roles;
}

/** Statuses of a merge that produced no code. */
export const NO_CODE_STATUSES = ['conflict', 'missing_input'] as const;

/** Every merge status, in cascade order: the statuses of the stages a cascade may hold, then conflict and missing_input. */
export const MERGE_STATUSES: readonly string[] = [...CASCADE_STAGES.map((name) => stageNamed(name)!.status), ...NO_CODE_STATUSES];
