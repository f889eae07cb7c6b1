// Belief probes: reading an answer, what a patch touches, and the scores of a hand-built task.
import { describe, expect, it } from 'vitest';
import { parseBelief, scoreProbes, setScore, touchedBy, type StoredProbe } from '../../../reports/analysis/probes.ts';

const PY_PATCH = [
  'diff --git a/src/cache.py b/src/cache.py',
  '--- a/src/cache.py',
  '+++ b/src/cache.py',
  '@@ -10,3 +10,6 @@ class Cache:',
  '     def get(self, key):',
  '         return self.items[key]',
  '+',
  '+    def evict(self, key):',
  '+        del self.items[key]',
  '@@ -30,2 +33,2 @@ def flush(self):',
  '-    self.items = {}',
  '+    self.items.clear()',
  'diff --git a/README.md b/README.md',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/README.md',
  '@@ -0,0 +1 @@',
  '+# cache',
  '',
].join('\n');

describe('parseBelief', () => {
  it('reads a JSON object, bare or fenced, and names paths and functions as a patch does', () => {
    const text =
      'Here it is:\n```json\n{"files": ["./src/cache.py", "b/README.md"], "functions": ["Cache.evict()", "flush"], "conflict": true, "confidence": 0.8}\n```';
    expect(parseBelief(text)).toEqual({ belief: { files: ['README.md', 'src/cache.py'], functions: ['evict', 'flush'], conflict: true, confidence: 0.8 } });
  });

  it('calls an answer unparsable, and says why, when it is not the asked JSON', () => {
    expect(parseBelief('I think they work on the cache.')).toEqual({ unparsable: 'the answer holds no JSON object' });
    expect(parseBelief('{"files": [], "functions": [], "conflict": "maybe", "confidence": 0.5}')).toMatchObject({
      unparsable: expect.stringContaining('conflict'),
    });
    expect(parseBelief('{"files": [], "functions": [], "conflict": false, "confidence": 3}')).toMatchObject({
      unparsable: expect.stringContaining('confidence'),
    });
    expect(parseBelief('{"files": [}')).toMatchObject({ unparsable: expect.stringContaining('not valid JSON') });
    expect(parseBelief(`{"files": ["${'a'.repeat(20_000)}"]}`)).toMatchObject({ unparsable: expect.stringContaining('longer than') });
  });
});

describe('touchedBy', () => {
  it('names the files of a patch and the functions its hunks sit in or declare', () => {
    expect(touchedBy(PY_PATCH)).toEqual({ files: ['README.md', 'src/cache.py'], functions: ['Cache', 'evict', 'flush'] });
  });

  it('takes no control word for a function, and nothing from an empty patch', () => {
    const js = 'diff --git a/a.js b/a.js\n--- a/a.js\n+++ b/a.js\n@@ -1 +1,3 @@ function run() {\n-x\n+if (y) {\n+  go()\n+}\n';
    expect(touchedBy(js)).toEqual({ files: ['a.js'], functions: ['run'] });
    expect(touchedBy('')).toEqual({ files: [], functions: [] });
  });
});

describe('setScore', () => {
  it('gives precision, recall and Jaccard of named against touched', () => {
    expect(setScore(['a', 'b'], ['b', 'c', 'd'])).toEqual({ precision: 0.5, recall: 1 / 3, jaccard: 0.25 });
    expect(setScore([], ['a'])).toEqual({ precision: null, recall: 0, jaccard: 0 });
    expect(setScore([], [])).toEqual({ precision: null, recall: null, jaccard: 1 });
  });
});

describe('scoreProbes', () => {
  const probe = (over: Partial<StoredProbe>): StoredProbe => ({
    agentId: 'agent1',
    model: 'm',
    step: 2,
    status: 'answered',
    belief: { files: ['src/cache.py'], functions: ['evict'], conflict: false, confidence: 0.6 },
    partnersThen: { files: ['src/cache.py'], functions: ['Cache', 'evict'] },
    costUsd: 0.01,
    inputTokens: 100,
    outputTokens: 20,
    ...over,
  });

  it("scores each belief against the partner's patch then and at the end, and the conflict call against the merge", () => {
    const [early, late, unparsable] = scoreProbes({
      agents: [
        { agentId: 'agent1', patch: '' },
        { agentId: 'agent2', patch: PY_PATCH },
      ],
      conflicted: true,
      probes: [
        probe({}),
        probe({
          step: 4,
          belief: { files: ['src/cache.py', 'README.md'], functions: ['evict', 'flush', 'Cache'], conflict: true, confidence: 1 },
          partnersThen: { files: ['src/cache.py'], functions: ['evict'] },
        }),
        probe({ step: 6, status: 'unparsable', belief: null }),
      ],
    });
    expect(early).toMatchObject({ step: 2, confidence: 0.6, conflictRight: false });
    expect(early!.now).toEqual({ files: { precision: 1, recall: 1, jaccard: 1 }, functions: { precision: 1, recall: 0.5, jaccard: 0.5 } });
    expect(early!.final).toEqual({ files: { precision: 1, recall: 0.5, jaccard: 0.5 }, functions: { precision: 1, recall: 1 / 3, jaccard: 1 / 3 } });
    expect(late!.final).toEqual({ files: { precision: 1, recall: 1, jaccard: 1 }, functions: { precision: 1, recall: 1, jaccard: 1 } });
    expect(late!.now!.files).toEqual({ precision: 0.5, recall: 1, jaccard: 0.5 });
    expect(late!.conflictRight).toBe(true);
    expect(unparsable).toMatchObject({ status: 'unparsable', now: null, final: null, conflictRight: null, confidence: null });
  });

  it('leaves the conflict call unscored without a merge', () => {
    const [p] = scoreProbes({
      agents: [
        { agentId: 'agent1', patch: '' },
        { agentId: 'agent2', patch: '' },
      ],
      conflicted: null,
      probes: [probe({})],
    });
    expect(p!.conflictRight).toBeNull();
  });
});
