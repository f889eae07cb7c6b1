// The files of a run, mirroring CooperBench's logs:
// runs/<name>/logs/<models>/<setting>/<repo>/task<id>/f<i>_f<j>/{agent<N>.patch, agent<N>_traj.json, conversation.json, result.json, eval.json}
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TaskSpec } from '../../tasks/types.ts';
import { featureDirName, teamName } from '../../tasks/types.ts';
import type { AgentResult, EvaluationResult, TaskResult } from '../run/types.ts';

/** Model specs can hold ':' '/' '@' (URLs): keep folder names portable. */
function safeSegment(text: string): string {
  return text.replace(/[^A-Za-z0-9._+-]+/g, '_').replace(/^\.+/, '_');
}

export function taskLogDir(runDir: string, task: TaskSpec): string {
  const setting = task.variant ? `${task.setting}-${task.variant}` : task.setting;
  return join(
    runDir,
    'logs',
    safeSegment(teamName(task.models)),
    setting,
    safeSegment(task.pool.repo),
    `task${task.pool.taskId}`,
    featureDirName(task.features),
  );
}

/** Written next to the target then renamed: a reader never sees half a file. */
function writeAtomic(path: string, content: string): void {
  const staging = `${path}.tmp-${process.pid}`;
  writeFileSync(staging, content);
  renameSync(staging, path);
}

function evalJson(result: EvaluationResult) {
  return {
    both_passed: result.bothPassed,
    merge: {
      status: result.merge.status,
      strategy: result.merge.strategy ?? null,
      reason: result.merge.reason ?? null,
      files: result.merge.files,
      timings_ms: result.merge.timingsMs,
    },
    merge_attempts: result.attempts.map((a) => ({
      stage: a.stage,
      outcome: a.outcome,
      reason: a.reason ?? null,
      patch_hash: a.patchHash ?? null,
      passed: a.tested?.passed ?? null,
      final: a.final,
    })),
    features: result.evaluations.map((e) => ({
      feature: e.feature,
      passed: e.passed,
      exit_code: e.exitCode,
      timed_out: e.timedOut,
      counts: e.counts ?? null,
      cause: e.cause ?? null,
      duration_ms: e.durationMs,
      cached: e.cached === true,
      output: e.output,
    })),
  };
}

export function writeEvaluationFiles(dir: string, result: EvaluationResult): void {
  mkdirSync(dir, { recursive: true });
  writeAtomic(join(dir, 'merged.patch'), result.merge.patch);
  writeAtomic(join(dir, 'eval.json'), JSON.stringify(evalJson(result), null, 2));
}

/** A person's seat (coop-bench play) says so; an agent's files are as they always were. */
function personFields(agent: AgentResult): { seat?: 'human'; active_ms?: number } {
  return agent.person ? { seat: 'human', active_ms: agent.person.activeMs } : {};
}

export function writeTaskFiles(dir: string, task: TaskSpec, result: TaskResult, conversation: unknown[]): void {
  mkdirSync(dir, { recursive: true });
  result.agents.forEach((agent, i) => {
    writeAtomic(join(dir, `agent${i + 1}.patch`), agent.patch);
    writeAtomic(
      join(dir, `agent${i + 1}_traj.json`),
      JSON.stringify(
        {
          agent: agent.agentId,
          model: agent.model,
          features: agent.features,
          status: agent.status,
          error: agent.error ?? null,
          ...personFields(agent),
          steps: agent.steps,
        },
        null,
        2,
      ),
    );
  });
  writeAtomic(join(dir, 'conversation.json'), JSON.stringify(conversation, null, 2));
  writeEvaluationFiles(dir, result);
  writeAtomic(
    join(dir, 'result.json'),
    JSON.stringify(
      {
        repo: task.pool.repo,
        task_id: task.pool.taskId,
        features: task.features,
        setting: task.setting,
        variant: task.variant || null,
        models: task.models,
        image: result.image,
        docker_host: result.dockerHost,
        base_rev: result.baseRev,
        both_passed: result.bothPassed,
        merge_status: result.merge.status,
        agents: result.agents.map((a) => ({
          agent: a.agentId,
          model: a.model,
          features: a.features,
          status: a.status,
          error: a.error ?? null,
          steps: a.steps.length,
          patch_bytes: Buffer.byteLength(a.patch),
          ...personFields(a),
        })),
      },
      null,
      2,
    ),
  );
}
