import { normalizeSpec } from './parser.js';

/**
 * Render a help screen for `spec`:
 *
 *     Usage: tool [options] <input>
 *
 *     Options:
 *       -v, --verbose          Print more output
 *       -o, --output <file>    Write the result to <file>
 *           --count <n>        How many times
 *
 * @param {object} [spec] the same spec object that is given to `parse`
 * @param {{width?: number}} [settings] `width`: wrap descriptions at this
 *   column (default 80)
 * @returns {string} the help text, ending with a newline
 */
export function formatHelp(spec = {}, { width = 80 } = {}) {
  const { options, program, usage, description } = normalizeSpec(spec);
  const lines = [`Usage: ${usage ?? `${program ?? 'cli'} [options]`}`];

  if (description) {
    lines.push('', ...wrap(description, width));
  }

  if (options.length > 0) {
    lines.push('', 'Options:');
    const rows = options.map((opt) => [formatFlags(opt), opt.description]);
    const pad = Math.max(...rows.map(([flags]) => flags.length)) + 4;
    const textWidth = Math.max(width - pad - 2, 20);
    for (const [flags, text] of rows) {
      const [first = '', ...rest] = wrap(text, textWidth);
      lines.push(`  ${flags.padEnd(pad)}${first}`.trimEnd());
      for (const more of rest) {
        lines.push(`${' '.repeat(pad + 2)}${more}`);
      }
    }
  }

  return `${lines.join('\n')}\n`;
}

/**
 * The left column of an option's help line, e.g. `-o, --output <file>`.
 * Options without a short flag are indented so that long names line up.
 *
 * @param {object} opt normalized option (see `normalizeSpec`)
 */
export function formatFlags(opt) {
  const names = [`--${opt.name}`];
  if (opt.short) {
    names.unshift(`-${opt.short}`);
  }
  let flags = names.join(', ');
  if (opt.type !== 'boolean') {
    flags += ` <${opt.placeholder}>`;
  }
  return opt.short ? flags : `    ${flags}`;
}

/**
 * Greedy word wrap. Words longer than `width` get a line of their own.
 */
function wrap(text, width) {
  const lines = [];
  let line = '';
  for (const word of String(text).split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') {
    lines.push(line);
  }
  return lines;
}
