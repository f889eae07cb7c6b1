// Claims read from the shape of the sentence and of the code it quotes, checked against the code
// (commitment-extract.ts, commitments.ts): parameters named by a keyword argument, a list after a
// counting claim ("All three are in: …"), an accepted request restated as done, code left as it was,
// a change limited to one function, a rename, a check described in words, a trailing condition, a
// request said as a need.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
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

/** ratelimit/limiter.py gains `reset()` and `DEFAULT_BURST`, and the `remaining` property when `withRemaining`. */
const limiter = (withRemaining: boolean) =>
  diff('ratelimit/limiter.py', 1, 1, [
    '+DEFAULT_BURST = 10',
    ' class RateLimiter:',
    '     def allow(self):',
    '         return True',
    '+    def reset(self):',
    '+        self.tokens = self.burst',
    ...(withRemaining ? ['+    @property', '+    def remaining(self):', '+        return self.tokens'] : []),
  ]);

describe('commitments: a counting claim about the list after its colon', () => {
  const plan =
    '## My part (ratelimit/limiter.py)\n\n- a new `reset()` method\n- a read-only `remaining` property on `RateLimiter`\n- a `DEFAULT_BURST` constant';
  const claims = [
    'All three are in: reset(), the remaining property and DEFAULT_BURST.',
    'Everything is done: `reset()`, the remaining property, `DEFAULT_BURST`.',
  ];

  it.each(claims)('is broken when an item named only in words is missing: %s', async (claim) => {
    const messages = conversation(['agent1', plan], ['agent1', claim]);
    const labels = await judge(input(messages, { agent1: limiter(false) }, limiter(false)));
    expect(labels.map((l) => l.messageId)).toEqual([1, 2]);
    expect(labels[1]!.description).toContain('`remaining`');
  });

  it.each(claims)('is kept when every item is there: %s', async (claim) => {
    const messages = conversation(['agent1', plan], ['agent1', claim]);
    expect(await judge(input(messages, { agent1: limiter(true) }, limiter(true)))).toEqual([]);
  });

  it('reads nothing from a list whose claim names its subject, or from an item about an export', () => {
    expect(targets(['agent1', 'The tests are in: unit and integration.'])).toEqual([]);
    const existing = targets(['agent1', 'All in: `RetryPolicy` and the package export.']).filter((t) => t.kind === 'exists');
    expect(existing).toEqual([{ kind: 'exists', names: ['RetryPolicy'], files: [] }]);
  });
});

/** fetch/options.go's `Options` gains the field `line`. */
const options = (line: string) => diff('fetch/options.go', 3, 3, [' type Options struct {', '     Proxy string', `+    ${line}`, ' }']);

describe('commitments: an accepted request that the reply also states as done', () => {
  const messages = conversation(
    ['agent1', 'Please add a `Timeout time.Duration` field to `Options` as well, my retry logic needs a bounded request.'],
    ['agent2', 'Done — added `Timeout` to `Options` as you asked, and NewClient sets it on the http.Client.'],
  );

  it('is one broken commitment, reported with the request it accepted', async () => {
    const patch = options('Retries int');
    const labels = await judge(input(messages, { agent2: patch }, patch));
    expect(labels.map((l) => [l.messageId, l.description])).toEqual([[2, expect.stringContaining("accepted agent1's request")]]);
    expect(labels[0]!.evidence.filter((e) => e.kind === 'absence')).toHaveLength(1);
  });

  it('is kept when the field is there', async () => {
    const patch = options('Timeout time.Duration');
    expect(await judge(input(messages, { agent2: patch }, patch))).toEqual([]);
  });
});

/** minihttp/parser.py: an edit of old line 16 (inside 13-23) or of old line 41 (outside it), with `parse_cookies()` added after it. */
const parserEdit = (line: number) =>
  diff('minihttp/parser.py', line - 1, line - 1, [
    '     value = raw.strip()',
    '-    return value',
    '+    return value.lower()',
    '+',
    '+def parse_cookies(raw):',
    '+    return dict(p.split("=", 1) for p in raw.split("; "))',
  ]);
/** httpx_lite/session.py: `close()`'s body changed, or a method added after it. */
const closeChanged = diff('httpx_lite/session.py', 30, 30, ['     def close(self):', '-        self._pool.clear()', '+        self._pool.shutdown()', ' ']);
const closeKept = diff('httpx_lite/session.py', 30, 30, [
  '     def close(self):',
  '         self._pool.clear()',
  '+',
  '+    def reset(self):',
  '+        self._pool.clear()',
]);

describe('commitments: code left as it was, in telegraphic replies', () => {
  const ranges = [
    "👍 won't go near L13-23. I'm only appending `parse_cookies()` at the end of the file.",
    'parse_cookies landed at the bottom; your L13-23 untouched.',
  ];

  it.each(ranges)('is broken when the sender edits the range: %s', async (reply) => {
    const patch = parserEdit(16);
    const labels = await judge(input(conversation(['agent1', reply]), { agent1: patch }, patch));
    expect(labels.map((l) => l.messageId)).toEqual([1]);
    expect(labels[0]!.description).toContain('lines 13-23');
  });

  it.each(ranges)('is kept when the edit is outside the range: %s', async (reply) => {
    const patch = parserEdit(41);
    expect(await judge(input(conversation(['agent1', reply]), { agent1: patch }, patch))).toEqual([]);
  });

  it('reads "as it was" of a named function, and nothing of the partner\'s code but that it is untouched', async () => {
    const messages = conversation(['agent1', 'Retries done. `close()` is exactly as it was.']);
    expect((await judge(input(messages, { agent1: closeChanged }, closeChanged))).map((l) => l.messageId)).toEqual([1]);
    expect(await judge(input(messages, { agent1: closeKept }, closeKept))).toEqual([]);
    expect(targets(['agent1', 'your `parse()` is in now.'])).toEqual([]);
  });
});

/** src/server.ts: `route()` changed, plus a line changed in `handle()` when `alsoHandle`, and a new `health()` method. */
const server = (alsoHandle: boolean) =>
  diff(
    'src/server.ts',
    10,
    10,
    [
      '   handle(req: Request): Response {',
      ...(alsoHandle ? ['-    return this.route(req);', '+    return this.route(req) ?? notFound();'] : ['     return this.route(req);']),
      '   }',
      ' ',
      '   route(req: Request): Response | undefined {',
      '-    return this.routes.get(req.path)?.(req);',
      "+    if (req.path === '/health') return this.health();",
      '+    return this.routes.get(req.path)?.(req);',
      '   }',
      '+',
      '+  health(): Response {',
      '+    return new Response("ok");',
      '+  }',
    ],
    'class Server {',
  );

describe('commitments: a change limited to one function', () => {
  const limits = [
    "ack — I'm only touching `route()` for the /health endpoint.",
    '`route()` now answers /health; nothing outside that function changed.',
    "I'll just edit `route()` in src/server.ts.",
  ];

  it.each(limits)('is broken when the patch changes another existing function: %s', async (limit) => {
    const patch = server(true);
    const labels = await judge(input(conversation(['agent1', limit]), { agent1: patch }, patch));
    expect(labels.map((l) => l.description)).toEqual([
      expect.stringMatching(/^agent1 (?:promised|claimed) to change only `route`, but its patch changes `handle`$/),
    ]);
  });

  it.each(limits)('is kept when the other changes are new code: %s', async (limit) => {
    const patch = server(false);
    expect(await judge(input(conversation(['agent1', limit]), { agent1: patch }, patch))).toEqual([]);
  });
});

/** clickish/termui.py: `Editor.edit_file` renamed to `name`. */
const renamed = (name: string) =>
  diff(
    'clickish/termui.py',
    20,
    20,
    ['-    def edit_file(self, filename):', `+    def ${name}(self, filenames):`, '         editor = self.get_editor()'],
    'class Editor:',
  );

describe('commitments: a rename', () => {
  const renames = ['FYI, renamed `edit_file` to `edit_files` in clickish/termui.py. It takes a list now.', "I'll rename `edit_file` to `edit_files`."];

  it.each(renames)('is broken when the code has another new name: %s', async (rename) => {
    const patch = renamed('edit_many');
    const labels = await judge(input(conversation(['agent1', rename]), { agent1: patch }, patch));
    expect(labels.map((l) => l.description)).toEqual([expect.stringContaining('`edit_files`, missing from the code')]);
  });

  it.each(renames)('is kept when the code has the new name: %s', async (rename) => {
    const patch = renamed('edit_files');
    expect(await judge(input(conversation(['agent1', rename]), { agent1: patch }, patch))).toEqual([]);
  });

  it('reads nothing from a rename the partner is asked for', () => {
    expect(targets(['agent1', 'Please rename `edit_file` to `edit_files`.'])).toEqual([]);
  });
});

describe('commitments: a described check is a placement, not a new symbol', () => {
  it('says only where the check is missing, not that the value it tests was never defined', async () => {
    const patch = diff(
      'src/jobs.rs',
      10,
      10,
      ['     pub fn next_job(&mut self) -> Option<Job> {', '+        self.log.push("next");', '         self.queue.pop_front()', '     }'],
      'impl Jobs {',
    );
    const messages = conversation(
      ['agent1', "In `next_job()` I'll check `self.paused` first and return None."],
      ['agent1', 'Paused check is in, first thing in `next_job()`.'],
    );
    const labels = await judge(input(messages, { agent1: patch }, patch));
    const notes = labels.find((l) => l.messageId === 2)!.evidence.flatMap((e) => ('note' in e && e.note ? [e.note] : []));
    expect(notes).toEqual(['no `if` testing `paused` in `next_job()` in the merged code']);
  });
});

/** logbuf/writer.go gains the method `name` on `*Writer`. */
const writerMethod = (name: string) =>
  diff('logbuf/writer.go', 30, 30, [
    ' }',
    '+',
    `+func (w *Writer) ${name}() error {`,
    '+\tif err := w.Flush(); err != nil {',
    '+\t\treturn err',
    '+\t}',
    '+\treturn nil',
    '+}',
  ]);

describe('commitments: a condition at the end of a sentence governs only the clause before it', () => {
  const claim = "`Close()` is in, flushes then closes the underlying writer if it's a Closer.";

  it('is broken when the claimed method is missing', async () => {
    const patch = writerMethod('Shutdown');
    const labels = await judge(input(conversation(['agent1', claim]), { agent1: patch }, patch));
    expect(labels.map((l) => l.description)).toEqual(['agent1 claimed `Close`, missing from the code']);
  });

  it('is kept when the method is there', async () => {
    const patch = writerMethod('Close');
    expect(await judge(input(conversation(['agent1', claim]), { agent1: patch }, patch))).toEqual([]);
  });

  it('leaves a promise made on a condition uncommitted', () => {
    expect(targets(['agent1', "I'll add `close()` if you agree."])).toEqual([]);
    expect(targets(['agent1', "If the tests pass, I'll add `close()`."])).toEqual([]);
    expect(targets(['agent1', "I'll add `close()`, and if the tests fail, I'll revert `flush()`."])).toEqual([{ kind: 'exists', names: ['close'], files: [] }]);
  });
});

/** cache/__init__.py re-exports `names` from cache/lru.py, where `LRUCache` is defined. */
const cachePackage = (names: string) =>
  `${diff('cache/__init__.py', 1, 1, [' from .ttl import TTLCache', `+from .lru import ${names}`])}${diff('cache/lru.py', 1, 1, [' import time', '+', '+class LRUCache:', '+    pass'])}`;

describe("commitments: a request said as the requester's need, accepted with a boundary", () => {
  const messages = conversation(
    ['agent1', "I'm on the docs. I need `LRUCache` exported from cache/__init__.py for the examples."],
    ['agent2', "Sure thing. `get()` won't change."],
  );

  it('is broken when the accepted export is missing', async () => {
    const patch = cachePackage('lru_stats');
    const labels = await judge(input(messages, { agent2: patch }, patch));
    expect(labels.map((l) => l.description)).toEqual([
      "agent2 accepted agent1's request that `LRUCache` is exported from cache/__init__.py, which the code does not do",
    ]);
  });

  it('is kept when the package exports it', async () => {
    const patch = cachePackage('LRUCache');
    expect(await judge(input(messages, { agent2: patch }, patch))).toEqual([]);
  });
});
