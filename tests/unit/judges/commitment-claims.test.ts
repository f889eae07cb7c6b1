// Claims read from the shape of the sentence and of the code it quotes, checked against the code
// (commitment-extract.ts, commitments.ts): parameters named by a keyword argument.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguage } from '../../../judges/detectors/language.ts';
import { conversation, diff, input, judge, targets } from './commitment-fixtures.ts';

beforeAll(async () => {
  await loadLanguage();
});

/** `Batcher.__init__` in batchkit/batcher.py gains the keyword `parameter`. */
const constructorGains = (parameter: string) =>
  diff('batchkit/batcher.py', 1, 1, [
    ' class Batcher:',
    '-    def __init__(self, sink, max_items=100):',
    `+    def __init__(self, sink, max_items=100, ${parameter}=None):`,
    '         self.sink = sink',
  ]);

describe('commitments: a parameter named by a keyword argument', () => {
  const claims = [
    'Done with config. `Batcher(sink, config=BatchConfig(max_items=5))` works; old keyword args unchanged.',
    'Pushed my part:\n- ✓ `config=None` on `__init__`\n- ✓ tests',
    'Env isolation done: `Batcher(sink, config=...)` is passed through to the flusher.',
  ];

  it.each(claims)('is broken when the function has no such parameter: %s', async (claim) => {
    const messages = conversation(['agent1', claim]);
    const patch = constructorGains('cfg');
    const labels = await judge(input(messages, { agent1: patch }, patch));
    expect(labels.map((l) => l.messageId)).toEqual([1]);
    expect(labels[0]!.description).toContain('`config` in `__init__`');
  });

  it.each(claims)('is kept when the function takes it: %s', async (claim) => {
    const patch = constructorGains('config');
    expect(await judge(input(conversation(['agent1', claim]), { agent1: patch }, patch))).toEqual([]);
  });

  it('reads only the top-level keywords of the call, and only where the call is a subject said to work', () => {
    expect(targets(['agent1', '`Batcher(sink, config=BatchConfig(max_items=5))` works fine.'])).toEqual([
      { kind: 'exists', names: ['config'], files: [], scope: '__init__' },
    ]);
    expect(targets(['agent1', 'Good: `fetch_text()` relies on `fetch_json(url, timeout=timeout)`.'])).toEqual([]);
    expect(targets(['agent1', '`fetch_json(url, timeout=5)` no longer works.'])).toEqual([]);
  });
});
