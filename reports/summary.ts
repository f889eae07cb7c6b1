// Every statistic of a run's report, computed once and shared by the HTML, JSON and CSV outputs.
import type { TaskStatus } from './records.ts';
import type { RunData, RunInfo, TaskOutcome } from './run-data.ts';
import { headline, type Headline } from './analysis/headline.ts';
import { difficultyAnalysis, type DifficultyAnalysis } from './analysis/difficulty.ts';
import { mergeAnalysis, type MergeAnalysis } from './analysis/merges.ts';
import { communicationAnalysis, type CommunicationAnalysis } from './analysis/communication.ts';
import { costRows, type CostRow } from './analysis/cost.ts';
import { repairedPatchCount, type RepairedPatchCount } from './analysis/repaired-patches.ts';
import { totalCount, type CacheCount } from './cache-count.ts';
import { runModels, type RunModel } from './run-models.ts';
import { processRows, type ProcessRow } from './analysis/process-rows.ts';
import { initiativeAnalysis, type InitiativeAnalysis } from './analysis/initiative.ts';
import { probeRows, type ProbeRow } from './analysis/probe-rows.ts';

export interface RunSummary {
  run: RunInfo;
  /** The model id each spec ran, its status on the run's date, and whether it ran degraded. */
  models: RunModel[];
  generatedAt: string;
  taskCounts: Record<TaskStatus, number>;
  /** Tasks that did not finish, with their errors and why. */
  unfinished: Pick<TaskOutcome, 'id' | 'key' | 'status' | 'error' | 'errorKind'>[];
  /** The agent configurations the run's tasks ran with (hash, tasks); more than one: results are pooled. */
  agentConfigs: { hash: string; tasks: number }[];
  headline: Headline;
  difficulty: DifficultyAnalysis;
  merges: MergeAnalysis;
  /** Failures that pass with the agents' patches cut by the reference adapters' .strip() repaired (`eval` of an imported run). */
  repairedPatches: RepairedPatchCount;
  communication: CommunicationAnalysis;
  /** How agents worked in Coop, per team and condition. */
  process: ProcessRow[];
  /** Initiative balance per task, team and seat kind (Collaborative Gym's initiative entropy). */
  initiative: InitiativeAnalysis;
  /** Belief-probe accuracy per probed model, condition and step (--probe). */
  probes: ProbeRow[];
  cost: CostRow[];
  /** Feature evaluations of finished tasks, and how many the test cache gave. */
  testCache: CacheCount;
}

export function summarizeRun(data: RunData, generatedAt = new Date()): RunSummary {
  const taskCounts: Record<TaskStatus, number> = { done: 0, error: 0, interrupted: 0, running: 0, pending: 0 };
  for (const t of data.tasks) taskCounts[t.status]++;
  return {
    run: data.run,
    models: runModels(data.run.options),
    generatedAt: generatedAt.toISOString(),
    taskCounts,
    unfinished: data.tasks.filter((t) => t.status !== 'done').map(({ id, key, status, error, errorKind }) => ({ id, key, status, error, errorKind })),
    agentConfigs: agentConfigs(data.tasks),
    headline: headline(data.tasks),
    difficulty: difficultyAnalysis(data.tasks),
    merges: mergeAnalysis(data.tasks),
    repairedPatches: repairedPatchCount(data.tasks),
    communication: communicationAnalysis(data.tasks, data.judgeCalibration),
    process: processRows(data.tasks),
    initiative: initiativeAnalysis(data.tasks),
    probes: probeRows(data.tasks),
    cost: costRows(data.tasks),
    testCache: totalCount(data.tasks.map((t) => t.testRuns)),
  };
}

/** An agent configuration as people read it: a hash shortened, a name (an imported run's agent framework) whole. */
export const configLabel = (id: string): string => (/^[0-9a-f]{16,}$/.test(id) ? id.slice(0, 12) : id);

function agentConfigs(tasks: TaskOutcome[]): { hash: string; tasks: number }[] {
  const counts = new Map<string, number>();
  for (const t of tasks) if (t.agentConfig) counts.set(t.agentConfig, (counts.get(t.agentConfig) ?? 0) + 1);
  return [...counts].map(([hash, n]) => ({ hash, tasks: n }));
}
