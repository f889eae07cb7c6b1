// Code checks of where promised code is: pieces of files, guards and anchors named in words, members, loops, helpers and the
// modules of exports; and the commitments judge's guard words against the message's code.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Target } from '../../../../judges/detectors/commitment-extract.ts';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { commitmentsOf } from '../../../../judges/llm/commitments.ts';
import { conversationItems, DEFAULT_BUDGET } from '../../../../judges/llm/material.ts';
import { checkPromise, conversation, diff, input, promiseTask } from './commitment-fixtures.ts';

beforeAll(async () => {
  await loadLanguage();
});

describe('code checks: pieces of files', () => {
  it('reads a hunk that starts with the closing lines of the function above it', async () => {
    const merged = diff(
      'src/cache.rs',
      21,
      21,
      [
        '         })',
        '     }',
        ' ',
        '+    pub fn len(&self) -> usize {',
        '+        self.map.len()',
        '+    }',
        '+',
        '     pub fn insert(&mut self, key: K, value: V) {',
        '         self.clock += 1;',
        '+        if self.cap == 0 {',
        '+            return;',
        '+        }',
        '         if self.map.len() >= self.cap {',
      ],
      'pub fn get(&mut self, key: &K) -> Option<V> {',
    );
    const task = promiseTask(merged);
    const [label] = await checkPromise(task, { kind: 'placement', names: [], files: ['src/cache.rs'], scope: 'insert', position: 'first', guard: ['cap'] });
    expect(label!.evidence[1]).toEqual({
      kind: 'absence',
      source: 'merged',
      text: 'a check on cap',
      note: 'a check on cap is in `insert()` (src/cache.rs:30) but not its first statement',
    });
  });
});

describe('code checks: guards named in words', () => {
  const merged = diff('board/board.py', 10, 10, [
    '     def submit(self, e):',
    '+        if self.best is None:',
    '+            self.best = {}',
    '+        if e is None:',
    '+            return False',
    '         prev = self.best.get(e.name)',
  ]);
  const task = promiseTask(merged);

  it('takes a word of one or two letters as a whole name, and a literal only when nothing else is named', async () => {
    const first = (guard: string[]) => checkPromise(task, { kind: 'placement', names: [], files: [], scope: 'submit', position: 'first', guard });
    // `e` is not in `self.best`: the check on e is the second statement.
    expect((await first(['e', 'None']))[0]!.evidence[1]).toMatchObject({
      note: 'a check on e None is in `submit()` (board/board.py:13) but not its first statement',
    });
    // "None" alone still finds the checks on None, the first of which is first.
    expect(await first(['None'])).toEqual([]);
  });
});

describe('code checks: a member promised on a type', () => {
  it('reads a scope that is a type as the owner of the member', async () => {
    const merged = [
      diff('fetch/options.go', 3, 3, [' type Options struct {', ' 	Retries int', '+	UserAgent string', ' }']),
      diff('fetch/client.go', 8, 8, [' func NewClient(o Options) *Client {', '+	c := &http.Client{Timeout: o.Timeout}', ' 	return &Client{http: c}']),
    ].join('');
    const task = promiseTask(merged);
    const [label] = await checkPromise(task, { kind: 'exists', names: ['Timeout'], files: [], scope: 'Options' });
    expect(label!.evidence[1]).toMatchObject({ kind: 'absence', note: '`Options` (fetch/options.go:3-6) has no member `Timeout`' });
  });
});

describe('commitments judge: guard words against the message', () => {
  it('keeps a name the message writes as code, and reads other words as lower-case descriptions without values', () => {
    const messages = conversation(['agent1', '`insert()` now bails out when `self._cap` is 0: the Zero-Capacity check, first thing (1..3999 style).']);
    const task = input(messages, {}, '');
    const quote = '`insert()` now bails out when `self._cap` is 0';
    const entry = { message: 1, quote, stance: 'claim' as const, kind: 'placement' as const, names: [], files: [], anchor_words: [], scope: 'insert' };
    const read = commitmentsOf({ commitments: [{ ...entry, guard: ['_cap', 'Zero-Capacity', '1..3999'] }] }, conversationItems(task, DEFAULT_BUDGET), task);
    expect(read.commitments[0]!.target.guard).toEqual(['_cap', 'zero', 'capacity']);
  });
});

describe('code checks: placements named loosely', () => {
  it('anchors on the call that words name before a name that merely contains them', async () => {
    const merged = diff('lib/dispatch.js', 4, 4, [
      ' async function dispatch(req) {',
      '   const handler = routes[req.path];',
      '+  const started = Date.now();',
      '   const res = await handler(req);',
      '+  log(Date.now() - started);',
      '   return res;',
    ]);
    const task = promiseTask(merged);
    const around = (position: 'before' | 'after', names: string[]) =>
      checkPromise(task, { kind: 'placement', names, files: [], scope: 'dispatch', position, anchorWords: ['handler'] });
    expect(await around('before', ['Date.now'])).toEqual([]);
    expect(await around('after', ['log'])).toEqual([]);
    expect((await around('after', ['Date.now']))[0]!.evidence[1]).toMatchObject({
      note: 'a call to `Date.now` (lib/dispatch.js:6) comes before the handler (line 7)',
    });
  });

  it('finds a call named in another case when none has the case given', async () => {
    const merged = diff('queue/queue.go', 20, 20, [' func (q *Queue) Drain() error {', ' 	q.items = nil', '+	q.sink.Flush()', '+	return nil', ' }']);
    const task = promiseTask(merged);
    expect(await checkPromise(task, { kind: 'placement', names: ['flush'], files: [], scope: 'Drain' })).toEqual([]);
    const [label] = await checkPromise(task, { kind: 'placement', names: ['flush'], files: [], scope: 'Close' });
    expect(label!.evidence[1]).toMatchObject({ note: 'a call to `flush` is in `Drain()` (queue/queue.go:22), not in `Close()`' });
  });
});

describe('code checks: a Go package as the module of an export', () => {
  it('reads the package as its directory, where a capitalised name is exported', async () => {
    const exported = diff('semver/version.go', 10, 10, [' func parse(s string) (Version, error) {', ' 	return Version{}, nil', ' }', '+', '+var Parse = parse']);
    const target = { kind: 'exported' as const, names: ['Parse'], files: [], module: 'semver' };
    expect(await checkPromise(promiseTask(exported), target)).toEqual([]);
    const unexported = diff('semver/version.go', 10, 10, [' func parse(s string) (Version, error) {', ' 	return Version{}, nil', ' }']);
    const [label] = await checkPromise(promiseTask(unexported), target);
    expect(label!.description).toBe('agent1 promised that `Parse` is exported from semver, which the code does not do');
  });
});

describe('code checks: first in a loop', () => {
  const average = (body: string[]) =>
    diff('greenhouse/batch.go', 8, 8, [
      ' func Average(rs []Reading) float64 {',
      ' 	sum := 0.0',
      ' 	for _, r := range rs {',
      ...body,
      ' 	}',
      ' 	return sum / float64(len(rs))',
      ' }',
    ]);
  const check = ['+		if r.Temp < -40 || r.Temp > 60 {', '+			continue', '+		}'];
  const target: Target = { kind: 'placement', names: [], files: [], scope: 'Average', position: 'first', loop: true, guard: ['Temp'] };

  it("reads 'first thing each iteration' as the loop body's first statement", async () => {
    const first = average([...check, ' 		sum += r.Temp']);
    expect(await checkPromise(promiseTask(first), target)).toEqual([]);
    const late = average([' 		sum += r.Temp', ...check]);
    const [label] = await checkPromise(promiseTask(late), target);
    expect(label!.evidence[1]).toMatchObject({ note: "a check on Temp is in `Average()` (greenhouse/batch.go:12) but not its loop's first statement" });
  });
});

describe('code checks: checks and exports reached through another place', () => {
  it('places a check in a helper where the function calls the helper', async () => {
    const merged = diff('src/account.rs', 18, 18, [
      ' impl Account {',
      '+    fn ensure_active(&self) -> Result<(), TxError> {',
      '+        if self.frozen { Err(TxError::Frozen) } else { Ok(()) }',
      '+    }',
      '+',
      '     pub fn withdraw(&mut self, amount: u64) -> Result<(), TxError> {',
      '+        self.ensure_active()?;',
      '         if amount > self.balance {',
      '             return Err(TxError::Insufficient);',
      '         }',
    ]);
    const task = promiseTask(merged);
    const first: Target = { kind: 'placement', names: [], files: [], scope: 'withdraw', position: 'first', guard: ['frozen'] };
    expect(await checkPromise(task, first)).toEqual([]);
    const [label] = await checkPromise(task, { ...first, scope: 'deposit' });
    expect(label!.evidence[1]).toMatchObject({ note: 'a check on frozen is in `ensure_active()` (src/account.rs:20), not first in `deposit()`' });
  });

  it('reads a Rust crate as its root, and leaves a package the patches never show to its file’s `__all__`', async () => {
    const crate = [
      diff('src/slug.rs', 20, 20, [' }', '+', '+pub fn slugify_with(s: &str, sep: char) -> String {', "+    s.replace(' ', &sep.to_string())", '+}']),
      diff('src/lib.rs', 1, 1, ['-pub use slug::slugify;', '+pub use slug::{slugify, slugify_with};']),
    ].join('');
    const exported = { kind: 'exported' as const, names: ['slugify_with'], files: [], module: 'textkit' };
    expect(await checkPromise(promiseTask(crate), exported)).toEqual([]);
    const python = diff('geo/distance.py', 1, 1, [
      '-__all__ = ["haversine"]',
      '+__all__ = ["haversine", "bearing"]',
      ' ',
      '+def bearing(a, b):',
      '+    return 0.0',
    ]);
    const fromPackage = { kind: 'exported' as const, names: ['bearing'], files: [], module: 'geo' };
    expect(await checkPromise(promiseTask(python), fromPackage)).toEqual([]);
    const unlisted = diff('geo/distance.py', 1, 1, [' __all__ = ["haversine"]', ' ', '+def bearing(a, b):', '+    return 0.0']);
    const [label] = await checkPromise(promiseTask(unlisted), fromPackage);
    expect(label!.description).toBe('agent1 promised that `bearing` is exported from geo, which the code does not do');
  });
});
