// The end-of-run summary, computed from the store so it covers tasks finished by earlier attempts too.
// Beside each rate: the tasks left out of it and why, and the scored tasks in which an agent did not
// end by calling finish.
import type { RunStore, TaskErrorKind } from '../store/run-store.ts';
import { readRunLog } from '../store/run-log.ts';
import { teamName } from '../../tasks/types.ts';
import { MERGE_STATUSES, REPAIRED_PATCH_ATTEMPT, orderEffect, passesAfterStructural } from '../../resolver/index.ts';
import type { EvaluationResult } from './types.ts';
import type { AgentModel } from '../agents/registry.ts';
import { repairedPatchSentence } from '../../reports/analysis/repaired-patches.ts';

export interface SettingSummary {
  models: string;
  setting: string;
  tasks: number;
  done: number;
  bothPassed: number;
  /** Tasks that did not finish, by why: not in the rate. */
  excluded: Record<TaskErrorKind, number>;
  pending: number;
  /** Finished tasks in which an agent ended otherwise than by finish, by how (a task once per way). */
  agentEndings: Record<string, number>;
  /** Finished tasks per merge status (MERGE_STATUSES). */
  merge: Record<string, number>;
  /** Union-merged tasks whose other union order was tested, and those whose outcome it changed. */
  order: { measured: number; decided: number };
  /** Coop tasks whose tests pass on the naive merge's code or, where it conflicted, the structural merge's (a probe), of those measured. */
  structural: { measured: number; passed: number; unmeasured: number };
  /** Failed tasks (finished, not both passing) that have a repaired-patch attempt, and those whose tests pass in it. */
  repaired: { tried: number; passed: number };
  /** Agent configuration hashes of the finished tasks. */
  agentConfigs: string[];
}

export function summarize(store: RunStore): SettingSummary[] {
  const groups = new Map<string, SettingSummary>();
  for (const row of readRunLog(store).tasks) {
    const models = teamName(row.models);
    const setting = row.variant ? `${row.setting}-${row.variant}` : row.setting;
    const key = `${models}|${setting}`;
    let s = groups.get(key);
    if (!s) {
      s = {
        models,
        setting,
        tasks: 0,
        done: 0,
        bothPassed: 0,
        excluded: { infrastructure: 0, harness: 0, pool: 0, interrupted: 0 },
        pending: 0,
        agentEndings: {},
        merge: Object.fromEntries(MERGE_STATUSES.map((m) => [m, 0])),
        order: { measured: 0, decided: 0 },
        structural: { measured: 0, passed: 0, unmeasured: 0 },
        repaired: { tried: 0, passed: 0 },
        agentConfigs: [],
      };
      groups.set(key, s);
    }
    s.tasks++;
    if (row.status === 'done') {
      s.done++;
      if (row.bothPassed) s.bothPassed++;
      if (row.setting === 'coop' && row.mergeStatus) s.merge[row.mergeStatus] = (s.merge[row.mergeStatus] ?? 0) + 1;
      const effect = row.setting === 'coop' ? orderEffect(row.attempts) : undefined;
      if (effect === 'decided' || effect === 'same') s.order.measured++;
      if (effect === 'decided') s.order.decided++;
      const structural = row.setting === 'coop' ? passesAfterStructural(row.attempts) : undefined;
      if (typeof structural === 'boolean') s.structural.measured++;
      if (structural === true) s.structural.passed++;
      if (structural === 'unmeasured') s.structural.unmeasured++;
      const repaired = row.attempts.find((a) => a.stage === REPAIRED_PATCH_ATTEMPT);
      if (repaired && !row.bothPassed) {
        s.repaired.tried++;
        if (repaired.passed === true) s.repaired.passed++;
      }
      for (const ending of new Set(row.agentEndings)) if (ending !== 'finished') s.agentEndings[ending] = (s.agentEndings[ending] ?? 0) + 1;
      if (row.agentConfig && !s.agentConfigs.includes(row.agentConfig)) s.agentConfigs.push(row.agentConfig);
    } else if (row.status === 'error' || row.status === 'interrupted') {
      s.excluded[row.errorKind ?? (row.status === 'interrupted' ? 'interrupted' : 'harness')]++;
    } else s.pending++;
  }
  return [...groups.values()];
}

/** `5/7 (71.4%)`, with the tasks whose structural merge was not built (older runs, --no-order-probe). */
function structuralText({ measured, passed, unmeasured }: SettingSummary['structural']): string {
  const rate = measured > 0 ? `${passed}/${measured} (${pct(passed, measured)})` : '-';
  return unmeasured > 0 ? `${rate}, ${unmeasured} not measured` : rate;
}

const pct = (k: number, n: number) => (n === 0 ? '-' : `${((100 * k) / n).toFixed(1)}%`);

/** `0`, or `3 (infrastructure 2, harness 1)`. */
function counted(counts: Record<string, number>): string {
  const parts = Object.entries(counts).filter(([, n]) => n > 0);
  const total = parts.reduce((sum, [, n]) => sum + n, 0);
  return total === 0 ? '0' : `${total} (${parts.map(([kind, n]) => `${kind} ${n}`).join(', ')})`;
}

/**
 * The model id each spec ran beside the spec (`claude = anthropic claude-sonnet-5-5`), with its
 * status on the run's date; a model retiring soon and an agent CLI run degraded are flagged.
 */
export function modelLines(models: AgentModel[]): string[] {
  const described = models.filter((m) => m.model !== undefined);
  if (described.length === 0) return [];
  const lines = [`models: ${described.map((m) => `${m.spec} = ${m.provider} ${m.model} (${m.status}${m.degraded ? ', degraded' : ''})`).join('; ')}`];
  for (const m of described.filter((m) => m.retiringSoon)) {
    lines.push(`warning: ${m.model} (${m.spec}) is ${m.status}: a run after that day is refused; its replacement: ${m.replacement ?? 'see coop-bench models'}`);
  }
  for (const m of described.filter((m) => m.degraded)) lines.push(`degraded: ${m.spec}: ${m.degraded}`);
  return lines;
}

export function formatSummary(runName: string, summaries: SettingSummary[], models: AgentModel[] = []): string {
  const lines = [`Run ${runName}`];
  const header = [
    'models',
    'setting',
    'pairs',
    'done',
    'both pass',
    'excluded (why)',
    'not run',
    'agent endings (scored)',
    `merge ${MERGE_STATUSES.join('/')}`,
    'union order decided',
    'pass after structural',
  ];
  const coop = (s: SettingSummary) => s.setting.startsWith('coop');
  const table = summaries.map((s) => [
    s.models,
    s.setting,
    String(s.tasks),
    String(s.done),
    `${s.bothPassed}/${s.done} (${pct(s.bothPassed, s.done)})`,
    counted(s.excluded),
    String(s.pending),
    counted(s.agentEndings),
    coop(s) ? MERGE_STATUSES.map((m) => s.merge[m] ?? 0).join('/') : '-',
    coop(s) && s.order.measured > 0 ? `${s.order.decided}/${s.order.measured}` : '-',
    coop(s) ? structuralText(s.structural) : '-',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
  const format = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  lines.push(format(header), format(widths.map((w) => '-'.repeat(w))), ...table.map(format), ...modelLines(models));
  const excluded = summaries.reduce((n, s) => n + Object.values(s.excluded).reduce((sum, k) => sum + k, 0) + s.pending, 0);
  if (excluded > 0)
    lines.push(`both pass counts finished tasks only: ${excluded} task(s) are left out (see excluded, not run); run the same command again to retry them`);
  if (summaries.some((s) => s.excluded.harness > 0)) lines.push("excluded as harness: a coop-bench bug ended the task; please report it with the task's error");
  if (summaries.some((s) => s.excluded.pool > 0))
    lines.push(
      "excluded as pool: the task's pool is defective (its error names the pool, feature and patch file); fix the pool (coop-bench pools validate <pool folder>) and run again",
    );
  if (summaries.some((s) => (s.agentEndings.model_rejected ?? 0) > 0))
    lines.push("model_rejected: the provider refused a request of the agent (scored as the agent's failure); check its trajectory");
  if (summaries.some((s) => (s.agentEndings.refused ?? 0) > 0))
    lines.push("refused: the model declined to go on, on its provider's safety policy (scored as the agent's failure); its trajectory has the last answer");
  const sum = (count: (s: SettingSummary) => number) => summaries.reduce((n, s) => n + count(s), 0);
  const repaired = repairedPatchSentence({
    failures: sum((s) => s.done - s.bothPassed),
    tried: sum((s) => s.repaired.tried),
    passed: sum((s) => s.repaired.passed),
  });
  if (repaired) lines.push(repaired);
  const configs = [...new Set(summaries.flatMap((s) => s.agentConfigs))];
  if (configs.length > 0)
    lines.push(
      `agent configuration ${configs.map((c) => c.slice(0, 12)).join(', ')}${configs.length > 1 ? ': tasks of different configurations are pooled here' : ''}`,
    );
  return lines.join('\n');
}

/** The merge part of a task's progress line; none in Solo, where nothing is merged. */
export function mergeProgress(setting: string, result: EvaluationResult): string | undefined {
  if (setting !== 'coop') return undefined;
  const effect = orderEffect(result.attempts.map((a) => ({ stage: a.stage, outcome: a.outcome, passed: a.tested?.passed })));
  return `merge ${result.merge.status}${effect === 'decided' ? ', the other union order gives the other outcome' : ''}`;
}
