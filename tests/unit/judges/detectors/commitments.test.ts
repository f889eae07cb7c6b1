import { beforeAll, describe, expect, it } from 'vitest';
import { extractCommitments } from '../../../../judges/detectors/commitment-extract.ts';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { conversation, diff, input, judge, newFile } from './commitment-fixtures.ts';

beforeAll(async () => {
  await loadLanguage();
});

describe('commitments: what they promise', () => {
  it('extracts the kind and target of promises, claims, boundaries and accepted requests', () => {
    const found = extractCommitments(
      conversation(
        ['agent1', 'I will add bypass check at lines 100–104, happens FIRST in get().'],
        ['agent1', "I'll export `LRUCache` from src/cachekit/__init__.py once the class is done."],
        ['agent1', 'I will NOT edit lines 68–84. My plan is to insert get_image_mimetype() AFTER line 84.'],
        ['agent1', "I won't touch `Session.close()`."],
        ['agent1', 'I’ll add BOTH parameters (fallback_processor and max_batch_size) to the constructor signature.'],
        ['agent2', 'Please export `parse_args` from cli/__init__.py.'],
        ['agent1', 'Sure, will do.'],
        ['agent1', 'If you want, I can add `lru_wrap()` to utils.py.'],
        ['agent1', 'If the tests fail, I will add `retry()` to utils.py.'],
      ),
    );
    expect(found.map((c) => [c.messageId, c.kind, c.target.kind, c.target.names.length ? c.target.names : (c.target.guard ?? c.target.lines)])).toEqual([
      [1, 'promise', 'placement', ['bypass']],
      [2, 'promise', 'exported', ['LRUCache']],
      [3, 'promise', 'untouched_lines', [68, 84]],
      [3, 'promise', 'exists', ['get_image_mimetype']],
      [4, 'promise', 'untouched_symbol', ['Session.close']],
      [5, 'promise', 'exists', ['fallback_processor', 'max_batch_size']],
      [7, 'promise', 'exported', ['parse_args']],
    ]);
    expect(found[0]!.target).toMatchObject({ scope: 'get', position: 'first' });
    expect(found[5]!.target.scope).toBe('__init__');
    expect(found[6]!.request).toMatchObject({ messageId: 6, agent: 'agent2', quote: 'Please export `parse_args` from cli/__init__.py.' });
  });
});

describe('commitments: checked against the code (section 6.3 shapes)', () => {
  it('finds a claimed guard that is not there', async () => {
    const messages = conversation(
      ['agent1', 'I will add bypass check at lines 100–104, happens FIRST in get().'],
      ['agent1', '✓ Added `bypass()` context manager method.'],
    );
    const own = diff('src/cache.py', 98, 98, [
      '     def get(self, key):',
      '+        if self._bypass:',
      '+            return None',
      '         return self._data.get(key)',
    ]);
    const merged = diff('src/cache.py', 98, 98, ['     def get(self, key):', '+        self.stats.lookups += 1', '         return self._data.get(key)']);
    const labels = await judge(input(messages, { agent1: own }, merged));
    expect(labels.map((l) => [l.label, l.messageId])).toEqual([
      ['broken_checkable_commitment', 1],
      ['broken_checkable_commitment', 2],
    ]);
    expect(labels[0]!.evidence[0]).toMatchObject({
      kind: 'quote',
      source: 'conversation',
      text: 'I will add bypass check at lines 100–104, happens FIRST in get().',
    });
    expect(labels[0]!.evidence[1]).toMatchObject({ kind: 'absence', source: 'merged', note: 'no `if` testing `bypass` in `get()` in the merged code' });
  });

  it('accepts the guard where it was promised, and reports it when it is not first', async () => {
    const messages = conversation(['agent1', 'I will add bypass check at lines 100–104, happens FIRST in get().']);
    const first = diff('src/cache.py', 98, 98, [
      '     def get(self, key):',
      '+        if self._bypass:',
      '+            return None',
      '         return self._data.get(key)',
    ]);
    expect(await judge(input(messages, { agent1: first }, first))).toEqual([]);
    const late = diff('src/cache.py', 98, 98, [
      '     def get(self, key):',
      '         value = self._data.get(key)',
      '+        if self._bypass:',
      '+            return None',
      '         return value',
    ]);
    const [label] = await judge(input(messages, { agent1: late }, late));
    expect(label!.evidence[1]).toMatchObject({ kind: 'absence', note: 'a check on bypass is in `get()` (src/cache.py:100) but not its first statement' });
    expect(label!.evidence[2]).toMatchObject({ kind: 'quote', source: 'merged', file: 'src/cache.py', text: 'if self._bypass:' });
  });

  it('finds a claimed export that is not exported (TypeScript and a Python package)', async () => {
    const ts = conversation(['agent1', "I've exported `parseArgs` from src/cli.ts."]);
    const code = newFile('src/cli.ts', ['function parseArgs(argv: string[]) {', '  return argv;', '}']);
    const [label] = await judge(input(ts, { agent1: code }, code));
    expect(label).toMatchObject({ messageId: 1, description: 'agent1 claimed that `parseArgs` is exported from src/cli.ts, which the code does not do' });
    expect(label!.evidence.slice(1)).toEqual([
      {
        kind: 'absence',
        source: 'merged',
        text: 'parseArgs',
        note: '`parseArgs` exists (src/cli.ts:1) but is not exported from src/cli.ts in the merged code',
      },
      { kind: 'quote', source: 'merged', file: 'src/cli.ts', text: 'function parseArgs(argv: string[]) {' },
    ]);
    const exported = newFile('src/cli.ts', ['export function parseArgs(argv: string[]) {', '  return argv;', '}']);
    expect(await judge(input(ts, { agent1: exported }, exported))).toEqual([]);

    const py = conversation(['agent2', 'Please export `LRUCache` from src/cachekit/__init__.py.'], ['agent1', 'Sure, will do.']);
    const lru = newFile('src/cachekit/lru.py', ['class LRUCache:', '    pass']);
    const init = diff('src/cachekit/__init__.py', 1, 1, [' from .cache import Cache', '+from .stats import Stats']);
    const [accepted] = await judge(input(py, { agent1: lru + init }, lru + init));
    expect(accepted).toMatchObject({
      messageId: 2,
      agent: 'agent1',
      description: "agent1 accepted agent2's request that `LRUCache` is exported from src/cachekit/__init__.py, which the code does not do",
    });
    expect(accepted!.evidence[1]).toMatchObject({ kind: 'quote', text: 'Please export `LRUCache` from src/cachekit/__init__.py.', messageId: 1 });
    const kept = diff('src/cachekit/__init__.py', 1, 1, [' from .cache import Cache', '+from .lru import LRUCache']);
    expect(await judge(input(py, { agent1: lru + kept }, lru + kept))).toEqual([]);
  });

  it('finds a promised untouched range that was edited, by the promiser only', async () => {
    const messages = conversation(['agent1', 'I will NOT edit lines 68–84 of llama_index/core/base/llms/types.py.']);
    const edits = diff('llama_index/core/base/llms/types.py', 70, 70, [
      '     def image_to_base64(self):',
      '-        data = self.image',
      '+        data = self.image or b""',
      '         return data',
    ]);
    const [label] = await judge(input(messages, { agent1: edits }, edits));
    expect(label!.description).toBe('agent1 promised to leave lines 68-84 untouched, but its patch changes them');
    expect(label!.evidence.slice(1)).toEqual([
      {
        kind: 'absence',
        source: 'patch',
        agent: 'agent1',
        file: 'llama_index/core/base/llms/types.py',
        text: 'lines 68-84',
        note: "agent1's patch removes line 71 of llama_index/core/base/llms/types.py, inside lines 68-84",
      },
      { kind: 'quote', source: 'patch', agent: 'agent1', file: 'llama_index/core/base/llms/types.py', text: 'data = self.image' },
    ]);
    // An insertion right after the range keeps the promise; the partner's edits are not the promiser's.
    const after = diff('llama_index/core/base/llms/types.py', 84, 84, ['     return data', '+def get_image_mimetype(self):', '+    return None']);
    expect(await judge(input(messages, { agent1: after, agent2: edits }, after))).toEqual([]);
  });

  it('finds an edit inside a symbol the agent promised not to touch', async () => {
    const messages = conversation(['agent1', "I won't touch `Session.close()`."]);
    const edits = diff('src/session.py', 40, 40, [
      '     def close(self):',
      '-        self._pool.close()',
      '+        self._pool.shutdown()',
      '         self._open = False',
    ]);
    const [label] = await judge(input(messages, { agent1: edits }, edits));
    expect(label!.evidence[1]).toMatchObject({ kind: 'absence', note: "agent1's patch adds a line inside `close` (src/session.py:41)" });
    const elsewhere = diff('src/session.py', 60, 60, ['     def open(self):', '+        self._open = True', '         return self']);
    expect(await judge(input(messages, { agent1: elsewhere }, elsewhere))).toEqual([]);
  });

  it('finds a parameter gone from __init__ that is still used in flush()', async () => {
    const messages = conversation(['agent2', '✓Line 26: Added BOTH parameters (fallback_processor and max_batch_size) to constructor signature.']);
    const own = diff('outlines/processors/base.py', 25, 25, [
      '     def __init__(self, tokenizer,',
      '+                 fallback_processor=None, max_batch_size=None):',
      '         self.tokenizer = tokenizer',
    ]);
    const merged = [
      diff('outlines/processors/base.py', 25, 25, [
        '     def __init__(self, tokenizer,',
        '+                 fallback_processor=None):',
        '         self.tokenizer = tokenizer',
      ]),
      diff(
        'outlines/processors/base.py',
        60,
        61,
        ['     def flush(self):', '+        n = self.max_batch_size', '         return n'],
        'class LogitsProcessor:',
      ).replace(/^diff[^\n]*\n---[^\n]*\n\+\+\+[^\n]*\n/, ''),
    ].join('');
    const [label] = await judge(input(messages, { agent2: own }, merged));
    expect(label).toMatchObject({ messageId: 1, description: 'agent2 claimed `max_batch_size` in `__init__`, missing from the code' });
    expect(label!.evidence.slice(1)).toEqual([
      {
        kind: 'absence',
        source: 'merged',
        text: 'max_batch_size',
        note: '`__init__` in the merged code (outlines/processors/base.py:25) has no parameter `max_batch_size`',
      },
      { kind: 'quote', source: 'merged', file: 'outlines/processors/base.py', text: 'def __init__(self, tokenizer,' },
      { kind: 'quote', source: 'merged', file: 'outlines/processors/base.py', text: 'n = self.max_batch_size' },
      { kind: 'fact', text: '`max_batch_size` is still used in flush() at outlines/processors/base.py:62' },
      { kind: 'quote', source: 'patch', agent: 'agent2', file: 'outlines/processors/base.py', text: 'fallback_processor=None, max_batch_size=None):' },
      { kind: 'fact', text: "agent2's patch added it (outlines/processors/base.py:26); it was lost in the merge" },
    ]);
  });

  it('finds a call claimed in one function that sits in another, whatever the wording', async () => {
    const helper = ['+def _read_quoted(text):', '+    return text'];
    const inParse = diff('logfmt/parser.py', 10, 10, [...helper, ' def parse_line(line):', '+    value = _read_quoted(line)', '     return line']);
    const inSplit = diff('logfmt/parser.py', 10, 10, [...helper, ' def split_pairs(line):', '+    value = _read_quoted(line)', '     return line']);
    for (const said of [
      "I'm adding a `_read_quoted()` helper to logfmt/parser.py and calling it from `parse_line()`.",
      'Added `_read_quoted()` to logfmt/parser.py, called from `parse_line()` for quoted values.',
      '`parse_line()` now calls `_read_quoted()`.',
    ]) {
      const messages = conversation(['agent1', said]);
      expect(await judge(input(messages, { agent1: inParse }, inParse)), said).toEqual([]);
      const [label] = await judge(input(messages, { agent1: inSplit }, inSplit));
      expect(label?.evidence[1], said).toMatchObject({
        kind: 'absence',
        note: 'a call to `_read_quoted` is in `split_pairs()` (logfmt/parser.py:13), not in `parse_line()`',
      });
    }
  });

  it('places code of a hunk that starts in one Go function and runs into the next in the right function', async () => {
    const messages = conversation(['agent1', 'The guard `if l.disabled { return true }` sits right after `defer l.mu.Unlock()` in `Allow()`.']);
    const code = diff(
      'limiter.go',
      20,
      20,
      [
        ' \treturn &Limiter{}',
        ' }',
        ' ',
        ' func (l *Limiter) Allow() bool {',
        ' \tl.mu.Lock()',
        ' \tdefer l.mu.Unlock()',
        '+\tif l.disabled {',
        '+\t\treturn true',
        '+\t}',
        ' \treturn false',
      ],
      'func New(rate float64) *Limiter {',
    );
    expect(await judge(input(messages, { agent1: code }, code))).toEqual([]);
    const elsewhere = code.replace('func (l *Limiter) Allow() bool {', 'func (l *Limiter) Take() bool {');
    const [label] = await judge(input(messages, { agent1: elsewhere }, elsewhere));
    expect(label?.evidence[1]).toMatchObject({ kind: 'absence', note: 'a check on disabled is in `Take()` (limiter.go:26), not in `Allow()`' });
  });

  it('finds an edit to a whole file the agent promised to stay out of', async () => {
    const edits = diff('slugkit/slug.py', 10, 10, ['     text = text.lower()', '+    text = text.strip()', '     return text']);
    const words = newFile('slugkit/words.py', ['STOP_WORDS = {"a", "the"}']);
    for (const said of ["I won't edit slug.py, so no overlap.", 'No edits to slugkit/slug.py from me.']) {
      const messages = conversation(['agent1', said]);
      const [label] = await judge(input(messages, { agent1: words + edits }, words + edits));
      expect(label?.evidence.slice(1), said).toEqual([
        {
          kind: 'absence',
          source: 'patch',
          agent: 'agent1',
          file: 'slugkit/slug.py',
          text: 'slugkit/slug.py',
          note: "agent1's patch changes slugkit/slug.py (line 11)",
        },
        { kind: 'quote', source: 'patch', agent: 'agent1', file: 'slugkit/slug.py', text: 'text = text.strip()' },
      ]);
      // The partner's edits to the file are not the promiser's.
      expect(await judge(input(messages, { agent1: words, agent2: edits }, words + edits)), said).toEqual([]);
    }
  });

  it('reads short status claims about code as claims that it exists', () => {
    const found = extractCommitments(
      conversation(
        ['agent1', '`tick()` landed, tests included.'],
        ['agent1', '`max_length` done.'],
        ['agent1', '`get_image_mimetype()` is in; lines 24–28 untouched.'],
      ),
    );
    expect(found.map((c) => [c.messageId, c.kind, c.target.kind, c.target.names.length ? c.target.names : c.target.lines])).toEqual([
      [1, 'claim', 'exists', ['tick']],
      [2, 'claim', 'exists', ['max_length']],
      [3, 'claim', 'exists', ['get_image_mimetype']],
      [3, 'claim', 'untouched_lines', [24, 28]],
    ]);
  });

  it('gives each wording of a promise the same kind and target', () => {
    const targets = (...said: string[]) =>
      said.map((text) =>
        extractCommitments(conversation(['agent1', text])).map((c) => ({
          kind: c.target.kind,
          names: c.target.names,
          guard: c.target.guard,
          scope: c.target.scope,
          module: c.target.module,
        })),
      );
    const exported = { kind: 'exported', names: ['LRUCache'], guard: undefined, scope: undefined, module: 'cachekit/__init__.py' };
    for (const found of targets(
      "I'll export `LRUCache` from cachekit/__init__.py.",
      "I'll make `LRUCache` importable from cachekit/__init__.py.",
      '`LRUCache` is now importable from cachekit/__init__.py.',
      '`LRUCache` is public now, re-exported in cachekit/__init__.py.',
    ))
      expect(found).toContainEqual(exported);
    for (const found of targets("I won't touch `parse()`.", "I'll stay away from `parse()`.", '`parse()` stays as it is.', 'No edits to `parse()` from me.')) {
      expect(found).toEqual([{ kind: 'untouched_symbol', names: ['parse'], guard: undefined, scope: undefined, module: undefined }]);
    }
    for (const found of targets('`request()` now checks `self._closed` first.', 'I put the `if self._closed` check at the start of `request()`.')) {
      expect(found).toEqual([expect.objectContaining({ kind: 'placement', guard: ['_closed'], scope: 'request' })]);
    }
    for (const found of targets(
      '`BatchConfig` lives in a new batchkit/config.py.',
      'New file batchkit/config.py for `BatchConfig`.',
      'In a new batchkit/config.py: `BatchConfig`.',
    )) {
      expect(found).toEqual([{ kind: 'exists', names: ['BatchConfig'], guard: undefined, scope: undefined, module: undefined }]);
    }
    expect(targets('My test in a new tests/test_iec.py calls your `ParseSize`.')[0]).toEqual([]);
    // "A public method" is no export; "before `save()`" is where, not which function.
    expect(targets("I'm adding a public `register()` method to `Renderer` in src/render.ts.")[0]).not.toContainEqual(
      expect.objectContaining({ kind: 'exported' }),
    );
    expect(targets("I'll call `validate()` before `save()` in `commit()`.")[0]!.map((t) => t.scope)).not.toContain('save');
  });

  it('checks Go and Rust code too', async () => {
    const go = conversation(['agent1', "I've added `MaxRetries` to client.go."]);
    const goCode = newFile('client.go', ['package client', '', 'const maxRetries = 3']);
    expect(await judge(input(go, { agent1: goCode }, goCode))).toHaveLength(1);
    const rust = conversation(['agent1', 'I exported `parse_config` from src/lib.rs.']);
    const rustCode = newFile('src/lib.rs', ['fn parse_config() {}']);
    const [label] = await judge(input(rust, { agent1: rustCode }, rustCode));
    expect(label!.evidence[1]).toMatchObject({ note: '`parse_config` exists (src/lib.rs:1) but is not exported from src/lib.rs in the merged code' });
    const pub = newFile('src/lib.rs', ['pub fn parse_config() {}']);
    expect(await judge(input(rust, { agent1: pub }, pub))).toEqual([]);
  });

  it("resolves a range named by reference to the partner's announced range", async () => {
    const messages = conversation(
      ['agent1', "I'm taking src/textkit/wrap.py lines 28-41, the body of `wrap_lines()`."],
      ['agent2', "OK. I'll add `hyphenate()` after it and keep clear of the lines you claimed."],
      ['agent2', 'Done, and I stayed out of your lines.'],
    );
    const inside = diff(
      'src/textkit/wrap.py',
      39,
      39,
      ['     if current:', '+        current = current.strip()', '         lines.append(current)'],
      'def wrap_lines(text):',
    );
    const labels = await judge(input(messages, { agent2: inside }, inside));
    expect(labels.map((l) => l.messageId)).toEqual([2, 3]);
    expect(labels[1]!.description).toBe('agent2 claimed to leave lines 28-41 untouched, but its patch changes them');
    // Code added below the range keeps the promise.
    const below = diff('src/textkit/wrap.py', 42, 42, ['     return lines', '+', '+def hyphenate(word):', '+    return word']);
    expect(await judge(input(messages, { agent2: below }, below))).toEqual([]);
  });

  it("finds a function's existing parameters, promised by reference, renamed in the agent's own patch", async () => {
    const messages = conversation(
      ['agent1', "I'm adding a `retries` keyword to `fetch_json()` in httpkit/client.py. The current parameters stay as they are."],
      ['agent1', 'Retries are in. Signature otherwise unchanged.'],
    );
    const renamed = diff('httpkit/client.py', 6, 6, [
      '-def fetch_json(url, timeout=10, headers=None):',
      '+def fetch_json(url, timeout_s=10, headers=None, retries=0):',
      '     request = urllib.request.Request(url, headers=headers or {})',
    ]);
    const labels = await judge(input(messages, { agent1: renamed }, renamed));
    expect(labels.map((l) => [l.messageId, l.description])).toEqual([
      [1, 'agent1 claimed that the existing parameters of `fetch_json` stay, but its patch removes `timeout`'],
      // "Signature otherwise unchanged": the rename adds a parameter nobody announced.
      [2, 'agent1 claimed that the signature of `fetch_json` stays, but its patch removes `timeout` and adds `timeout_s`'],
    ]);
    const added = diff('httpkit/client.py', 6, 6, [
      '-def fetch_json(url, timeout=10, headers=None):',
      '+def fetch_json(url, timeout=10, headers=None, retries=0):',
      '     request = urllib.request.Request(url, headers=headers or {})',
    ]);
    expect(await judge(input(messages, { agent1: added }, added))).toEqual([]);
  });

  it('places a guard relative to a call named in words ("the first statement after taking the lock")', async () => {
    const messages = conversation(['agent1', 'In `acquire()` the closed check will be the first statement after taking the lock.']);
    const before = diff(
      'pool/pool.py',
      13,
      13,
      [
        '     def acquire(self):',
        '+        if self._closed:',
        '+            raise RuntimeError("closed")',
        '         with self._lock:',
        '             return self._items.pop()',
      ],
      'class Pool:',
    );
    const [label] = await judge(input(messages, { agent1: before }, before));
    expect(label!.evidence.find((e) => e.kind === 'absence')).toMatchObject({ note: 'a check on closed (pool/pool.py:14) comes before the lock (line 16)' });
    const after = diff(
      'pool/pool.py',
      13,
      13,
      [
        '     def acquire(self):',
        '         with self._lock:',
        '+            if self._closed:',
        '+                raise RuntimeError("closed")',
        '             return self._items.pop()',
      ],
      'class Pool:',
    );
    expect(await judge(input(messages, { agent1: after }, after))).toEqual([]);
  });

  it('resolves code described in words or by a pronoun to the code the sender named before', () => {
    const found = extractCommitments(
      conversation(
        ['agent2', "I'll write the slug helpers in a new src/slug.ts: `slugify()` and `deslugify()`. Both get exported from the package index."],
        ['agent2', 'The slug helpers are done and exported from the package.'],
      ),
    );
    expect(found.filter((c) => c.target.kind === 'exported').map((c) => [c.messageId, c.target.names, c.target.module])).toEqual([
      [1, ['slugify', 'deslugify'], 'src/index.ts'],
      [2, ['slugify', 'deslugify'], 'src/index.ts'],
    ]);
  });
});

describe('commitments: new code, placement of definitions, subjects', () => {
  it('reads an indefinite noun phrase in the sender’s plan as new code, with the function or class it belongs to', () => {
    const found = extractCommitments(
      conversation(
        ['agent1', "I'm handling timeouts: a `deadline` argument on `fetch_page()` and a `Timer` class in net/timer.py."],
        ['agent1', 'Taking the export format: a `columns` field on `Report` plus a small `to_csv()` helper.'],
        ['agent2', 'Your fixtures use values like `a=1`, so I kept a `disabled` toggle out of it.'],
        ['agent2', 'Could you add a `reset()` helper to cache.py?'],
        ['agent1', "I'm adding a public `flush()` method to `Writer`."],
      ),
    );
    expect(found.map((c) => [c.messageId, c.target.kind, c.target.names, c.target.scope])).toEqual([
      [1, 'exists', ['deadline'], 'fetch_page'],
      [1, 'exists', ['Timer'], undefined],
      [2, 'exists', ['Report.columns'], undefined],
      [2, 'exists', ['to_csv'], undefined],
      [5, 'exists', ['Writer.flush'], undefined],
    ]);
  });

  it('treats `a`/`b` as two names, and a partner named in a subordinate clause as no request', () => {
    const found = extractCommitments(
      conversation(
        ['agent1', "I'm adding `width`/`height` to `Canvas.__init__`."],
        ['agent1', 'Planning a new units.go for `ParseUnit(s string) Unit`, exactly as you suggested.'],
        ['agent1', 'The `verbose` flag is in, and `retry_count` support landed.'],
      ),
    );
    expect(found.map((c) => [c.messageId, c.kind, c.target.kind, c.target.names])).toEqual([
      [1, 'promise', 'exists', ['width', 'height']],
      [2, 'promise', 'exists', ['ParseUnit']],
      [3, 'claim', 'exists', ['verbose']],
      [3, 'claim', 'exists', ['retry_count']],
    ]);
  });

  it('places a new definition next to another, and checks the order on the merged code', async () => {
    const messages = conversation(['agent1', 'I will put a new `drain()` method in queue.py, right below `close()`.']);
    const [placed] = extractCommitments(messages).filter((c) => c.target.kind === 'placement');
    expect(placed!.target).toMatchObject({ names: ['drain'], position: 'after', anchor: 'close', definition: true });
    const below = diff(
      'queue.py',
      10,
      10,
      ['     def close(self):', '         self._closed = True', '+', '+    def drain(self):', '+        return list(self._items)'],
      'class Queue:',
    );
    expect(await judge(input(messages, { agent1: below }, below))).toEqual([]);
    const above = diff(
      'queue.py',
      10,
      10,
      ['+    def drain(self):', '+        return list(self._items)', '+', '     def close(self):', '         self._closed = True'],
      'class Queue:',
    );
    const [label] = await judge(input(messages, { agent1: above }, above));
    expect(label!.evidence[1]).toMatchObject({ kind: 'absence', note: '`drain` (queue.py:10) is defined before `close` (line 13)' });
  });

  it('reads a bypass "at its top" as a guard first in the function named before, and finds it in a Go method after a struct', async () => {
    const messages = conversation(['agent1', "I'm changing `Send()` in mailer.go, adding a `paused` bypass at its top."]);
    const [guard] = extractCommitments(messages);
    expect(guard!.target).toMatchObject({ kind: 'placement', guard: ['paused', 'bypass'], scope: 'Send', position: 'first' });
    const patch = diff(
      'mailer.go',
      5,
      5,
      [' \tsent int', '+\tpaused bool', ' }', ' ', ' func (m *Mailer) Send(to string) error {', '+\tif m.paused {', '+\t\treturn nil', '+\t}', ' \tm.sent++'],
      'type Mailer struct {',
    );
    expect(await judge(input(messages, { agent1: patch }, patch))).toEqual([]);
  });

  it('checks that a promised export exists at all in the file it names', async () => {
    const messages = conversation(['agent1', 'I will add `Encode()` and `Decode()` to codec/codec.go. Both will be exported.']);
    const patch = [
      diff('codec/codec.go', 3, 3, [
        ' import "strings"',
        '+',
        '+func Encode(s string) string { return strings.ToUpper(s) }',
        '+func decode(s string) string { return s }',
      ]),
      newFile('cmd/main.go', ['package main', '', 'func main() { println(codec.Decode("x")) }']),
    ].join('');
    const labels = await judge(input(messages, { agent1: patch }, patch));
    expect(labels.map((l) => l.messageId)).toEqual([1]);
    expect(labels[0]!.description).toContain('Decode');
  });

  it('reads "keeping the existing arguments" as the signature of the function the sentence adds to, and a Go parameter by its name', () => {
    const found = extractCommitments(
      conversation(['agent1', "I'll add a trailing `hooks ...Hook` to `NewServer` in server/server.go, keeping the existing parameters as they are."]),
    );
    expect(found.map((c) => [c.target.kind, c.target.names, c.target.scope, c.target.parameters])).toEqual([
      ['untouched_symbol', [], 'NewServer', true],
      ['exists', ['hooks'], undefined, undefined],
      ['exists', ['hooks'], 'NewServer', undefined],
    ]);
  });

  it("takes an acceptance as answering the message it follows, and a plan's purpose as no request", () => {
    const found = extractCommitments(
      conversation(
        ['agent2', "I'm taking `render()` in page.py to add a `theme` parameter."],
        ['agent1', 'OK, I will stay in layout.py.'],
        ['agent2', 'Please export `Theme` from themes/__init__.py.'],
        ['agent1', 'Sure, will do.'],
        ['agent1', 'Done with the layout work.'],
      ),
    );
    expect(found.filter((c) => c.request).map((c) => [c.messageId, c.request!.messageId, c.target.kind, c.target.names])).toEqual([
      [4, 3, 'exported', ['Theme']],
    ]);
  });

  it('reads "the first thing it does" as the function named before, and reads on past "i.e."', () => {
    const found = extractCommitments(
      conversation(
        ['agent1', "I'm changing `pop()` in stack.py to refuse a frozen stack: once the mutex is held, the first thing it does is check `self._frozen`."],
        ['agent2', 'I will add `peek()` as a new method after line 40, i.e. between `push()` and `pop()`.'],
      ),
    );
    expect(found.filter((c) => c.target.kind === 'placement').map((c) => [c.messageId, c.target])).toEqual([
      [1, { kind: 'placement', names: [], guard: ['_frozen'], files: ['stack.py'], scope: 'pop', position: 'after', anchorWords: ['mutex'] }],
      [2, { kind: 'placement', names: ['peek'], files: [], position: 'after', anchor: 'push', definition: true }],
    ]);
  });

  it('reads "add X, exported" as two promises, and "my `f()`" as the sender\'s code that is there', () => {
    const found = extractCommitments(
      conversation(
        ['agent1', 'I will add `clamp(value, lo, hi)` to mathx/core.js, exported from the module.'],
        ['agent2', 'Thanks: my `scale()` in mathx/scale.js calls it with the bounds.'],
        ['agent2', 'Did my `--strict` run pass for you?'],
      ),
    );
    expect(found.map((c) => [c.messageId, c.kind, c.target.kind, c.target.names])).toEqual([
      [1, 'promise', 'exported', ['clamp']],
      [1, 'promise', 'exists', ['clamp']],
      [2, 'claim', 'exists', ['scale']],
    ]);
  });
});

describe('commitments: wordings of ranges, guards and acceptances, and hunks cut out of a body (independent-train-3)', () => {
  const targets = (...messages: [from: string, text: string][]) =>
    extractCommitments(conversation(...messages))
      .filter((c) => c.messageId === messages.length)
      .map((c) => ({ request: c.request?.messageId, ...c.target }));

  it('reads each wording of an untouched line range as the same range', () => {
    for (const said of [
      "I'll leave lines 40-53 alone.",
      "I won't edit lines 40-53.",
      'I kept clear of lines 40–53.',
      "I'm keeping clear of lines 40-53.",
      '`evict()` / lines 40–53 is yours.',
      'Lines 40-53 are all yours, I stay out of them.',
    ])
      expect(targets(['agent1', said]), said).toEqual([{ request: undefined, kind: 'untouched_lines', names: [], files: [], lines: [40, 53] }]);
  });

  it('reads bare numbers as a line range only when they repeat a range named before', () => {
    const announced: [string, string] = ['agent2', "I'm editing store.py lines 40-53."];
    for (const said of ["I'll keep clear of 40-53.", 'Done; 40–53 untouched.', "I'll leave 40-53 alone."]) {
      expect(targets(announced, ['agent1', said]), said).toEqual([expect.objectContaining({ kind: 'untouched_lines', lines: [40, 53] })]);
      expect(targets(['agent1', said]), said).toEqual([]);
    }
  });

  it('reads each wording of a guard first in a function, or before a call, as the same placement', () => {
    const first = { kind: 'placement', guard: ['_closed'], scope: 'flush', position: 'first' };
    for (const said of [
      "I'll refuse work after close: `if self._closed: raise Closed()` as the first thing `flush()` does.",
      "In `flush()` I'm adding a guard: `if self._closed: raise Closed()` as its first statement.",
      "I'm making `flush()` refuse work after close: the `self._closed` check is the first thing it does.",
      'The `self._closed` check is the first statement of `flush()`.',
    ])
      expect(targets(['agent1', said]), said).toEqual([expect.objectContaining(first)]);
    const before = { kind: 'placement', guard: ['max_bytes'], scope: 'append', position: 'before', anchor: '_write' };
    for (const said of [
      "I'll put the size limit in `append()`: the `max_bytes` check runs before the call to `self._write(chunk)`.",
      'In `append()`, the `max_bytes` check comes before the call to `self._write(chunk)`.',
      'In `append()` the `max_bytes` check runs before `self._write(chunk)`.',
    ])
      expect(targets(['agent1', said]), said).toEqual([expect.objectContaining(before)]);
    // Named again in words, the guard is the one the sender showed before (`req` is only the object `user` is read from).
    expect(
      targets(
        ['agent1', "I'm adding an auth guard to `handle()`: `if (!req.user) return deny(res);` as its first statement."],
        ['agent1', 'The auth check sits at the top of `handle()` now.'],
      ),
    ).toEqual([expect.objectContaining({ kind: 'placement', guard: ['user', 'auth'], scope: 'handle', position: 'first' })]);
  });

  it('reads each acceptance of a request as a promise of what was asked', () => {
    const asked: [string, string] = ['agent2', 'Could you add a `MaxIdle int` field to `PoolConfig` in pool/config.go?'];
    for (const said of ['Sure, will do.', "Yes, I'll do that.", 'OK, will do.', 'Will do.', 'Sure thing, on it.'])
      expect(targets(asked, ['agent1', said]), said).toEqual([{ request: 1, kind: 'exists', names: ['PoolConfig.MaxIdle'], files: ['pool/config.go'] }]);
    // A verb joined to the sender's own plan asks nothing.
    expect(targets(['agent1', "I'll add `load()` to loader.py and export it from the package so your CLI can import it."], ['agent2', 'Great.'])).toEqual([]);
  });

  it('reads a hunk inside a Go struct, a TypeScript class or a Rust function as it stands in the file', async () => {
    const ts = diff(
      'src/queue.ts',
      9,
      15,
      [
        '    else this.items.push(item);',
        '  }',
        '',
        '  drain(): T[] {',
        '-    const out = this.items;',
        '+    const out = this.items.slice();',
        '     this.items = [];',
        '     return out;',
        '   }',
      ],
      'export class Queue<T> {',
    );
    const rust = diff(
      'src/options.rs',
      10,
      11,
      ['         Options {', '             verbose: false,', '+            retries: 0,', '         }', '     }'],
      'pub fn new() -> Self {',
    );
    const go = diff(
      'pool/pool.go',
      10,
      10,
      [
        ' \tidle   []*Conn',
        ' \tclosed bool',
        '+\tgets   int',
        ' }',
        ' ',
        ' func (p *Pool) Get() (*Conn, error) {',
        '+\tif p.closed {',
        '+\t\treturn nil, ErrClosed',
        '+\t}',
        ' \tif n := len(p.idle); n > 0 {',
      ],
      'type Pool struct {',
    );
    const said = conversation(
      ['agent1', "I won't touch `Queue.drain()`, and I'll leave `Options::new()` untouched."],
      ['agent1', 'The `p.closed` check is the first statement of `Get()`.'],
    );
    const labels = await judge(input(said, { agent1: [ts, rust, go].join('') }, go));
    expect(labels.map((l) => l.messageId)).toEqual([1]);
    expect(labels[0]!.evidence.filter((e) => e.kind === 'absence').map((e) => e.kind === 'absence' && e.note)).toEqual([
      "agent1's patch adds a line inside `drain` (src/queue.ts:18)",
      "agent1's patch adds a line inside `new` (src/options.rs:13)",
    ]);
  });
});
