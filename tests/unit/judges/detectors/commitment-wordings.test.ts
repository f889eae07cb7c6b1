// Wordings of placements and new code as agents write them (independent-train-4): each paraphrase
// must give the same commitment, and the checker must tell the kept code from the broken.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { conversation, diff, input, judge, targets } from './commitment-fixtures.ts';

beforeAll(async () => {
  await loadLanguage();
});

describe('commitments: placements in the wordings of agents (independent-train-4)', () => {
  it('reads a guard verb with the tested code as a guard placed where the sentence says', () => {
    const afterLock = { kind: 'placement', guard: ['closed'], position: 'after', anchorWords: ['lock'] };
    for (const said of [
      "I'll check `s.closed` right after we acquire the lock.",
      "I'm going to validate `s.closed` right after acquiring the lock.",
      "We'll verify `s.closed` once the lock is held.",
    ])
      expect(targets(['agent1', said]), said).toEqual([expect.objectContaining(afterLock)]);
    expect(targets(['agent1', "I'll validate `opts.timeout` in the `Client` constructor."])).toContainEqual(
      expect.objectContaining({ kind: 'placement', guard: ['timeout'], scope: '__init__' }),
    );
  });

  it('reads "inside the loop", "on every iteration" as a placement in the loop of the function', () => {
    for (const said of ["I'll check `ctx.Err()` inside the `for` loop in `Drain()`.", 'In `Drain()` I will test `ctx.Err()` on every iteration of the loop.'])
      expect(targets(['agent1', said]), said).toEqual([expect.objectContaining({ kind: 'placement', guard: ['Err'], scope: 'Drain', loop: true })]);
  });

  it('finds a check promised inside the loop that runs once before it', async () => {
    const messages = conversation(['agent1', "I'll check `ctx.Err()` inside the `for` loop in `Drain()`, on every item."]);
    const patch = (lines: string[]) => diff('queue/queue.go', 9, 9, lines);
    const before = patch([
      ' func (q *Queue) Drain(ctx context.Context) error {',
      '+\tif err := ctx.Err(); err != nil {',
      '+\t\treturn err',
      '+\t}',
      ' \tfor item := range q.items {',
      ' \t\tq.sink.Put(item)',
      ' \t}',
      ' \treturn nil',
      ' }',
    ]);
    const [label] = await judge(input(messages, { agent1: before }, before));
    expect(label!.evidence.find((e) => e.kind === 'absence')).toMatchObject({
      note: 'a check on Err is in `Drain()` (queue/queue.go:10) but outside its loop',
    });
    const inside = patch([
      ' func (q *Queue) Drain(ctx context.Context) error {',
      ' \tfor item := range q.items {',
      '+\t\tif err := ctx.Err(); err != nil {',
      '+\t\t\treturn err',
      '+\t\t}',
      ' \t\tq.sink.Put(item)',
      ' \t}',
      ' \treturn nil',
      ' }',
    ]);
    expect(await judge(input(messages, { agent1: inside }, inside))).toEqual([]);
  });

  it('reads where a call sits relative to another, with a code subject or a pronoun for the code named before', () => {
    expect(targets(['agent1', 'For latency, `this.metrics.record()` gets called in `request()` after `await this.send(req)` returns.'])).toEqual([
      expect.objectContaining({ kind: 'placement', names: ['record'], scope: 'request', position: 'after', anchor: 'send' }),
    ]);
    expect(
      targets(['agent1', "I'm adding `Queue._normalize()`. In `submit()` it gets called right after `self._validate(payload)`."]).filter(
        (t) => t.kind === 'placement',
      ),
    ).toEqual([expect.objectContaining({ names: ['Queue._normalize'], scope: 'submit', position: 'after', anchor: '_validate' })]);
    for (const said of ['My `create_jinja_env()` function will call your `get_global_filters()`.', '`create_jinja_env()` now calls `get_global_filters()`.'])
      expect(targets(['agent1', said]), said).toContainEqual(
        expect.objectContaining({ kind: 'placement', names: ['get_global_filters'], scope: 'create_jinja_env' }),
      );
  });

  it('reads a report that names the promised function or code and a position as that placement again', () => {
    const promise: [string, string] = ['agent1', "I'll validate `opts.timeout` in the `Client` constructor, before storing the options."];
    for (const said of ['Validation is in the constructor.', 'The timeout check is in the constructor now.'])
      expect(targets(promise, ['agent1', said]), said).toContainEqual(expect.objectContaining({ kind: 'placement', guard: ['timeout'], scope: '__init__' }));
    // A report that names neither the function nor a position or guard claims nothing.
    expect(targets(promise, ['agent1', 'Done, pushed.'])).toEqual([]);
    // A guard noun naming no code is the one guard the sender placed; naming other code, it is not.
    const guard: [string, string] = ['agent1', "I'll check `s.closed` right after we acquire the lock."];
    for (const said of ['The check runs under the lock.', 'closed check is in, under the lock now.'])
      expect(targets(guard, ['agent1', said]), said).toContainEqual(expect.objectContaining({ kind: 'placement', guard: ['closed'], position: 'after' }));
    expect(targets(guard, ['agent1', 'The type check passes on store/store.go.'])).toEqual([]);
  });

  it('finds a guard described in words only where no guard was added to its function', async () => {
    const messages = conversation(['agent1', "I'm adding the capacity check to `write()`: it goes first."]);
    const kept = diff(
      'src/writer.rs',
      11,
      11,
      [
        '     pub fn write(&mut self, data: &[u8]) -> Result<usize, Error> {',
        '+        if self.buf.len() + data.len() > self.cap {',
        '+            return Err(Error::Full);',
        '+        }',
        '         self.buf.extend_from_slice(data);',
        '         Ok(data.len())',
        '     }',
      ],
      'impl Writer {',
    );
    expect(await judge(input(messages, { agent1: kept }, kept))).toEqual([]);
  });
});

describe('commitments: new code and exports in the wordings of agents (independent-train-4)', () => {
  it('reads a code word before a describing noun and a kind noun as new code', () => {
    for (const said of [
      "I'm adding a `with_retries()` builder method next to `timeout()`.",
      "I'm adding a `with_retries()` builder next to `timeout()`.",
      '✓ Added BOTH: `retries` field and `with_retries()` builder.',
    ])
      expect(
        targets(['agent1', said]).flatMap((t) => t.names),
        said,
      ).toContain('with_retries');
  });

  it('reads new code reported with "now" or without a verb as a claim that it exists', () => {
    for (const said of ["There's now a `flush_all()` method on `Batcher`.", '`Batcher` now has a `flush_all()` method.'])
      expect(
        targets(['agent1', said]).flatMap((t) => t.names.map((n) => n.replace(/^.*\./, ''))),
        said,
      ).toEqual(['flush_all']);
    expect(targets(['agent1', 'Is there a `flush_all()` method on `Batcher`?'])).toEqual([]);
  });

  it('reads code that code "has" as its member: "ClientOptions has `retries` now"', async () => {
    const messages = conversation(['agent1', 'done — ClientOptions has `retries` now and `get()` uses it.']);
    const options = (member: string[]) =>
      diff('src/client.ts', 1, 1, [' export interface ClientOptions {', '   baseUrl: string;', '   token?: string;', ...member, ' }']);
    const kept = options(['+  retries?: number;']);
    expect((await judge(input(messages, { agent1: kept }, options([])))).map((l) => l.messageId)).toEqual([1]);
    expect(await judge(input(messages, { agent1: kept }, kept))).toEqual([]);
  });

  it('reads "it" after a clause whose subject is code as that code: "uniqueSlug done, it\'s exported"', async () => {
    const messages = conversation(['agent1', "I won't change `slugify()`."], ['agent2', 'ok'], ['agent1', "uniqueSlug done, it's exported from src/slug.ts."]);
    const slug = (exported: boolean) =>
      diff('src/slug.ts', 1, 1, [
        ' export function slugify(text: string): string {',
        '   return text.toLowerCase();',
        ' }',
        '+',
        `+${exported ? 'export ' : ''}function uniqueSlug(text: string, taken: Set<string>): string {`,
        '+  return slugify(text);',
        '+}',
      ]);
    expect((await judge(input(messages, { agent1: slug(false) }, slug(false)))).map((l) => l.messageId)).toEqual([3]);
    expect(await judge(input(messages, { agent1: slug(true) }, slug(true)))).toEqual([]);
  });

  it('reads code named before its noun phrase ("`remaining` — a read-only property on RateLimiter") as that new code', async () => {
    const messages = conversation([
      'agent1',
      'Mine, all in ratelimit/limiter.py:\n\n1. `reset()` on `RateLimiter`\n2. `remaining` — a read-only property on RateLimiter',
    ]);
    const limiter = (property: string[]) =>
      diff('ratelimit/limiter.py', 10, 10, [
        ' class RateLimiter:',
        '     def allow(self):',
        '         return self.tokens > 0',
        '+',
        '+    def reset(self):',
        '+        self.tokens = self.burst',
        ...property,
      ]);
    const kept = limiter(['+', '+    @property', '+    def remaining(self):', '+        return self.tokens']);
    expect((await judge(input(messages, { agent1: limiter([]) }, limiter([])))).map((l) => l.messageId)).toEqual([1]);
    expect(await judge(input(messages, { agent1: kept }, kept))).toEqual([]);
  });

  it('reads an export promised through an import or "exposed", from the module the import names', () => {
    expect(targets(['agent1', 'I will make it importable as `from config import load_config`.'])).toEqual([
      expect.objectContaining({ kind: 'exported', names: ['load_config'], module: 'config' }),
    ]);
    expect(
      targets(['agent1', 'New `load_config(path)` in config/loader.py.'], ['agent1', '`load_config` is done and exposed from the package.']).filter(
        (t) => t.kind === 'exported',
      ),
    ).toEqual([expect.objectContaining({ kind: 'exported', names: ['load_config'], module: 'config/__init__.py' })]);
  });

  it('exports neither what comes "with" the exported code nor from a function named as a place', () => {
    const retry = targets(['agent1', "It's a small `RetryPolicy` class: I'll put it in src/retry.ts, exported, with a `run(fn)` method."]);
    expect(retry.filter((t) => t.kind === 'exported').flatMap((t) => t.names)).not.toContain('run');
    const save = targets(['agent1', "I'll add an `ensureDir(dir)` helper (exported too) and call it in `save()` before writing the file."]);
    expect(save.filter((t) => t.kind === 'exported').map((t) => t.module)).not.toContain('save()');
  });
});
