// Readings of common wordings, each varied one phrase at a time: a list of code names joined by commas, a
// verb heading a list after a colon, a subject that names its file, and a call placed in a function
// named by what it is.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { conversation, input, judge, newFile, targets } from './commitment-fixtures.ts';

beforeAll(async () => {
  await loadLanguage();
});

describe('readings: code named in lists', () => {
  it('reads every name of a list joined by commas, as subject or object, with or without a serial comma', () => {
    const all = { kind: 'exists', names: ['foo', 'bar', 'baz'], files: [] };
    expect(targets(['agent1', 'I added `foo`, `bar` and `baz`.'])).toEqual([all]);
    expect(targets(['agent1', '`foo`, `bar` and `baz` are in.'])).toEqual([all]);
    expect(targets(['agent1', 'I am adding foo(), bar(), and baz().'])).toEqual([all]);
    expect(targets(['agent1', 'Going to add `foo`, `bar`, `baz` in util.py.'])).toEqual([{ ...all, files: ['util.py'] }]);
    // A comma between code and a new clause still ends the clause.
    expect(targets(['agent1', 'In `parse()`, the None check comes first.'])).toEqual([
      { kind: 'placement', names: [], guard: ['none'], files: [], scope: 'parse', position: 'first' },
    ]);
  });

  it('reads the verb that heads a list after a colon', () => {
    expect(targets(['agent1', 'Added: `parse_args` and `load`.'])).toEqual([{ kind: 'exists', names: ['parse_args', 'load'], files: [] }]);
    expect(targets(['agent1', 'Exported: `parse_args`, `load`.'])).toEqual([{ kind: 'exported', names: ['parse_args', 'load'], files: [] }]);
    // A status word before a report is no verb of the names that follow.
    expect(targets(['agent1', 'Pushed: `validate()` is wired into `start()`.']).map((t) => t.kind)).not.toContain('exists');
  });

  it('reports the name of a list the code lacks', async () => {
    const patch = newFile('util.py', ['def foo():', '    return 1', '', 'def bar():', '    return 2']);
    const [label] = await judge(input(conversation(['agent1', 'I added `foo`, `bar` and `baz` to util.py.']), { agent1: patch }, patch));
    expect(label?.description).toBe('agent1 claimed `baz`, missing from the code');
  });
});

describe('readings: a subject that names its file', () => {
  it('reads lines or code "in <file>" given to the partner as left alone', () => {
    expect(targets(['agent1', 'Lines 40-53 in app.py are yours.'])).toEqual([{ kind: 'untouched_lines', names: [], files: ['app.py'], lines: [40, 53] }]);
    expect(targets(['agent1', '`load()` in cli.py is yours.'])).toEqual([{ kind: 'untouched_symbol', names: ['load'], files: ['cli.py'] }]);
    expect(targets(['agent1', '`load()` in cli.py is exported now.'])).toEqual([{ kind: 'exported', names: ['load'], files: ['cli.py'], module: 'cli.py' }]);
  });
});

describe('readings: a call placed in a function named by what it is', () => {
  it('reads the constructor as the place of a call, in the active and the passive', () => {
    const inConstructor = { kind: 'placement', names: ['_check'], files: [], scope: '__init__' };
    expect(targets(['agent1', 'The constructor now calls `_check()`.'])).toEqual([inConstructor]);
    expect(targets(['agent1', '`_check()` is called in the constructor.'])).toEqual([inConstructor]);
    expect(targets(['agent1', '`_check()` is called from the `Pool` constructor.'])).toEqual([inConstructor]);
    expect(targets(['agent1', 'I call `_check()` from the constructor.'])).toEqual([inConstructor]);
    // A function named in code stays that function.
    expect(targets(['agent1', '`_check()` gets called in `request()` after `send()` returns.'])).toEqual([
      { kind: 'placement', names: ['_check'], files: [], scope: 'request', position: 'after', anchor: 'send' },
    ]);
  });
});
