import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createParser, formatHelp } from '../src/index.js';

const spec = {
  usage: 'convert [options] <input>',
  description: 'Convert a file.',
  options: {
    verbose: { short: 'v', description: 'Print more output' },
    output: { type: 'string', short: 'o', placeholder: 'file', description: 'Write the result to <file>' },
    jobs: { type: 'number', placeholder: 'n', description: 'Number of workers' },
    quiet: {},
  },
};

test('formatHelp renders usage, description and aligned options', () => {
  assert.equal(
    formatHelp(spec),
    [
      'Usage: convert [options] <input>',
      '',
      'Convert a file.',
      '',
      'Options:',
      '  -v, --verbose          Print more output',
      '  -o, --output <file>    Write the result to <file>',
      '      --jobs <n>         Number of workers',
      '      --quiet',
      '',
    ].join('\n'),
  );
});

test('default usage line and no options', () => {
  assert.equal(formatHelp({ program: 'tool' }), 'Usage: tool [options]\n');
  assert.equal(formatHelp(), 'Usage: cli [options]\n');
});

test('long descriptions are wrapped', () => {
  const text = formatHelp(
    { options: { x: { description: 'one two three four five six seven eight nine ten' } } },
    { width: 40 },
  );
  const lines = text.split('\n');
  assert.ok(lines.length > 5);
  for (const line of lines) assert.ok(line.length <= 40, line);
  assert.equal(lines[3].trim().split(/\s+/)[0], '--x');
});

test('createParser binds a spec', () => {
  const cli = createParser(spec);
  assert.deepEqual(cli.parse(['-v', 'in']), { values: { verbose: true }, positionals: ['in'] });
  assert.equal(cli.help(), formatHelp(spec));
  assert.throws(() => createParser({ options: { x: { type: 'nope' } } }), TypeError);
});
