// A generated feature pool with the usual shapes of two features meeting in one file: each feature
// extends one signature and its doc comment, adds a statement to one function body, an entry to one
// object, a case to one switch, a method to one class and a name to one import. Features 1-3 are
// compatible with each other; feature 4 gives `case 2` another meaning than feature 1 (a true conflict).
// Each feature has node:test tests, run on a merged checkout by the tests that use the pool.

export interface PoolFeature {
  id: number;
  /** The feature's version of src/table.js. */
  table: string;
  /** Its hidden test, as tests/feature<id>.test.mjs. */
  test: string;
}

export const PAD = `export const FILL = '.';
export const EDGE = '|';

export function pad(text, width, fill = ' ') {
  return text.padEnd(width, fill);
}
`;

interface Parts {
  imports: string;
  params: string;
  docs: string;
  first: string;
  join: string;
  defaults: string;
  cases: string;
  methods: string;
}

const NONE: Parts = { imports: 'pad', params: '', docs: '', first: '', join: ".join('\\n')", defaults: '', cases: '', methods: '' };

function table(p: Parts): string {
  return `import { ${p.imports} } from './pad.js';

/**
 * Renders rows as text.
 *
 * @param {string[]} rows the rows
 * @param {number} width the width of a row
 * @param {object} [options]
 * @param {string} [options.fill] pads the rows${p.docs}
 */
export function render(rows, width, { fill = ' '${p.params} } = {}) {${p.first}
  return rows.map((row) => pad(row, width, fill))${p.join};
}

export const DEFAULTS = {
  width: 10,${p.defaults}
};

export function kind(value) {
  switch (value) {
    case 1:
      return 'one';${p.cases}
    default:
      return 'many';
  }
}

export class Table {
  constructor(rows) {
    this.rows = rows;
  }${p.methods}
}
`;
}

export const BASE_TABLE = table(NONE);

const test = (body: string) => `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { render, DEFAULTS, kind, Table } from '../src/table.js';

test('the base still works', () => {
  assert.equal(render(['ab'], 3), 'ab ');
  assert.equal(kind(1), 'one');
  assert.equal(DEFAULTS.width, 10);
});
${body}`;

export const FEATURES: PoolFeature[] = [
  {
    id: 1,
    table: table({
      ...NONE,
      params: ', upper = false',
      docs: '\n * @param {boolean} [options.upper] upper-case every row',
      first: '\n  if (upper) rows = rows.map((row) => row.toUpperCase());',
      defaults: '\n  upper: false,',
      cases: "\n    case 2:\n      return 'two';",
      methods: '\n\n  upper() {\n    return new Table(this.rows.map((row) => row.toUpperCase()));\n  }',
    }),
    test: test(`
test('upper', () => {
  assert.equal(render(['ab'], 3, { upper: true }), 'AB ');
  assert.equal(DEFAULTS.upper, false);
  assert.equal(kind(2), 'two');
  assert.deepEqual(new Table(['a']).upper().rows, ['A']);
});
`),
  },
  {
    id: 2,
    table: table({
      ...NONE,
      imports: 'pad, FILL',
      params: ', trim = false',
      docs: '\n * @param {boolean} [options.trim] trim every row first',
      first: '\n  if (trim) rows = rows.map((row) => row.trim());',
      defaults: '\n  trim: false,\n  fill: FILL,',
      cases: "\n    case 0:\n      return 'none';",
      methods: '\n\n  count() {\n    return this.rows.length;\n  }',
    }),
    test: test(`
test('trim', () => {
  assert.equal(render([' ab '], 3, { trim: true }), 'ab ');
  assert.equal(DEFAULTS.fill, '.');
  assert.equal(kind(0), 'none');
  assert.equal(new Table(['a', 'b']).count(), 2);
});
`),
  },
  {
    id: 3,
    table: table({
      ...NONE,
      imports: 'pad, EDGE',
      params: ", border = ''",
      docs: '\n * @param {string} [options.border] drawn on both sides of every row',
      join: ".map((line) => border + line + border).join('\\n')",
      defaults: '\n  border: EDGE,',
      cases: "\n    case 3:\n      return 'three';",
      methods: '\n\n  widest() {\n    return Math.max(...this.rows.map((row) => row.length));\n  }',
    }),
    test: test(`
test('border', () => {
  assert.equal(render(['ab'], 3, { border: '|' }), '|ab |');
  assert.equal(DEFAULTS.border, '|');
  assert.equal(kind(3), 'three');
  assert.equal(new Table(['a', 'abc']).widest(), 3);
});
`),
  },
  {
    id: 4,
    table: table({
      ...NONE,
      cases: "\n    case 2:\n      return 'pair';",
      methods: '\n\n  first() {\n    return this.rows[0];\n  }',
    }),
    test: test(`
test('pair', () => {
  assert.equal(kind(2), 'pair');
  assert.equal(new Table(['a', 'b']).first(), 'a');
});
`),
  },
];

/** Pairs whose features can both hold in one file. */
export const compatible = (a: number, b: number): boolean => !(a === 4 || b === 4) || (a !== 1 && b !== 1);
