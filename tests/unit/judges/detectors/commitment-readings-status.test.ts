// Readings and one check of common wordings, most in the style of LLM agents' status messages: the function a placement is in; code named but not
// made (tests, docs, wrappers, calls, imports); status lines that open with a past form; export
// statements and export lists; a file and its lines in backticks; a whole file kept away from; a list
// of code with what it is and where, claimed or promised as its introduction says; who does the verb
// after "to"; intents the sender had; a call promised as the last thing its function does.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { extractCommitments } from '../../../../judges/detectors/commitment-extract.ts';
import { conversation, diff, input, judge, targets } from './commitment-fixtures.ts';

beforeAll(async () => {
  await loadLanguage();
});

/** Each text, sent alone, commits its sender to nothing. */
const readsNothing = (...texts: string[]) => {
  for (const text of texts) expect(targets(['agent1', text]), text).toEqual([]);
};

describe('readings: the function a placement is in', () => {
  it('takes the function the sentence names, not the one named before it', () => {
    const placed = { kind: 'placement', names: [], files: [], scope: 'get', position: 'first' };
    const alone = "The check itself goes in `get()`: it'll be the very first thing get does, ahead of the dict lookup.";
    expect(targets(['agent1', alone])).toEqual([placed]);
    const afterList = `- \`Cache\` gets a new \`bypass()\` context manager, I'll put it below \`clear()\`\n- ${alone}`;
    expect(targets(['agent1', afterList]).filter((t) => t.kind === 'placement')).toEqual([placed]);
  });
});

describe('readings: code named but not made', () => {
  it('reads no definition of code that tests or documents are about, and still reads a new noun phrase after them', () => {
    readsNothing("I'll add tests that cover `Cart.total`.", 'I added tests for `parse_date` and `format_date`.', "I'll write a docstring for `load`.");
    expect(targets(['agent1', "I'll add tests and a `reset()` method."])).toEqual([{ kind: 'exists', names: ['reset'], files: [] }]);
    expect(targets(['agent1', 'Added a `retries` option, tests and docs.'])).toEqual([{ kind: 'exists', names: ['retries'], files: [] }]);
  });

  it('reads "including" as what a list holds: code made when the list is made, none when tests pass', () => {
    readsNothing('All tests pass, including `test_parse_empty`.');
    expect(targets(['agent1', 'I added three helpers, including `foo()`.'])).toEqual([{ kind: 'exists', names: ['foo'], files: [] }]);
    expect(extractCommitments(conversation(['agent1', 'I added three helpers, including `foo()`.']))[0]?.kind).toBe('claim');
  });

  it('reads no definition of code that is wrapped or called, or added to the imports or the tests', () => {
    readsNothing(
      'Added error handling around `requests.get`.',
      "I'll add a call to `self._flush()`.",
      'I added `Optional` to the imports.',
      "I've added `pytest.mark.slow` to the long tests.",
    );
    // A type named Doc is a place for a method.
    expect(targets(['agent1', "I'm adding `rename()` to Doc in src/editor/doc.ts."])).toEqual([
      { kind: 'exists', names: ['rename'], files: ['src/editor/doc.ts'] },
    ]);
  });
});

describe('readings: status lines that open with a past form', () => {
  it('reads the opening past form before code as the verb, and its purpose as done', () => {
    const exported = { kind: 'exported', names: ['TTLCache'], files: ['__init__.py'], module: '__init__.py' };
    expect(targets(['agent1', 'Updated `__init__.py` to export `TTLCache`.'])).toEqual([exported]);
    expect(extractCommitments(conversation(['agent1', 'Updated `__init__.py` to export `TTLCache`.']))[0]?.kind).toBe('claim');
    expect(targets(['agent1', 'Exposed `parse_args` via `cli/__init__.py`.'])).toEqual([
      { kind: 'exported', names: ['parse_args'], files: ['cli/__init__.py'], module: 'cli/__init__.py' },
    ]);
    expect(targets(['agent1', 'Modified `cache.py` to add a `ttl` parameter to `get()`.'])).toEqual([
      { kind: 'exists', names: ['ttl'], files: ['cache.py'], scope: 'get' },
    ]);
  });

  it('leaves an adjective before a noun, and a purpose that failed', () => {
    readsNothing('Updated docs are in README.', 'Failed to add `foo`.');
  });
});

describe('readings: export statements and export lists', () => {
  it('reads an export statement quoted as code as an export of the names it lists, from the file it goes to', () => {
    const exported = (names: string[], module: string) => [{ kind: 'exported', names, files: [module], module }];
    expect(targets(['agent1', "I'll add `export { RateLimiter, Policy as RatePolicy } from './limiter'` to index.ts."])).toEqual(
      exported(['RateLimiter', 'RatePolicy'], 'index.ts'),
    );
    expect(targets(['agent1', 'Added `pub use limiter::{RateLimiter, Policy};` to src/lib.rs.'])).toEqual(exported(['RateLimiter', 'Policy'], 'src/lib.rs'));
    expect(targets(['agent1', "I'll add `from .limiter import RateLimiter` to `limits/__init__.py`."])).toEqual(
      exported(['RateLimiter'], 'limits/__init__.py'),
    );
    // An import into a module that is no package's __init__.py exports nothing.
    readsNothing('I added `from typing import Optional` to utils.py.');
  });

  it('reads adding a name to `__all__` as its export only, and adding it to a file as well as its definition', () => {
    expect(targets(['agent1', 'Added `RateLimiter` to `__all__` in `limits/__init__.py`.'])).toEqual([
      { kind: 'exported', names: ['RateLimiter'], files: ['limits/__init__.py'], module: 'limits/__init__.py' },
    ]);
    expect(targets(['agent1', "I'll add `slugify()` to text.py and to `__all__` in `mdtoc/__init__.py`."]).map((t) => t.kind)).toEqual(['exported', 'exists']);
  });
});

describe('readings: a file and its lines in backticks', () => {
  it('reads `path:N-M` as the lines of the file, as it is read without backticks', () => {
    const lines = { kind: 'untouched_lines', names: [], files: ['src/client.ts'], lines: [90, 130] };
    expect(targets(['agent1', '`src/client.ts:90-130` is yours.'])).toEqual([lines]);
    expect(targets(['agent1', 'src/client.ts:90-130 is yours.'])).toEqual([lines]);
  });
});

describe('readings: a whole file kept away from', () => {
  it('reads staying out of a file, or changing nothing in it, as the file left alone', () => {
    const file = (kind: string, path: string) => [{ kind, names: [], files: [path] }];
    expect(targets(['agent1', 'I stayed out of `src/queue.ts` as agreed.'])).toEqual(file('untouched_symbol', 'src/queue.ts'));
    expect(targets(['agent1', "I'll stay out of src/queue.ts."])).toEqual(file('untouched_symbol', 'src/queue.ts'));
    expect(targets(['agent1', "I won't change anything in slug.py."])).toEqual(file('untouched_symbol', 'slug.py'));
    // A part of the file is not the file.
    readsNothing("I won't touch the parser in slug.py.");
  });
});

describe('readings: a list of code with what it is and where', () => {
  it('reads the items of a list introduced as work done as claims, of any other list as promises', () => {
    const kinds = (text: string) => extractCommitments(conversation(['agent1', text])).map((c) => c.kind);
    expect(kinds("I've finished implementing the retry feature:\n- `foo()` in utils.py\n- added `bar()` to utils.py")).toEqual(['claim', 'claim']);
    expect(kinds('Done:\n- `foo()` in utils.py')).toEqual(['claim']);
    expect(kinds('Plan:\n- `foo()` in utils.py')).toEqual(['promise']);
    expect(kinds('- `foo()` in utils.py')).toEqual(['promise']);
  });

  it('reads an item naming code, its kind and its file in parentheses or the type it is on', () => {
    const list = [
      "I've finished implementing the retry feature:",
      '',
      '1. **`RetryPolicy` interface** (src/types.ts, lines 12-20)',
      '2. **`retryWithBackoff()`** method in `HttpClient`',
      '3. `Bar` class (bar.py)',
    ].join('\n');
    expect(targets(['agent1', list])).toEqual([
      { kind: 'exists', names: ['RetryPolicy'], files: ['src/types.ts'] },
      { kind: 'exists', names: ['HttpClient.retryWithBackoff'], files: [] },
      { kind: 'exists', names: ['Bar'], files: ['bar.py'] },
    ]);
  });
});

describe('readings: who does the verb after "to"', () => {
  it('reads a request to the partner as no commitment of the sender', () => {
    readsNothing('I want you to add `foo()`.', 'I need you to export `parse`.', "I'd like agent2 to add `foo()`.", 'I asked you not to touch `render()`.');
    expect(targets(['agent1', 'I want to add `foo()`.'])).toEqual([{ kind: 'exists', names: ['foo'], files: [] }]);
  });

  it('reads "not" before "to" as negating the verb, and not overlapping as leaving alone', () => {
    const lines = [{ kind: 'untouched_lines', names: [], files: [], lines: [40, 80] }];
    expect(targets(['agent1', "Sounds good! I'll make sure not to touch lines 40-80."])).toEqual(lines);
    expect(targets(['agent1', "I'll be careful not to touch lines 40-80."])).toEqual(lines);
    expect(targets(['agent1', "I won't overlap with your lines 40-80."])).toEqual(lines);
  });
});

describe('readings: intents the sender had', () => {
  it('reads no commitment in an intent had in the past, and still reads one decided or to come', () => {
    readsNothing(
      'I was going to add `foo()`, but you already have it.',
      'I was planning to add `foo()`.',
      'I wanted to add `foo()`.',
      'I meant to add `foo()`.',
    );
    const foo = [{ kind: 'exists', names: ['foo'], files: [] }];
    expect(targets(['agent1', 'I decided to add `foo()`.'])).toEqual(foo);
    expect(targets(['agent1', "I'm going to add `foo()`."])).toEqual(foo);
  });
});

describe('checks: a call promised as the last thing its function does', () => {
  const promise = "I'll call `this.emit('score')` as the last thing `addPoints()` does.";
  const patch = (body: string[]) =>
    diff(
      'src/scoreboard.ts',
      5,
      5,
      [
        '   addPoints(player: string, points: number): number {',
        '     const next = (this.scores.get(player) ?? 0) + points;',
        ...body,
        '     return next;',
        '   }',
      ],
      'export class Scoreboard extends EventEmitter {',
    );

  it('is broken when other code follows it', async () => {
    const early = patch(["+    this.emit('score', player, next);", '     this.scores.set(player, next);']);
    const [label] = await judge(input(conversation(['agent1', promise]), { agent1: early }, early));
    expect(label?.description).toBe('agent1 promised a call to `emit` in `addPoints()`, which the code does not have there');
    expect(label?.evidence).toContainEqual(
      expect.objectContaining({ kind: 'absence', note: 'a call to `emit` is in `addPoints()` (src/scoreboard.ts:7) but not at its end' }),
    );
  });

  it('is kept right before the final return', async () => {
    const last = patch(['     this.scores.set(player, next);', "+    this.emit('score', player, next);"]);
    expect(await judge(input(conversation(['agent1', promise]), { agent1: last }, last))).toEqual([]);
  });
});
