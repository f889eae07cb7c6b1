// The task list: one row per task, each linking to its page.
import type { TaskOutcome } from '../../run-data.ts';
import { conditionOf } from '../../analysis/conditions.ts';
import { escapeHtml } from '../escape.ts';
import { note, num, section, table, taskLink, trusted } from '../markup.ts';

function result(t: TaskOutcome) {
  if (t.passed === null) return trusted(`<span class="note">${escapeHtml(t.status)}</span>`);
  const { cached, total } = t.testRuns;
  const mark =
    cached > 0
      ? ` <span class="cached" title="${cached} of ${total} test results from the test cache">cached${cached < total ? ` ${cached}/${total}` : ''}</span>`
      : '';
  return trusted(`${t.passed ? '<span class="pass">passed</span>' : '<span class="fail">failed</span>'}${mark}`);
}

export function tasksSection(tasks: TaskOutcome[]): string {
  if (tasks.length === 0) return section('tasks', 'Tasks', [note('This run has no tasks.')]);
  const rows = tasks.map((t) => [
    taskLink(t.id, String(t.id)),
    t.pair,
    t.team,
    conditionOf(t),
    result(t),
    t.mergeStatus ?? '–',
    t.messages,
    t.steps,
    t.labels.length,
  ]);
  return section('tasks', 'Tasks', [
    note('Open a task for both agents\u2019 steps and messages on one timeline, their patches, the merged diff, test output and judge labels.'),
    '<input id="task-filter" type="search" placeholder="Filter tasks (pair, model, condition, result…)" aria-label="Filter tasks">',
    table([num('#'), 'pair', 'model', 'condition', 'result', 'merge', num('messages'), num('steps'), num('labels')], rows, {
      className: 'task-index',
      bodyId: 'task-rows',
    }),
  ]);
}
