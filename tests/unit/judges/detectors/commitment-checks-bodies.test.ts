// Readings and code checks of function bodies: what a sentence says of its code and where, checks that are not an `if` in the function,
// calls the grammar reads only in context, and the shown end of a function and the body of a loop.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { checkPromise, conversation, diff, input, judge, promiseTask, targets } from './commitment-fixtures.ts';

beforeAll(async () => {
  await loadLanguage();
});

describe('readings: what a sentence says of its code', () => {
  it('reads "the same file" as a place and a description after other code as that code’s', () => {
    expect(targets(['agent2', 'I’ve got freezes: `freeze(member)` in the same file.'])).toEqual([]);
    expect(targets(['agent2', 'Add() clamps TTL up to `MinTTL` (new exported const, 60) in zone/zone.go.'])).toEqual([]);
    // The state words still read when they are the subject's own.
    expect(targets(['agent2', '`parse()` stays the same.'])).toEqual([{ kind: 'untouched_symbol', names: ['parse'], files: [] }]);
    expect(targets(['agent2', '`MinTTL` is exported from zone/zone.go.'])).toEqual([
      { kind: 'exported', names: ['MinTTL'], files: ['zone/zone.go'], module: 'zone/zone.go' },
    ]);
  });

  it('reads a lower-case method of a type as a place, and a discourse label as none', () => {
    expect(targets(['agent1', 'That line goes at the very top of `Recipe.scale`.'])).toEqual([
      { kind: 'placement', names: [], files: [], scope: 'scale', position: 'first' },
    ]);
    expect(targets(['agent1', 'Idea: the qty check goes ahead of any dict lookups.']).map((t) => t.scope)).not.toContain('Idea');
  });

  it('reads code pushed, a plan said in the third person, and code wired or hooked into a function', () => {
    expect(targets(['agent1', '`MaxRetries` field pushed.'])).toEqual([{ kind: 'exists', names: ['MaxRetries'], files: [] }]);
    expect(targets(['agent1', 'First step is a `MaxRetries int` field on Config.'])).toEqual([{ kind: 'exists', names: ['MaxRetries'], files: [] }]);
    expect(targets(['agent1', '`_ensure_mutable()` is wired into `insert()`.'])).toEqual([
      { kind: 'placement', names: ['_ensure_mutable'], files: [], scope: 'insert' },
    ]);
    expect(targets(['agent1', 'The helper is written and `_check()` is hooked up in `__init__`.'])).toEqual([
      { kind: 'placement', names: ['_check'], files: [], scope: '__init__' },
    ]);
  });

  it('reads "start" as a place only as a part of a function, and a signature’s parameters as none of its names', () => {
    expect(targets(['agent1', 'The check goes at the start of `get()`.'])).toEqual([
      { kind: 'placement', names: [], files: [], scope: 'get', position: 'first' },
    ]);
    expect(targets(['agent1', 'Mine: a "start" event gets appended in `record()`.'])).toEqual([]);
    expect(targets(['agent1', 'I will add a `pub fn remaining(&self, now: Instant) -> Option<Duration>` on `Timer`.']).flatMap((t) => t.names)).not.toContain(
      'now',
    );
  });

  it('gives a file to the code of its own clause, and a call placed by name to the placement', () => {
    expect(targets(['agent1', 'On my side: a new `remaining()` helper, and I will re-export `TimerError` from src/lib.rs.'])).toEqual([
      { kind: 'exists', names: ['remaining'], files: [] },
      { kind: 'exported', names: ['TimerError'], files: ['src/lib.rs'], module: 'src/lib.rs' },
    ]);
    expect(targets(['agent1', 'In `renew()`, the `_check_renewable` call goes before the `save()` step.'])).toEqual([
      { kind: 'placement', names: ['_check_renewable'], files: [], scope: 'renew', position: 'before', anchor: 'save' },
    ]);
    expect(targets(['agent1', 'In `travel()`, `this.metrics.increment(1)` goes inside the loop.'])).toEqual([
      { kind: 'placement', names: ['increment'], files: [], scope: 'travel', loop: true },
    ]);
  });

  it('reads the names a guard written out tests, and "fair point, will do" as accepting a request', () => {
    expect(targets(['agent1', 'The nil check is placed first in `Board.Submit`: `if e == nil { return false }`.'])).toContainEqual({
      kind: 'placement',
      names: [],
      guard: ['e', 'nil'],
      files: [],
      scope: 'Submit',
      position: 'first',
    });
    const accepted = targets(['agent2', 'Could you export `Tally` from index.ts?'], ['agent1', 'Fair point - will do.']);
    expect(accepted).toEqual([{ kind: 'exported', names: ['Tally'], files: ['index.ts'], module: 'index.ts' }]);
  });

  it('takes a promise back with "scratch"', async () => {
    const merged = diff('src/split.ts', 1, 1, [
      ' export function splitBill(total: number, diners: string[]) {',
      '+  if (!diners.length) throw new RangeError("no diners");',
    ]);
    const task = input(
      conversation(['agent1', 'I will add a `roundTo(cents, step)` helper in src/split.ts.'], ['agent1', 'scratch roundTo, no point having two.']),
      { agent1: merged },
      merged,
    );
    expect(await judge(task)).toEqual([]);
  });
});

describe('code checks: checks that are not an `if` in the function', () => {
  const promise = (text: string) => conversation(['agent1', text]);

  it('counts a Rust `?` as a check', async () => {
    const merged = diff(
      'src/palette.rs',
      10,
      10,
      [
        '     pub fn nearest(&self, c: Rgb) -> Option<Rgb> {',
        '+        let &first = self.colors.first()?;',
        '-        let mut best = self.colors[0];',
        '+        let mut best = first;',
        '         for &p in &self.colors {',
      ],
      'impl Palette {',
    );
    const task = input(promise('`Palette::nearest` will return an Option; the emptiness check comes first in `nearest()`.'), { agent1: merged }, merged);
    expect(await judge(task)).toEqual([]);
  });

  it('counts a Rust `assert!` as a check', async () => {
    const merged = diff(
      'src/window.rs',
      8,
      8,
      [
        '     pub fn new(size: usize) -> Self {',
        '+        assert!(size > 0, "size must be at least 1");',
        '         Window { buf: VecDeque::with_capacity(size), size }',
      ],
      'impl Window {',
    );
    expect(await checkPromise(promiseTask(merged), { kind: 'placement', names: [], files: [], scope: 'new', position: 'first', guard: ['size'] })).toEqual([]);
  });

  it('does not take a receiver for the thing a check tests', async () => {
    const merged = diff('src/jobs.rs', 14, 14, [
      '     pub fn next_job(&mut self) -> Option<String> {',
      '         let job = self.queue.pop_front()?;',
      '+        if self.paused {',
      '+            return None;',
      '+        }',
    ]);
    const [label] = await checkPromise(promiseTask(merged), {
      kind: 'placement',
      names: [],
      files: ['src/jobs.rs'],
      scope: 'next_job',
      position: 'first',
      guard: ['self', 'paused'],
    });
    expect(label!.evidence[1]).toMatchObject({ note: 'a check on self paused is in `next_job()` (src/jobs.rs:16) but not its first statement' });
  });

  it('places a check described in words where the function calls the helper that has it', async () => {
    const merged = diff('station/readings.py', 8, 8, [
      '         return self.client.get("/current")',
      ' ',
      '+    def _ensure_fresh(self, raw):',
      '+        if time.time() - raw["ts"] > self.max_age:',
      '+            raise StaleReading()',
      '+',
      '     def poll(self):',
      '         raw = self._fetch()',
      '+        self._ensure_fresh(raw)',
      '         reading = {"temp_c": float(raw["temp"])}',
    ]);
    const task = input(promise('Inside poll() the freshness check sits right after the `_fetch()` call.'), { agent1: merged }, merged);
    expect(await judge(task)).toEqual([]);
  });
});

describe('code checks: the shown end of a function and the body of a loop', () => {
  it('knows the end of a method whose closing brace ends the hunk', async () => {
    const patch = diff(
      'src/game/scoreboard.ts',
      6,
      6,
      [
        '   addPoints(player: string, points: number): number {',
        '     const next = (this.scores.get(player) ?? 0) + points;',
        "+    this.emit('score', player, next);",
        '     this.scores.set(player, next);',
        '     return next;',
        '   }',
      ],
      'export class Scoreboard extends EventEmitter {',
    );
    const [label] = await checkPromise(promiseTask(patch), { kind: 'placement', names: [], files: [], scope: 'addPoints', position: 'last' });
    expect(label!.evidence[1]).toMatchObject({ note: 'the code agent1 added is in `addPoints()` but not at its end' });
  });

  it('does not take a changed loop header for code inside the loop', async () => {
    const patch = diff(
      'src/histogram.rs',
      11,
      11,
      [
        '     pub fn record_all(&mut self, values: &[u64]) {',
        '-        for v in values {',
        '+        let values: Vec<u64> = values.iter().map(|v| (*v).min(self.max)).collect();',
        '+        for v in &values {',
        '             self.buckets[(*v / self.width) as usize] += 1;',
        '         }',
        '     }',
      ],
      'impl Histogram {',
    );
    const [label] = await checkPromise(promiseTask(patch), { kind: 'placement', names: [], files: [], scope: 'record_all', loop: true });
    expect(label!.evidence[1]).toMatchObject({ note: 'the code agent1 added is in `record_all()` but outside its loop' });
  });
});

describe('code checks: calls read in context, and loops in all but name', () => {
  it('reads the methods after a constructor’s closing line inside their class', async () => {
    const patch = diff(
      'src/badges.ts',
      16,
      16,
      [
        '   ) {}',
        ' ',
        '   async printBadge(a: Attendee): Promise<string> {',
        '     const jobId = await this.printer.send(a.name);',
        "+    this.audit.record('printed', jobId);",
        '     return jobId;',
        '   }',
      ],
      'export class BadgeDesk {',
    );
    expect(await checkPromise(promiseTask(patch), { kind: 'placement', names: ['record'], files: [], scope: 'printBadge', position: 'last' })).toEqual([]);
  });

  it('counts a comprehension as a loop, and a call missing from a function the code shows though a line defines its name', async () => {
    const patch = diff('loans/desk.py', 20, 20, [
      '     def checkout(self, book_id, member_id):',
      '         return self.store.lend(book_id, member_id)',
      ' ',
      '+    def checkout_many(self, book_ids, member_id):',
      '+        return [self.checkout(b, member_id) for b in book_ids]',
      '+',
      '+    def validate(self, member_id):',
      '+        return member_id in self.members',
      '+',
      '     def renew(self, loan):',
      '         self.store.save(loan)',
    ]);
    expect(await checkPromise(promiseTask(patch), { kind: 'placement', names: ['checkout'], files: [], scope: 'checkout_many', loop: true })).toEqual([]);
    const [missing] = await checkPromise(promiseTask(patch), {
      kind: 'placement',
      names: ['validate'],
      files: [],
      scope: 'renew',
      position: 'before',
      anchor: 'save',
    });
    expect(missing!.evidence[1]).toMatchObject({ note: 'no call to `validate` in `renew()` in the merged code' });
  });
});
