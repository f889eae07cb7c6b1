// Process measures on hand-built trajectories whose answers are known.
import { describe, expect, it } from 'vitest';
import { addedLines, summarizeProcess, taskProcess, type ProcessMessage, type ProcessStep } from '../../../../reports/analysis/process.ts';

const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const model = (s: number): ProcessStep => ({ at: t(s), kind: 'model' });
const bash = (s: number): ProcessStep => ({ at: t(s), kind: 'tool', name: 'bash', input: { command: 'ls' } });
const send = (s: number): ProcessStep => ({ at: t(s), kind: 'tool', name: 'send_message', input: { to: 'agent2', message: 'plan' } });
const create = (s: number, path: string, fileText: string): ProcessStep => ({
  at: t(s),
  kind: 'tool',
  name: 'str_replace_based_edit_tool',
  input: JSON.stringify({ command: 'create', path, file_text: fileText }),
});
const replace = (s: number, path: string, newStr: string): ProcessStep => ({
  at: t(s),
  kind: 'tool',
  name: 'str_replace_based_edit_tool',
  input: { command: 'str_replace', path, old_str: 'x', new_str: newStr },
});
const view = (s: number, path: string): ProcessStep => ({ at: t(s), kind: 'tool', name: 'str_replace_based_edit_tool', input: { command: 'view', path } });

const patchOf = (path: string, lines: string[]) =>
  `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -1 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}\n`;
const message = (from: string, to: string, sent: number, delivered: number | null): ProcessMessage => ({
  from,
  to: [to],
  sentAt: t(sent),
  deliveredAt: { [to]: delivered === null ? null : t(delivered) },
});

describe('process measures of one Coop task', () => {
  // agent1: looks around, messages, then edits src/a.py three times; only two edits survive.
  const agent1 = {
    agentId: 'agent1',
    steps: [
      model(0),
      bash(1),
      view(2, 'src/a.py'),
      model(3),
      send(4),
      model(5),
      create(10, '/workspace/repo/src/a.py', 'def a():\n    return 1\n'),
      replace(20, 'src/a.py', '    return 2'),
      replace(30, 'src/tmp.py', 'scratch = True'),
    ],
    patch: patchOf('src/a.py', ['def a():', '    return 2']),
  };
  // agent2: edits first (src/b.py), then src/a.py at 40 s: the first collision.
  const agent2 = {
    agentId: 'agent2',
    steps: [model(1), create(6, 'src/b.py', 'b = 1\n'), model(7), send(8), replace(40, 'src/a.py', 'helper = 3')],
    patch: `${patchOf('src/b.py', ['b = 1'])}${patchOf('src/a.py', ['helper = 3'])}`,
  };
  const messages = [
    message('agent2', 'agent1', 3, 5),
    message('agent1', 'agent2', 9, 12),
    message('agent2', 'agent1', 20, 21),
    message('agent2', 'agent1', 50, null),
  ];
  const measured = taskProcess({ taskId: 7, agents: [agent1, agent2], messages });

  it('edit efficiency: edits whose added lines are in the final patch, over all edits', () => {
    expect(measured.agents.map((a) => [a.agentId, a.edits, a.editEfficiency])).toEqual([
      ['agent1', 3, 2 / 3],
      ['agent2', 2, 1],
    ]);
  });

  it('steps before the first message and the first edit: tool calls made before them', () => {
    expect(measured.agents.map((a) => [a.stepsBeforeFirstMessage, a.stepsBeforeFirstEdit])).toEqual([
      [2, 3],
      [1, 0],
    ]);
  });

  it('who wrote first, the share of deliveries answered and the median delay from delivery to answer', () => {
    expect(measured.firstMessageBy).toBe('agent2');
    // agent2→agent1 at 3 (delivered 5) is answered at 9: 4 s. agent1→agent2 (delivered 12) answered at 20: 8 s.
    // agent2→agent1 at 20 (delivered 21) gets no answer; the last one was never delivered.
    expect(measured.replyShare).toBe(2 / 4);
    expect(measured.medianReplySeconds).toBe(6);
  });

  it('overlap over time: both agents had edited src/a.py 40 s after the first step', () => {
    expect(measured.firstCollisionSeconds).toBe(40);
    expect(measured.sharedFiles).toEqual(['src/a.py']);
    expect(measured.overlap.map((o) => [o.seconds, o.files])).toEqual([
      [6, 0],
      [10, 0],
      [20, 0],
      [30, 0],
      [40, 1],
    ]);
  });

  it('a task without messages or edits has no such measures, rather than zeros', () => {
    const quiet = taskProcess({ taskId: 8, agents: [{ agentId: 'agent1', steps: [model(0), bash(1)], patch: '' }], messages: [] });
    expect(quiet).toMatchObject({ firstMessageBy: null, replyShare: null, medianReplySeconds: null, firstCollisionSeconds: null, sharedFiles: [] });
    expect(quiet.agents[0]).toEqual({
      agentId: 'agent1',
      edits: 0,
      survivingEdits: 0,
      editEfficiency: null,
      stepsBeforeFirstMessage: null,
      stepsBeforeFirstEdit: null,
    });
  });

  it('summarizes a group of tasks', () => {
    const quiet = taskProcess({ taskId: 8, agents: [{ agentId: 'agent1', steps: [model(0)], patch: '' }], messages: [] });
    expect(summarizeProcess([measured, quiet])).toMatchObject({
      tasks: 2,
      survivingEdits: { k: 4, n: 5 },
      medianStepsBeforeFirstMessage: 1.5,
      medianStepsBeforeFirstEdit: 1.5,
      firstMessageBy: { agent2: 1 },
      answered: { k: 2, n: 4 },
      medianReplySeconds: 6,
      collided: { k: 1, n: 2 },
      medianFirstCollisionSeconds: 40,
    });
  });
});

describe('added lines of a patch', () => {
  it('keeps each file’s added lines, leaving deleted files and blank lines out', () => {
    const patch = `${patchOf('a.txt', ['one', '', 'two'])}diff --git a/gone.txt b/gone.txt\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n`;
    expect([...addedLines(patch)].map(([f, l]) => [f, [...l]])).toEqual([['a.txt', ['one', 'two']]]);
  });
});
