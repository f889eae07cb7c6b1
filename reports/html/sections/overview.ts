// The run at a glance: status, task counts, unfinished tasks, and what the report cannot show.
import { configLabel, type RunSummary } from '../../summary.ts';
import { escapeHtml } from '../escape.ts';
import { integer } from '../format.ts';
import { note, num, section, table, taskLink, warning } from '../markup.ts';
import { cacheSummaryLine } from '../../cache-count.ts';
import { runModelText } from '../../run-models.ts';

const LISTED_UNFINISHED = 20;

/** What is missing from the run, in one sentence each: every section says it again where it matters. */
export function gaps(s: RunSummary): string[] {
  const conditions = s.headline.conditions;
  const gaps: string[] = [];
  if (s.taskCounts.done === 0) gaps.push('No task has finished yet.');
  if (!conditions.some((c) => c.startsWith('Solo')))
    gaps.push('No Solo results: the coordination gap, difficulty curves and retention need Solo runs of the same pairs (coop-bench run --setting both).');
  if (!conditions.some((c) => c.startsWith('Coop'))) gaps.push('No Coop results: nothing about cooperation can be shown.');
  if (Object.keys(s.communication.labelCounts).length === 0)
    gaps.push('No judge labels: communication errors, failure symptoms and speech acts are not available until the judges run.');
  if (s.communication.teams.length > 0 && !s.communication.teams.some((t) => t.messages > 0))
    gaps.push('No messages were exchanged in Coop tasks with messaging.');
  if (!s.cost.some((c) => c.modelCalls > 0)) gaps.push('No model calls were recorded (oracle and noop agents call no model): cost and tokens are zero.');
  const unfinished = s.unfinished.length;
  if (unfinished > 0) gaps.push(`${unfinished} task(s) did not finish; rates count finished tasks only (each rate says how many it leaves out, and why).`);
  const harness = s.unfinished.filter((t) => t.errorKind === 'harness').length;
  if (harness > 0) gaps.push(`${harness} task(s) failed because of coop-bench itself (a bug): they are left out of the rates; please report them.`);
  const pool = s.unfinished.filter((t) => t.errorKind === 'pool').length;
  if (pool > 0)
    gaps.push(
      `${pool} task(s) could not run because their pool is defective (each error names the pool, feature and patch file): they are left out of the rates; fix the pool (coop-bench pools validate) and run again.`,
    );
  for (const m of s.models.filter((m) => m.retiringSoon))
    gaps.push(`${m.model} (${m.spec}) is ${m.status}: a run after that day is refused${m.replacement ? `; its replacement: ${m.replacement}` : ''}.`);
  for (const m of s.models.filter((m) => m.degraded)) gaps.push(`${m.spec} ran degraded: ${m.degraded}.`);
  if (s.agentConfigs.length > 1)
    gaps.push(
      `The tasks ran with ${s.agentConfigs.length} different agent configurations (${s.agentConfigs.map((c) => `${configLabel(c.hash)}: ${c.tasks} tasks`).join('; ')}): the rates pool them.`,
    );
  return gaps;
}

export function overviewSection(s: RunSummary): string {
  const counts = s.taskCounts;
  const statuses = ['done', 'error', 'interrupted', 'running', 'pending'] as const;
  const total = statuses.reduce((n, k) => n + counts[k], 0);
  const status = table([num('tasks'), ...statuses.map(num)], [[integer(total), ...statuses.map((k) => integer(counts[k]))]]);
  const listed = s.unfinished.slice(0, LISTED_UNFINISHED);
  const unfinished =
    listed.length === 0
      ? ''
      : `<h3>Unfinished tasks</h3>${table(
          ['task', 'status', 'why', 'error'],
          listed.map((t) => [
            taskLink(t.id, t.key),
            t.status,
            t.errorKind ?? (t.status === 'pending' || t.status === 'running' ? 'not run' : ''),
            t.error ?? '',
          ]),
        )}${s.unfinished.length > listed.length ? note(`… and ${s.unfinished.length - listed.length} more (see the task list).`) : ''}`;
  const run = s.run;
  return section('overview', 'Overview', [
    `<p class="lead">Run <strong>${escapeHtml(run.name)}</strong>, ${escapeHtml(run.status ?? 'status unknown')}; started ${escapeHtml(run.createdAt ?? '–')}, last updated ${escapeHtml(run.updatedAt ?? '–')}; report written ${escapeHtml(s.generatedAt)}.</p>`,
    s.models.length > 0 ? `<p>Models: ${escapeHtml(s.models.map(runModelText).join('; '))}.</p>` : '',
    `<p>Models and teams: ${escapeHtml(s.headline.teams.map((t) => t.team).join(', ') || '–')}. Conditions: ${escapeHtml(s.headline.conditions.join(', ') || '–')}. Agent configuration: ${escapeHtml(s.agentConfigs.map((c) => configLabel(c.hash)).join(', ') || '–')}.</p>`,
    status,
    `<p id="test-cache">Tests: ${escapeHtml(cacheSummaryLine(s.testCache))}.</p>`,
    ...gaps(s).map(warning),
    unfinished,
  ]);
}
