// Belief-probe accuracy over time (probes.ts), per probed agent's model and condition: one row per
// probe step over the run's finished Coop tasks.
import type { TaskOutcome } from '../run-data.ts';
import { proportion, type Proportion } from '../stats.ts';
import { compareConditions, conditionOf, groupBy, isDone } from './conditions.ts';
import type { ScoredProbe } from './probes.ts';

export interface ProbeRow {
  model: string;
  condition: string;
  /** Steps the agents had taken when asked. */
  step: number;
  probes: number;
  unparsable: number;
  /** Probe calls that failed (no answer). */
  failed: number;
  /** Mean Jaccard of files and functions named against the partners' patches then, and at the end; null without beliefs. */
  filesNow: number | null;
  functionsNow: number | null;
  filesFinal: number | null;
  functionsFinal: number | null;
  /** Beliefs whose conflict prediction matched the merge, of those with a merge. */
  conflictRight: Proportion | null;
  meanConfidence: number | null;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
}

const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

export function probeRows(tasks: TaskOutcome[]): ProbeRow[] {
  const probes = tasks.filter((t) => isDone(t) && t.setting === 'coop').flatMap((t) => (t.probes ?? []).map((p) => ({ p, condition: conditionOf(t) })));
  const groups = groupBy(probes, ({ p, condition }) => `${p.model}\u0000${condition}\u0000${p.step}`);
  return [...groups]
    .map(([key, group]) => {
      const [model, condition] = key.split('\u0000') as [string, string];
      const ps: ScoredProbe[] = group.map((g) => g.p);
      const scored = ps.filter((p) => p.now && p.final);
      const verdicts = ps.flatMap((p) => (p.conflictRight === null ? [] : [p.conflictRight]));
      return {
        model,
        condition,
        step: ps[0]!.step,
        probes: ps.length,
        unparsable: ps.filter((p) => p.status === 'unparsable').length,
        failed: ps.filter((p) => p.status === 'failed').length,
        filesNow: mean(scored.map((p) => p.now!.files.jaccard)),
        functionsNow: mean(scored.map((p) => p.now!.functions.jaccard)),
        filesFinal: mean(scored.map((p) => p.final!.files.jaccard)),
        functionsFinal: mean(scored.map((p) => p.final!.functions.jaccard)),
        conflictRight: verdicts.length === 0 ? null : proportion(verdicts.filter(Boolean).length, verdicts.length),
        meanConfidence: mean(ps.flatMap((p) => (p.confidence === null ? [] : [p.confidence]))),
        costUsd: ps.reduce((s, p) => s + p.costUsd, 0),
        inputTokens: ps.reduce((s, p) => s + p.inputTokens, 0),
        outputTokens: ps.reduce((s, p) => s + p.outputTokens, 0),
      };
    })
    .sort((a, b) => a.model.localeCompare(b.model) || compareConditions(a.condition, b.condition) || a.step - b.step);
}
