import { describe, expect, it } from 'vitest';
import { checkAnswer, extractCode, type RegionParts } from '../../../resolver/answer-check.ts';

const parts: RegionParts = {
  before: ['\n', 'import sys\n'],
  ours: ['def f(a, b):\n'],
  theirs: ['def f(a, c):\n'],
  after: ['    return a\n', '\n'],
};

describe('checkAnswer', () => {
  it('accepts the excerpt with the region resolved and returns only the resolution', () => {
    expect(checkAnswer(parts, '\nimport sys\ndef f(a, b, c):\n    return a\n\n')).toEqual({ ok: true, resolution: ['def f(a, b, c):'] });
  });

  it('tolerates a code fence with prose, trailing whitespace, and blank edges trimmed by the server', () => {
    const answer = 'Here is the merge:\n```python\nimport sys  \ndef f(a, b, c):\n    return a\n```\nDone.';
    expect(checkAnswer(parts, answer)).toEqual({ ok: true, resolution: ['def f(a, b, c):'] });
  });

  it('accepts an empty resolution (one side deleted the lines)', () => {
    expect(checkAnswer(parts, 'import sys\n    return a\n')).toEqual({ ok: true, resolution: [] });
  });

  it('accepts the resolved block alone, without the context lines (small models often answer so)', () => {
    expect(checkAnswer(parts, 'def f(a, b, c):\n')).toEqual({ ok: true, resolution: ['def f(a, b, c):'] });
    expect(checkAnswer(parts, '```python\ndef f(a, b, c):  \n```')).toEqual({ ok: true, resolution: ['def f(a, b, c):  '] });
  });

  it.each([
    ['', 'empty answer'],
    ['   \n\n', 'empty answer'],
    ['```\n```', 'empty answer'],
    ['import sys\n<<<<<<< patch_1\ndef f(a, b):\n=======\ndef f(a, c):\n>>>>>>> patch_2\n    return a\n', 'conflict markers left in answer (answer line 2)'],
    ['import sys\ndef f(a, b, c):\n=======\n    return a\n', 'conflict markers left in answer (answer line 3)'],
    ['import os\ndef f(a, b, c):\n    return a\n', 'changed text outside the region: context line 1 before the conflict differs'],
    ['import sys\ndef f(a, b, c):\n    return a + 1\n', 'changed text outside the region: context line 1 after the conflict differs'],
    ['import sys\n', 'changed text outside the region: answer is shorter than the context around it'],
    [
      'I am sorry, I cannot resolve this conflict.',
      'changed text outside the region: the answer is neither the excerpt nor a block made of the conflict\'s own words ("I" is not one)',
    ],
    [
      'I am sorry.\nI cannot resolve this conflict.\nReally.\n',
      'changed text outside the region: the answer is neither the excerpt nor a block made of the conflict\'s own words ("I" is not one)',
    ],
    ['def f(a, b, c):\n    return a\n', 'changed text outside the region: context line 1 before the conflict differs'],
    ['import sys\ndef f(a, b, c):\n', 'changed text outside the region: context line 1 after the conflict differs'],
    ['import sys\n\u0001\u0002garbage\n    return a\n', 'garbage: control character U+0001 in answer'],
    ['import sys\na\nb\nc\nd\ne\nf\n    return a\n', 'garbage: resolution has 6 lines, more than both sides together plus 3 (5)'],
  ])('rejects %j: %s', (answer, reason) => {
    expect(checkAnswer(parts, answer)).toEqual({ ok: false, reason });
  });

  it('allows a line of seven "=" that is content of the region (an rst underline)', () => {
    const rst: RegionParts = { before: ['Title\n'], ours: ['=======\n', 'a\n'], theirs: ['=======\n', 'b\n'], after: [] };
    expect(checkAnswer(rst, 'Title\n=======\na b\n')).toEqual({ ok: true, resolution: ['=======', 'a b'] });
  });
});

describe('extractCode', () => {
  it('takes the first fenced block, any fence length', () => {
    expect(extractCode('x\n````js\na\n```\nb\n````\ny')).toBe('a\n```\nb\n');
    expect(extractCode('~~~\nq\n~~~')).toBe('q\n');
    expect(extractCode('no fence\r\n')).toBe('no fence\n');
  });
});
