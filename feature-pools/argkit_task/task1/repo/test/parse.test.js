import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, ArgError } from '../src/index.js';

const spec = {
  options: {
    verbose: { type: 'boolean', short: 'v' },
    force: { type: 'boolean', short: 'f' },
    output: { type: 'string', short: 'o' },
    jobs: { type: 'number', short: 'j' },
  },
};

test('long boolean and value options', () => {
  const { values, positionals } = parse(['--verbose', '--output', 'out.txt', 'in.txt'], spec);
  assert.deepEqual(values, { verbose: true, output: 'out.txt' });
  assert.deepEqual(positionals, ['in.txt']);
});

test('short flags, groups and attached values', () => {
  assert.deepEqual(parse(['-v', '-o', 'a'], spec).values, { verbose: true, output: 'a' });
  assert.deepEqual(parse(['-vf'], spec).values, { verbose: true, force: true });
  assert.deepEqual(parse(['-vob.txt'], spec).values, { verbose: true, output: 'b.txt' });
  assert.deepEqual(parse(['-vo', 'c.txt'], spec).values, { verbose: true, output: 'c.txt' });
});

test('number options are converted', () => {
  assert.deepEqual(parse(['--jobs', '4'], spec).values, { jobs: 4 });
  assert.deepEqual(parse(['-j', '-2'], spec).values, { jobs: -2 });
  assert.throws(() => parse(['--jobs', 'many'], spec), {
    name: 'ArgError',
    code: 'INVALID_VALUE',
    option: 'jobs',
    message: 'Option --jobs expects a number, got "many"',
  });
});

test('the last occurrence wins', () => {
  assert.deepEqual(parse(['-o', 'a', '--output', 'b'], spec).values, { output: 'b' });
});

test('absent options are absent from values', () => {
  assert.deepEqual(parse(['x', 'y'], spec), { values: {}, positionals: ['x', 'y'] });
});

test('-- ends the options and - is a positional', () => {
  const { values, positionals } = parse(['-v', '-', '--', '--output', '-f'], spec);
  assert.deepEqual(values, { verbose: true });
  assert.deepEqual(positionals, ['-', '--output', '-f']);
});

test('unknown options and missing values throw ArgError', () => {
  assert.throws(() => parse(['--nope'], spec), (err) => {
    assert.ok(err instanceof ArgError);
    assert.equal(err.code, 'UNKNOWN_OPTION');
    assert.equal(err.message, 'Unknown option --nope');
    return true;
  });
  assert.throws(() => parse(['-vx'], spec), { code: 'UNKNOWN_OPTION', message: 'Unknown option -x' });
  assert.throws(() => parse(['--output'], spec), {
    code: 'MISSING_VALUE',
    message: 'Option --output requires a value',
  });
});

test('spec mistakes throw TypeError', () => {
  assert.throws(() => parse([], { options: { x: { type: 'date' } } }), TypeError);
  assert.throws(() => parse([], { options: { a: { short: 'q' }, b: { short: 'q' } } }), {
    name: 'TypeError',
    message: 'Duplicate short flag -q',
  });
  assert.throws(() => parse([], { options: { '--bad': {} } }), TypeError);
});
