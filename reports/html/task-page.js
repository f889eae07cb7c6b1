// Task pages, rendered on demand from the JSON embedded for each task, so that a report of
// thousands of tasks opens at once. Every string in that JSON may have been written by an agent or
// a model: it only ever becomes text nodes, never markup.
(() => {
  'use strict';
  const report = document.getElementById('report');
  const view = document.getElementById('task-view');

  /** An element with text or element children; attributes come from this script only. */
  function h(tag, attributes, children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
    for (const child of children || []) {
      if (child === null || child === undefined || child === false) continue;
      node.append(typeof child === 'object' ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  const section = (title, children) => h('section', { class: 'task-section' }, [h('h2', {}, [title]), ...children]);
  const pre = (text, cls) => h('pre', { class: cls || 'output' }, [text]);
  const table = (head, rows) =>
    h('table', {}, [
      h('thead', {}, [
        h(
          'tr',
          {},
          head.map((c) => h('th', {}, [c])),
        ),
      ]),
      h(
        'tbody',
        {},
        rows.map((r) =>
          h(
            'tr',
            {},
            r.map((c) => h('td', {}, [c])),
          ),
        ),
      ),
    ]);
  const resultText = (passed) => (passed === null ? 'not finished' : passed ? 'passed' : 'failed');

  /** A unified diff with added, removed and hunk lines marked. */
  function diff(text) {
    if (!text) return h('p', { class: 'note' }, ['(empty)']);
    const lines = text.split('\n').map((line) => {
      const cls =
        line.startsWith('+++') || line.startsWith('---')
          ? 'file'
          : line.startsWith('+')
            ? 'add'
            : line.startsWith('-')
              ? 'del'
              : line.startsWith('@@')
                ? 'hunk'
                : '';
      return h('span', cls ? { class: cls } : {}, [line + '\n']);
    });
    return h('pre', { class: 'diff' }, lines);
  }

  function clock(at, start) {
    const ms = Date.parse(at) - start;
    if (!Number.isFinite(ms)) return at;
    const s = Math.max(0, ms) / 1000;
    return `+${Math.floor(s / 60)}:${(s % 60).toFixed(1).padStart(4, '0')}`;
  }

  /** A person's seat (coop-bench play) says so, with their active time; an agent's is a model's. */
  function seatText(a) {
    if (a.seat !== 'human') return 'model';
    const s = Math.round((a.activeMs || 0) / 1000);
    return `person (active ${Math.floor(s / 60)}m ${s % 60}s)`;
  }

  /** Short one-line inputs (most commands) are shown inline, longer ones folded. */
  function stepCell(e) {
    const title = `#${e.idx} ${e.kind}${e.name ? ' ' + e.name : ''}${e.exitCode === null ? '' : ` (exit ${e.exitCode})`}`;
    const inline = e.input !== null && e.input.length <= 160 && !e.input.includes('\n');
    return h('div', { class: 'event step' }, [
      h('div', { class: 'event-title' }, [title, inline ? ' ' : null, inline ? h('code', {}, [e.input]) : null]),
      e.input === null || inline ? null : h('details', {}, [h('summary', {}, ['input']), pre(e.input)]),
      e.output === null ? null : h('details', {}, [h('summary', {}, ['output']), pre(e.output || '(no output)')]),
    ]);
  }

  function messageCell(e) {
    const delivered = Object.entries(e.deliveredAt).map(([to, at]) => `${to}: ${at ? 'delivered ' + at : 'never delivered'}`);
    return h('div', { class: 'event message' }, [
      h('div', { class: 'event-title' }, [`message #${e.id} to ${e.to.join(', ')}`, e.acts.length ? ` · ${e.acts.join(', ')}` : '']),
      pre(e.text, 'message-text'),
      delivered.length ? h('div', { class: 'note' }, [delivered.join('; ')]) : null,
    ]);
  }

  function timeline(t) {
    if (t.timeline.length === 0) return h('p', { class: 'note' }, ['No steps or messages were recorded for this task.']);
    const lanes = [...new Set([...t.agents.map((a) => a.agent), ...t.timeline.map((e) => e.agent)])].sort();
    const start = Math.min(...t.timeline.map((e) => Date.parse(e.at)).filter(Number.isFinite));
    const rows = t.timeline.map((e) =>
      h('tr', { class: e.type }, [
        h('td', { class: 'time', title: e.at }, [clock(e.at, start)]),
        ...lanes.map((lane) => h('td', {}, [lane === e.agent ? (e.type === 'message' ? messageCell(e) : stepCell(e)) : null])),
      ]),
    );
    return h('table', { class: 'timeline' }, [
      h('thead', {}, [h('tr', {}, [h('th', {}, ['time']), ...lanes.map((l) => h('th', {}, [l]))])]),
      h('tbody', {}, rows),
    ]);
  }

  function labels(t) {
    if (t.labels.length === 0) return [h('p', { class: 'note' }, ['No judge labels for this task (the judges have not labelled it).'])];
    const rows = t.labels.map((l) => [
      l.judge,
      l.label,
      l.isPrimary ? 'primary' : '',
      l.agent || '',
      l.messageId === null ? '' : `#${l.messageId}`,
      l.description || '',
      h(
        'ul',
        { class: 'evidence' },
        l.evidence.map((q) => h('li', {}, [h('q', {}, [q])])),
      ),
    ]);
    return [table(['judge', 'label', '', 'agent', 'message', 'description', 'evidence'], rows)];
  }

  function renderTask(t) {
    const merge = t.merge;
    const facts = [
      ['team', t.team],
      ['condition', t.condition],
      ['pair', t.pair],
      ['status', t.status],
      ['result', resultText(t.passed)],
      [
        'merge',
        merge
          ? `${merge.status}${merge.strategy && merge.strategy !== merge.status ? ' (' + merge.strategy + ')' : ''}, ${merge.conflictRegions} naive conflict region(s)`
          : 'none',
      ],
      ['started', t.startedAt || '–'],
      ['finished', t.finishedAt || '–'],
      ['model calls', `${t.usage.calls} calls, ${t.usage.inputTokens} input + ${t.usage.outputTokens} output tokens, $${t.usage.costUsd.toFixed(4)}`],
    ];
    return h('article', { class: 'task-page', 'data-task': String(t.id) }, [
      h('p', {}, [h('a', { href: '#tasks' }, ['← all tasks'])]),
      h('h1', {}, [`Task ${t.id}: `, h('code', {}, [t.key])]),
      h(
        'dl',
        { class: 'facts' },
        facts.flatMap(([k, v]) => [h('dt', {}, [k]), h('dd', {}, [v])]),
      ),
      t.error ? h('p', { class: 'error' }, [`Error: ${t.error}`]) : null,
      t.cuts.length
        ? h(
            'ul',
            { class: 'note cuts' },
            t.cuts.map((c) => h('li', {}, [c])),
          )
        : null,
      section('Agents', [
        table(
          ['agent', 'seat', 'model', 'features', 'status', 'steps', 'error'],
          t.agents.map((a) => [a.agent, seatText(a), a.model, a.features.join(', '), a.status, a.steps, a.error || '']),
        ),
      ]),
      section('Timeline: steps and messages', [timeline(t)]),
      section(
        'Patches',
        t.patches.length ? t.patches.flatMap((p) => [h('h3', {}, [p.agent]), diff(p.patch)]) : [h('p', { class: 'note' }, ['No patches recorded.'])],
      ),
      section(
        'Merged diff',
        merge ? [merge.reason ? h('p', {}, [`Why: ${merge.reason}`]) : null, diff(merge.patch)] : [h('p', { class: 'note' }, ['No merge recorded.'])],
      ),
      section(
        'Tests',
        t.evaluations.length
          ? t.evaluations.flatMap((e) => [
              h('h3', { class: e.passed ? 'pass' : 'fail' }, [
                `feature ${e.feature}: ${e.passed ? 'passed' : 'failed'}`,
                ` (exit ${e.exitCode === null ? '–' : e.exitCode}${e.timedOut ? ', timed out' : ''}${e.testsPassed === null ? '' : `, ${e.testsPassed} passed / ${e.testsFailed} failed`}${e.framework ? ', ' + e.framework : ''}, ${(e.durationMs / 1000).toFixed(1)} s)`,
                e.cached
                  ? h('span', { class: 'cached', title: "the same image, tests and code ran before: the duration is that run's" }, [' from the test cache'])
                  : null,
              ]),
              e.cause ? h('p', {}, [`Cause: ${e.cause}`]) : null,
              pre(e.output),
            ])
          : [h('p', { class: 'note' }, ['No test results recorded.'])],
      ),
      section('Judge labels', labels(t)),
    ]);
  }

  function route() {
    const match = /^#task-(\d+)$/.exec(location.hash);
    if (!match) {
      view.hidden = true;
      view.replaceChildren();
      report.hidden = false;
      const target = location.hash && document.getElementById(location.hash.slice(1));
      if (target) target.scrollIntoView();
      return;
    }
    const data = document.getElementById(`task-data-${match[1]}`);
    view.replaceChildren(data ? renderTask(JSON.parse(data.textContent)) : h('p', {}, [`This report has no task ${match[1]}.`]));
    report.hidden = true;
    view.hidden = false;
    window.scrollTo(0, 0);
  }

  const filter = document.getElementById('task-filter');
  if (filter) {
    filter.addEventListener('input', () => {
      const query = filter.value.trim().toLowerCase();
      for (const row of document.querySelectorAll('#task-rows tr')) row.hidden = query !== '' && !row.textContent.toLowerCase().includes(query);
    });
  }
  window.addEventListener('hashchange', route);
  route();
})();
