import { normalizeSpec, parse } from './parser.js';
import { formatHelp } from './help.js';

export { ArgError, ErrorCodes } from './errors.js';
export { normalizeSpec, parse } from './parser.js';
export { formatFlags, formatHelp } from './help.js';

/**
 * Bind a spec once and get `parse` and `help` functions for it. The spec is
 * validated immediately, so mistakes in it surface at start-up.
 *
 * @param {object} spec
 */
export function createParser(spec) {
  normalizeSpec(spec);
  return {
    parse: (argv = process.argv.slice(2)) => parse(argv, spec),
    help: (settings) => formatHelp(spec, settings),
  };
}
